package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rs/zerolog"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/cluster/clustertest"
	"github.com/plagd/plagd/internal/testseed"
	"github.com/plagd/plagd/invindex"
)

func seed(t *testing.T) uint64 { t.Helper(); return testseed.Seed(t) }

// TestMaster_TopologyAndIncremental drives the same random history through
// masters with different node counts. After every run each must hold the
// reference table; all must agree row for row (the design's invariant: incremental
// equals full, same result for any topology).
func TestMaster_TopologyAndIncremental(t *testing.T) {
	for _, tc := range []struct{ dfCap, ratio int }{{0, 8}, {0, 1 << 30}, {0, 1}, {4, 8}} {
		dfCap := tc.dfCap
		t.Run(fmt.Sprintf("dfcap=%d/compact=%d", tc.dfCap, tc.ratio), func(t *testing.T) {
			defer cluster.SetCompactRatio(cluster.SetCompactRatio(tc.ratio)) // 1<<30: deltas only; 1: compact every run
			s := seed(t)
			rng := rand.New(rand.NewPCG(s, 1))
			gen := &clustertest.TextGen{Rng: rand.New(rand.NewPCG(s, 2))}
			base := cluster.Plan{Params: invindex.Params{WindowWords: 3, ChunkBits: 20}, MinShared: 2, TopK: 3, BatchSize: 5, DFCap: dfCap}
			ks := []int{1, 2, 3, 4, 7}
			masters := make([]*cluster.Master, len(ks))
			archives := make([]*clustertest.Archive, len(ks))
			for i, k := range ks {
				masters[i] = cluster.NewMaster(cluster.NewLocalNodes(base.Params, k), zerolog.Nop())
				archives[i] = clustertest.NewArchive(base.TopK)
			}
			h := clustertest.NewHistory(rng, gen)
			for run := 1; run <= 30; run++ {
				changes := h.Next() // the same random changes for every archive
				full := run == 1 || rng.IntN(10) == 0
				want := clustertest.Reference(h.Live, base)
				var first []cluster.Row
				for i, m := range masters {
					a := archives[i]
					a.Apply(changes)
					if err := a.Run(context.Background(), m, int64(run), full, base); err != nil {
						t.Fatalf("K=%d run %d: %v", ks[i], run, err)
					}
					got := a.Table()
					if !slices.Equal(got, want) {
						t.Fatalf("K=%d run %d (full=%v): table differs from the reference\n got %v\nwant %v", ks[i], run, full, got, want)
					}
					if i == 0 {
						first = got
					} else if !slices.Equal(got, first) {
						t.Fatalf("K=%d differs from K=1 at run %d", ks[i], run)
					}
				}
			}
		})
	}
}

// TestMaster_AbortKeepsCommitted: a run that is aborted leaves the committed
// generation and document table as they were, and the next run is exact.
func TestMaster_AbortKeepsCommitted(t *testing.T) {
	s := seed(t)
	gen := &clustertest.TextGen{Rng: rand.New(rand.NewPCG(s, 3))}
	base := cluster.Plan{Params: invindex.Params{WindowWords: 3, ChunkBits: 24}, MinShared: 1, TopK: 5, BatchSize: 3}
	m := cluster.NewMaster(cluster.NewLocalNodes(base.Params, 2), zerolog.Nop())
	a := clustertest.NewArchive(base.TopK)
	for id := int64(1); id <= 12; id++ {
		a.Live[id] = gen.Text()
		a.Changed[id] = true
	}
	p := a.Plan(true, base)
	p.Run = 1
	out, err := m.Run(context.Background(), p, a)
	if err != nil {
		t.Fatal(err)
	}
	a.Commit(true, out)
	m.Commit(context.Background(), 1)
	docs := m.Docs().Len()

	a.Live[3] = gen.Text()
	a.Changed[3] = true
	a.HardDelete(5)
	p = a.Plan(false, base)
	p.Run, p.Full = 2, false
	if _, err := m.Run(context.Background(), p, a); err != nil {
		t.Fatal(err)
	}
	m.Abort(context.Background()) // e.g. the PostgreSQL commit failed
	if m.Generation() != 1 || m.Docs().Len() != docs {
		t.Fatalf("after abort: generation %d with %d docs, want 1 with %d", m.Generation(), m.Docs().Len(), docs)
	}
	p.Run = 3 // the next run sees the same pending changes
	out, err = m.Run(context.Background(), p, a)
	if err != nil {
		t.Fatal(err)
	}
	a.Commit(false, out)
	m.Commit(context.Background(), 3)
	if got, want := a.Table(), clustertest.Reference(a.Live, base); !slices.Equal(got, want) {
		t.Fatalf("after abort and rerun: table differs from the reference")
	}
}

// TestMaster_StaleNodeRefused: a node that holds another generation refuses
// to build an incremental run on it.
func TestMaster_StaleNodeRefused(t *testing.T) {
	n := cluster.NewLocalNode(0, 1<<20)
	err := n.Begin(context.Background(), cluster.RunSpec{Run: 5, Base: 4, Params: invindex.Params{WindowWords: 3, ChunkBits: 20}}, nil)
	if !errors.Is(err, cluster.ErrStale) {
		t.Fatalf("Begin on a stale node: %v, want ErrStale", err)
	}
}
