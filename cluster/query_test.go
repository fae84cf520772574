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
	"github.com/plagd/plagd/internal/testseed"
	"github.com/plagd/plagd/invindex"
)

// onlyQuerier hides a node's CountingQuerier: it answers partial lists.
type onlyQuerier struct {
	cluster.Node
	l *cluster.LocalNode
}

func (o onlyQuerier) Query(ctx context.Context, q cluster.Query) ([]invindex.Pair, error) {
	return o.l.Query(ctx, q)
}

// plainNode is a Node with no query method: the master counts its snapshot.
type plainNode struct{ cluster.Node }

// TestMaster_QueryThroughInterfaces: Master.Query gives the same counts
// whether its nodes count into the caller's counter (LocalNode), answer
// partial lists (a Querier, as a remote node does) or answer neither (the
// master counts their committed state), for any number of nodes.
func TestMaster_QueryThroughInterfaces(t *testing.T) {
	s := testseed.Seed(t)
	gen := &clustertest.TextGen{Rng: rand.New(rand.NewPCG(s, 4))}
	base := cluster.Plan{Params: invindex.Params{WindowWords: 3, ChunkBits: 20}, MinShared: 1, TopK: 5, BatchSize: 4}
	var want []invindex.Pair
	query := gen.Text()
	texts := map[int64]string{}
	for id := int64(1); id <= 20; id++ {
		texts[id] = gen.Text()
	}
	// The query quotes a few words of one text, so that it shares a chunk
	// with the archive whatever the seed (a random query of five words
	// sometimes shares none: seed 1795692310943177788).
	quoted := strings.Fields(texts[1])
	query += " " + strings.Join(quoted[:min(len(quoted), 8)], " ")
	_, chunks, checks := invindex.NewTokenizer(base.Params).DocChunks(query)
	for _, k := range []int{1, 3} {
		for kind, wrap := range []func(*cluster.LocalNode) cluster.Node{
			func(n *cluster.LocalNode) cluster.Node { return n },
			func(n *cluster.LocalNode) cluster.Node { return onlyQuerier{n, n} },
			func(n *cluster.LocalNode) cluster.Node { return plainNode{n} },
		} {
			locals := cluster.NewLocalNodes(base.Params, k)
			nodes := make([]cluster.Node, k)
			for i, n := range locals {
				nodes[i] = wrap(n.(*cluster.LocalNode))
			}
			_, counting := nodes[0].(cluster.CountingQuerier)
			_, querier := nodes[0].(cluster.Querier)
			if counting != (kind == 0) || querier != (kind < 2) {
				t.Fatalf("node kind %d: cluster.CountingQuerier %v, cluster.Querier %v", kind, counting, querier)
			}
			m := cluster.NewMaster(nodes, zerolog.Nop())
			a := clustertest.NewArchive(base.TopK)
			for id, t := range texts {
				a.Live[id], a.Changed[id] = t, true
			}
			if err := a.Run(context.Background(), m, 1, true, base); err != nil {
				t.Fatal(err)
			}
			docs := m.Docs()
			c := invindex.NewCounter(docs.MaxID())
			q := cluster.Query{Gen: cluster.AnyGen, Self: docs.MaxID(), Chunks: chunks, Checks: checks}
			if err := m.Query(context.Background(), q, c); err != nil {
				t.Fatal(err)
			}
			got := c.Drain(nil, 1)
			for i := range got {
				got[i].Other = invindex.DocID(docs.Ext(got[i].Other)) // compare by documents.id across masters
			}
			slices.SortFunc(got, func(x, y invindex.Pair) int { return int(x.Other) - int(y.Other) })
			if len(got) == 0 {
				t.Fatal("the query shares no chunk with the archive")
			}
			if want == nil {
				want = got
			} else if !slices.Equal(got, want) {
				t.Fatalf("K=%d, node kind %d: counts %v, want %v", k, kind, got, want)
			}
		}
	}
}
