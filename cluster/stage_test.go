package cluster

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/plagd/plagd/invindex"
)

// TestStaged_Order: the wrapper lets a run's calls through only in order,
// and the node behind it (a LocalNode, which checks nothing itself) sees
// only those.
func TestStaged_Order(t *testing.T) {
	ctx := context.Background()
	p := invindex.DefaultParams()
	n := Stage(NewLocalNode(0, p.SpaceSize()))
	docs := []invindex.DocChunks{{Doc: 1, Chunks: []uint32{1, 2}, Checks: []uint8{0, 0}}}
	want := func(what string, err, target error) {
		t.Helper()
		if !errors.Is(err, target) {
			t.Fatalf("%s: %v, want %v", what, err, target)
		}
	}
	// No run.
	_, err := n.Chunk(ctx, nil)
	want("Chunk outside a run", err, ErrNoRun)
	want("Deliver outside a run", n.Deliver(ctx, docs, true), ErrNoRun)
	_, err = n.Build(ctx)
	want("Build outside a run", err, ErrNoRun)
	_, err = n.Count(ctx, []invindex.DocID{1})
	want("Count outside a run", err, ErrNoRun)
	want("Commit outside a run", n.Commit(ctx, 1), ErrNoRun)
	want("Abort outside a run", n.Abort(ctx), nil)

	// Begun.
	if err := n.Begin(ctx, RunSpec{Run: 1, Params: p, Full: true}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Chunk(ctx, []Text{{Doc: 1, Text: "a b c d e f g h"}}); err != nil {
		t.Fatal(err)
	}
	want("Deliver after Begin", n.Deliver(ctx, docs, true), nil)
	_, err = n.Count(ctx, []invindex.DocID{1})
	want("Count before Build", err, ErrOrder)
	want("Commit before Build", n.Commit(ctx, 1), ErrOrder)

	// Built.
	if _, err := n.Build(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = n.Build(ctx)
	want("a second Build", err, ErrOrder)
	want("Deliver with index after Build", n.Deliver(ctx, docs, true), ErrOrder)
	want("Deliver for counting after Build", n.Deliver(ctx, docs, false), nil)
	if _, err := n.Count(ctx, []invindex.DocID{1}); err != nil {
		t.Fatal(err)
	}
	// Count released document 1's chunk list: a second count needs it
	// delivered again.
	if _, err := n.Count(ctx, []invindex.DocID{1}); err == nil || !strings.Contains(err.Error(), "counted already") {
		t.Fatalf("a second Count of a document: %v, want an error saying it was counted already", err)
	}
	want("Deliver again for counting", n.Deliver(ctx, docs, false), nil)
	if _, err := n.Count(ctx, []invindex.DocID{1}); err != nil {
		t.Fatal(err)
	}
	if err := n.Commit(ctx, 1); err != nil {
		t.Fatal(err)
	}
	want("Count after Commit", func() error { _, err := n.Count(ctx, []invindex.DocID{1}); return err }(), ErrNoRun)
	if st, gen := n.Snapshot(); gen != 1 || st.Postings() != 2 {
		t.Fatalf("committed generation %d with %d postings, want 1 with 2", gen, st.Postings())
	}

	// A failed Begin (stale) admits only Abort, Begin and Install.
	err = n.Begin(ctx, RunSpec{Run: 3, Base: 2, Params: p}, nil)
	want("Begin on another generation", err, ErrStale)
	want("Deliver after a failed Begin", n.Deliver(ctx, docs, false), ErrOrder)
	st, _ := n.Snapshot()
	if err := n.Install(st, 2); err != nil {
		t.Fatal(err)
	}
	if err := n.Begin(ctx, RunSpec{Run: 3, Base: 2, Params: p}, nil); err != nil {
		t.Fatal(err)
	}
	// Begin replaces a run in progress; Abort ends it.
	if err := n.Begin(ctx, RunSpec{Run: 4, Base: 2, Params: p}, nil); err != nil {
		t.Fatal(err)
	}
	want("Abort", n.Abort(ctx), nil)
	want("Deliver after Abort", n.Deliver(ctx, docs, false), ErrNoRun)
}

// blockingNode blocks Chunk until release is closed.
type blockingNode struct {
	Node
	started, release chan struct{}
	aborted          chan struct{}
}

func (b *blockingNode) Chunk(context.Context, []Text) ([]Chunked, error) {
	close(b.started)
	<-b.release
	select {
	case <-b.aborted:
		return nil, errors.New("aborted during a Chunk")
	default:
	}
	return nil, nil
}

func (b *blockingNode) Abort(ctx context.Context) error {
	close(b.aborted)
	return b.Node.Abort(ctx)
}

// TestStaged_AbortWaitsForCalls: Abort never runs while a Chunk, Deliver
// or Count of the run is in progress, so a node needs no check of its own
// that its run is still there.
func TestStaged_AbortWaitsForCalls(t *testing.T) {
	ctx := context.Background()
	p := invindex.DefaultParams()
	b := &blockingNode{Node: NewLocalNode(0, p.SpaceSize()), started: make(chan struct{}), release: make(chan struct{}), aborted: make(chan struct{})}
	n := Stage(b)
	if err := n.Begin(ctx, RunSpec{Run: 1, Params: p, Full: true}, nil); err != nil {
		t.Fatal(err)
	}
	chunked := make(chan error)
	go func() {
		_, err := n.Chunk(ctx, nil)
		chunked <- err
	}()
	<-b.started
	aborted := make(chan error)
	go func() { aborted <- n.Abort(ctx) }()
	select {
	case <-aborted:
		t.Fatal("Abort ran during a Chunk")
	case <-time.After(50 * time.Millisecond):
	}
	close(b.release)
	if err := <-chunked; err != nil {
		t.Fatal(err)
	}
	if err := <-aborted; err != nil {
		t.Fatal(err)
	}
}
