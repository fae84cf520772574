package cluster

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rs/zerolog"

	"github.com/plagd/plagd/invindex"
)

// onlyQuerier hides a node's CountingQuerier: it answers partial lists.
type onlyQuerier struct {
	Node
	l *LocalNode
}

func (o onlyQuerier) Query(ctx context.Context, q Query) ([]invindex.Pair, error) {
	return o.l.Query(ctx, q)
}

// plainNode is a Node with no query method: the master counts its snapshot.
type plainNode struct{ Node }

// TestMaster_QueryThroughInterfaces: Master.Query gives the same counts
// whether its nodes count into the caller's counter (LocalNode), answer
// partial lists (a Querier, as a remote node does) or answer neither (the
// master counts their committed state), for any number of nodes.
func TestMaster_QueryThroughInterfaces(t *testing.T) {
	s := seed(t)
	gen := &textGen{rng: rand.New(rand.NewPCG(s, 4))}
	base := Plan{Params: invindex.Params{WindowWords: 3, ChunkBits: 20}, MinShared: 1, TopK: 5, BatchSize: 4}
	var want []invindex.Pair
	query := gen.text()
	_, chunks, checks := invindex.NewTokenizer(base.Params).DocChunks(query)
	texts := map[int64]string{}
	for id := int64(1); id <= 20; id++ {
		texts[id] = gen.text()
	}
	for _, k := range []int{1, 3} {
		for kind, wrap := range []func(*LocalNode) Node{
			func(n *LocalNode) Node { return n },
			func(n *LocalNode) Node { return onlyQuerier{n, n} },
			func(n *LocalNode) Node { return plainNode{n} },
		} {
			locals := NewLocalNodes(base.Params, k)
			nodes := make([]Node, k)
			for i, n := range locals {
				nodes[i] = wrap(n.(*LocalNode))
			}
			_, counting := nodes[0].(CountingQuerier)
			_, querier := nodes[0].(Querier)
			if counting != (kind == 0) || querier != (kind < 2) {
				t.Fatalf("node kind %d: CountingQuerier %v, Querier %v", kind, counting, querier)
			}
			m := NewMaster(nodes, zerolog.Nop())
			a := newMemArchive(base.TopK)
			for id, t := range texts {
				a.live[id], a.changed[id] = t, true
			}
			p := a.plan(true, base)
			p.Run = 1
			a.staged = map[int64]string{}
			if _, err := m.Run(context.Background(), p, a); err != nil {
				t.Fatal(err)
			}
			if err := m.Commit(context.Background(), 1); err != nil {
				t.Fatal(err)
			}
			docs := m.Docs()
			c := invindex.NewCounter(docs.MaxID())
			q := Query{Gen: AnyGen, Self: docs.MaxID(), Chunks: chunks, Checks: checks}
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
