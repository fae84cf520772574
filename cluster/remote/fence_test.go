package remote

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/invindex"
)

// TestFence_LateCallOfAbandonedRunRefused: a client still holding run 1
// (its connection was cut off while the master went on) cannot deliver into
// run 2, which another connection began; run 2's own calls pass.
func TestFence_LateCallOfAbandonedRunRefused(t *testing.T) {
	addr, _ := startServer(t, cluster.NewLocalNode(0, 1<<20), Security{Secret: testSecret})
	old := dial(t, addr, Security{Secret: testSecret}, Options{Timeout: time.Minute})
	cur := dial(t, addr, Security{Secret: testSecret}, Options{Timeout: time.Minute})
	ctx := context.Background()
	p := invindex.Params{WindowWords: 3, ChunkBits: 20}
	if err := old.Begin(ctx, cluster.RunSpec{Run: 1, Full: true, Params: p}, nil); err != nil {
		t.Fatal(err)
	}
	if err := cur.Begin(ctx, cluster.RunSpec{Run: 2, Full: true, Params: p}, nil); err != nil {
		t.Fatal(err)
	}
	docs := []invindex.DocChunks{{Doc: 1, Chunks: []uint32{5, 9}, Checks: []uint8{1, 2}}}
	if err := old.Deliver(ctx, docs, false); !errors.Is(err, cluster.ErrNoRun) {
		t.Fatalf("late Deliver of run 1 during run 2: %v, want ErrNoRun", err)
	}
	if _, err := old.Count(ctx, []invindex.DocID{1}); !errors.Is(err, cluster.ErrNoRun) {
		t.Fatalf("late Count of run 1 during run 2: %v, want ErrNoRun", err)
	}
	if err := old.Abort(ctx); !errors.Is(err, cluster.ErrNoRun) {
		t.Fatalf("late Abort of run 1 during run 2: %v, want ErrNoRun", err)
	}
	if err := cur.Deliver(ctx, docs, true); err != nil {
		t.Fatalf("run 2's own Deliver: %v", err)
	}
	if _, err := cur.Build(ctx); err != nil {
		t.Fatalf("run 2's Build (run 2 was not aborted by the late Abort): %v", err)
	}
	if err := cur.Commit(ctx, 2); err != nil {
		t.Fatal(err)
	}
}
