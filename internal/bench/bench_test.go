package bench

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/plagd/plagd/config"
)

// TestRunSkipDB runs the CPU measurements on a tiny corpus: every figure
// must be there and positive, and the table printed.
func TestRunSkipDB(t *testing.T) {
	var out bytes.Buffer
	rep, err := Run(context.Background(), Options{Docs: 300, WordsPerDoc: 200, Seed: 9, SkipDB: true, Nodes: 3,
		Config: config.Default()}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Chunk.Postings == 0 || rep.Chunk.SingleMBps <= 0 || rep.Chunk.ParallelMBps <= 0 {
		t.Fatalf("chunking figures missing: %+v", rep.Chunk)
	}
	if len(rep.Build) < 2 || rep.Build[len(rep.Build)-1].Nodes != 3 {
		t.Fatalf("build figures: %+v", rep.Build)
	}
	for _, b := range rep.Build {
		if b.Postings != rep.Chunk.Postings || b.MPostingsPS <= 0 || b.Mem.PeakRSS == 0 {
			t.Fatalf("build with %d nodes: %+v", b.Nodes, b)
		}
	}
	if !strings.Contains(out.String(), "seed 9") || !strings.Contains(out.String(), "== summary") {
		t.Fatalf("output lacks the seed or the summary:\n%s", out.String())
	}
}

func TestPickDistinct(t *testing.T) {
	a, b := pickDistinct(1000, 300, 5), pickDistinct(1000, 300, 5)
	seen := map[int]bool{}
	for i, x := range a {
		if x != b[i] || x < 0 || x >= 1000 || seen[x] {
			t.Fatalf("pickDistinct not deterministic, distinct and in range at %d", i)
		}
		seen[x] = true
	}
}
