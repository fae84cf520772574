package cluster_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/cluster/clustertest"
	"github.com/plagd/plagd/invindex"
)

// TestMirrored_ReloadsStaleAndDivergedNodes: remote nodes (here LocalNodes
// standing for them) that start empty, lose their slice, or hold a wrong
// one are reloaded from the master's copy; a divergence fails the run
// rather than a wrong result; every committed run equals the reference.
func TestMirrored_ReloadsStaleAndDivergedNodes(t *testing.T) {
	s := seed(t)
	gen := &clustertest.TextGen{Rng: rand.New(rand.NewPCG(s, 5))}
	base := cluster.Plan{Params: invindex.Params{WindowWords: 3, ChunkBits: 20}, MinShared: 1, TopK: 4, BatchSize: 3}
	bounds := invindex.SplitRange(base.Params.SpaceSize(), 2)
	remotes := []*cluster.LocalNode{cluster.NewLocalNode(0, 0), cluster.NewLocalNode(0, 0)} // node processes start with no range
	mirrored := make([]*cluster.Mirrored, 2)
	nodes := make([]cluster.Node, 2)
	for i := range nodes {
		mirrored[i] = cluster.NewMirrored(remotes[i], cluster.NewLocalNode(bounds[i], bounds[i+1]), zerolog.Nop())
		nodes[i] = mirrored[i]
	}
	m := cluster.NewMaster(nodes, zerolog.Nop())
	a := clustertest.NewArchive(base.TopK)
	run := int64(0)
	step := func(full bool) error {
		for n := 3; n > 0; n-- {
			id := int64(len(a.Live) + 1)
			if len(a.Live) > 4 && gen.Rng.IntN(2) == 0 {
				id = int64(1 + gen.Rng.IntN(len(a.Live)))
			}
			a.Live[id] = gen.Text()
			a.Changed[id] = true
		}
		run++
		if err := a.Run(context.Background(), m, run, full, base); err != nil {
			return err
		}
		if got, want := a.Table(), clustertest.Reference(a.Live, base); !slices.Equal(got, want) {
			t.Fatalf("run %d: table differs from the reference", run)
		}
		for i, r := range remotes {
			rst, rgen := r.Snapshot()
			mst, mgen := mirrored[i].Snapshot()
			if rgen != mgen || rst.Postings() != mst.Postings() || rst.Base.Lo() != mst.Base.Lo() {
				t.Fatalf("run %d: node %d holds generation %d (%d postings), the master's copy %d (%d)",
					run, i, rgen, rst.Postings(), mgen, mst.Postings())
			}
		}
		return nil
	}
	if err := step(true); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := step(false); err != nil {
			t.Fatal(err)
		}
	}
	if lo, hi := remotes[1].Range(); lo != bounds[1] || hi != bounds[2] {
		t.Fatalf("node 1 has range [%d,%d), want the master's [%d,%d)", lo, hi, bounds[1], bounds[2])
	}
	// Node 1 restarts empty: it is stale, reloaded, and the run is exact.
	reloads := mirrored[1].Reloads()
	remotes[1].Install(cluster.EmptyState(0, 0), 0)
	if err := step(false); err != nil {
		t.Fatal(err)
	}
	if mirrored[1].Reloads() != reloads+1 {
		t.Fatal("the restarted node was not reloaded")
	}
	// Node 0 holds the right generation but a wrong slice: the build
	// disagrees, the run fails naming the divergence; the next is exact.
	_, g := remotes[0].Snapshot()
	remotes[0].Install(cluster.EmptyState(bounds[0], bounds[1]), g)
	err := step(false)
	if err == nil || !strings.Contains(err.Error(), "diverged from the master's copy") {
		t.Fatalf("run on a diverged node: %v", err)
	}
	if err := step(false); err != nil {
		t.Fatal(err)
	}
}
