package engine

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/invindex"
)

// sliceBytes is s as a slice file with a fixed header.
func sliceBytes(t testing.TB, s *invindex.Slice) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := invindex.WriteSlice(&b, invindex.Header{Generation: 1}, s); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// nodeStates are the committed states of the engine's in-process node servers.
func nodeStates(servers []*nodeServer) []*cluster.NodeState {
	out := make([]*cluster.NodeState, len(servers))
	for i, s := range servers {
		out[i], _ = s.node.Node.Snapshot()
	}
	return out
}

// TestCluster_DiskCopy: with remote nodes and df_cap 0 the master's copy
// of the index is on disk (cluster.DiskMirror): after a full run and
// incremental runs it holds in memory only the deltas' postings (an
// in-memory copy holds every node's base and delta); results equal the
// reference; the base files equal the nodes' own bases, also after a
// forced compaction (the master merges from the file, the node in memory);
// a node restarted empty is reloaded from the files and the next run is
// exact; a re-split after a node is lost writes base files equal to an
// in-memory re-split, and is exact; a restarted master loads only deltas.
func TestCluster_DiskCopy(t *testing.T) {
	seed := enginetest.Seed(t)
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	servers := []*nodeServer{startNodeServer(t, "127.0.0.1:0"), startNodeServer(t, "127.0.0.1:0"), startNodeServer(t, "127.0.0.1:0")}
	cfg := clusterConfig(t, url, []string{servers[0].addr, servers[1].addr, servers[2].addr})
	cfg.Engine.DFCap = -1 // every chunk counted: the master's copy is on disk
	e := NewEngine(cfg, pool, enginetest.Logger(t))
	defer e.Close()
	if e.files == nil {
		t.Fatal("remote nodes with df_cap 0: the master's copy should be on disk")
	}
	m := &enginetest.Mutator{T: t, Pool: pool, C: enginetest.NewCorpus(seed), Rng: rand.New(rand.NewPCG(seed, 41))}
	ctx := context.Background()

	// resident checks the master's accounting against the nodes' states and
	// the base files against the nodes' bases.
	resident := func(when string, srv []*nodeServer) {
		t.Helper()
		nodes := mirroredNodes(e)
		if len(nodes) != len(srv) {
			t.Fatalf("%s: %d mirrored nodes, want %d", when, len(nodes), len(srv))
		}
		held, delta, all := 0, 0, 0
		for i, st := range nodeStates(srv) {
			n := nodes[i]
			if n.Disk() == nil || n.Mirror() != nil {
				t.Fatalf("%s: node %d has no disk copy", when, i)
			}
			held += n.ResidentPostings()
			delta += st.Delta.Postings()
			all += st.Base.Postings() + st.Delta.Postings()
			ds, _, _ := n.DiskState()
			if ds.BaseGen != st.BaseGen || ds.BasePostings != st.Base.Postings() || ds.Postings() != st.Postings() {
				t.Fatalf("%s: node %d: disk copy base g%d (%d postings, %d live), node g%d (%d, %d)", when, i,
					ds.BaseGen, ds.BasePostings, ds.Postings(), st.BaseGen, st.Base.Postings(), st.Postings())
			}
			base, err := e.files.ReadBase(ds.Lo, ds.Hi, ds.BaseGen)
			if err != nil {
				t.Fatalf("%s: node %d: %v", when, i, err)
			}
			if !bytes.Equal(sliceBytes(t, base), sliceBytes(t, st.Base)) {
				t.Fatalf("%s: node %d: base file differs from the node's base", when, i)
			}
		}
		if held != delta || held >= all {
			t.Fatalf("%s: the master holds %d postings; want the deltas' %d (an in-memory copy: %d)", when, held, delta, all)
		}
		t.Logf("%s: master holds %d postings in memory, an in-memory copy would hold %d", when, held, all)
	}

	for i := 0; i < 30; i++ {
		m.Step()
	}
	// Thirty random steps can leave the archive empty (seed
	// 1795726299353282616): two documents make sure the nodes hold
	// postings for the accounting to compare.
	m.Add()
	m.Add()
	mustRun(t, e, false)
	checkAgainstReference(t, pool, cfg, "after the full run")
	resident("after the full run", servers)
	// A low ratio keeps deltas (compaction only once a delta reaches its
	// base), so that the copy's bookkeeping is exercised.
	defer cluster.SetCompactRatio(cluster.SetCompactRatio(1))
	maxHeld := 0
	for run := 0; run < 5; run++ {
		for i := 0; i < 3; i++ {
			m.Step()
		}
		m.Add() // never an idle run
		if rep := mustRun(t, e, false); rep.Kind != "incremental" {
			t.Fatalf("run %d: %s (%s)", run, rep.Kind, rep.Reason)
		}
		checkAgainstReference(t, pool, cfg, "after an incremental run")
		resident("after an incremental run", servers)
		for _, n := range mirroredNodes(e) {
			maxHeld = max(maxHeld, n.ResidentPostings())
		}
	}
	if maxHeld == 0 {
		t.Fatal("no delta was ever held: the test proves nothing about deltas")
	}
	if ct, err := e.CommonText(ctx); err != nil || ct != nil {
		t.Fatalf("CommonText with df_cap -1: %v, %v; want nil, nil", ct != nil, err)
	}

	// Forced compaction: every node and every disk copy merges its delta.
	old := cluster.SetCompactRatio(1 << 20) // any change compacts
	for i := 0; i < 3; i++ {
		m.Step()
	}
	m.Add() // a change in every range
	rep := mustRun(t, e, false)
	cluster.SetCompactRatio(old)
	checkAgainstReference(t, pool, cfg, "after a compacting run")
	for i, n := range mirroredNodes(e) {
		if ds, _, _ := n.DiskState(); ds.BaseGen != rep.ID || len(ds.Delta.Docs) > 0 {
			t.Fatalf("node %d: base g%d with %d delta documents after a compacting run %d", i, ds.BaseGen, len(ds.Delta.Docs), rep.ID)
		}
	}
	resident("after a compacting run", servers)

	// A node restarted empty is reloaded from the base files.
	reloads := mirroredNodes(e)[1].Reloads()
	servers[1].node.Node.Install(cluster.EmptyState(0, 0), 0)
	m.Add()
	mustRun(t, e, false)
	if mirroredNodes(e)[1].Reloads() != reloads+1 {
		t.Fatal("the restarted node was not reloaded")
	}
	checkAgainstReference(t, pool, cfg, "after a node restarted empty")
	resident("after a node restarted empty", servers)

	// A node is lost: the index is re-split over two from the files, equal
	// to an in-memory re-split of the same generation.
	e.WaitSaved()
	gen := e.cur().Generation()
	docs, states, err := e.store.Load(gen, e.instance, e.params())
	if err != nil {
		t.Fatal(err)
	}
	ref := cluster.NewMaster(cluster.NewLocalNodes(cfg.Params(), 2), enginetest.Logger(t))
	if err := ref.Install(docs, states, gen); err != nil {
		t.Fatal(err)
	}
	servers[2].srv.Stop()
	if err := e.useNodes(ctx, enginetest.Logger(t)); err != nil {
		t.Fatal(err)
	}
	for i, n := range mirroredNodes(e) {
		ds, _, _ := n.DiskState()
		want, _ := ref.Nodes()[i].Snapshot()
		got, err := e.files.ReadBase(ds.Lo, ds.Hi, ds.BaseGen)
		if err != nil {
			t.Fatal(err)
		}
		if ds.BaseGen != gen || !bytes.Equal(sliceBytes(t, got), sliceBytes(t, want.Base)) {
			t.Fatalf("re-split node %d: base file differs from an in-memory re-split", i)
		}
		if n.ResidentPostings() != 0 {
			t.Fatalf("re-split node %d holds %d postings in memory", i, n.ResidentPostings())
		}
	}
	m.Add()
	if rep := mustRun(t, e, false); rep.Nodes != 2 || rep.Kind != "incremental" {
		t.Fatalf("after losing a node: %+v", rep)
	}
	checkAgainstReference(t, pool, cfg, "after a re-split")
	resident("after a re-split", servers[:2])

	// A restarted master loads the deltas only, and stays exact.
	e.WaitSaved()
	e2 := NewEngine(cfg, pool, enginetest.Logger(t))
	defer e2.Close()
	m.Add()
	if rep := mustRun(t, e2, false); rep.Kind != "incremental" {
		t.Fatalf("after a master restart: %s (%s)", rep.Kind, rep.Reason)
	}
	checkAgainstReference(t, pool, cfg, "after a master restart")
	e = e2
	resident("after a master restart", servers[:2])
}
