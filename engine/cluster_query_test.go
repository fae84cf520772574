package engine

import (
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/invindex"
)

// queryTexts returns the texts of the archive plus texts that are not in it
// (halves of two documents joined), in a fixed order.
func queryTexts(t testing.TB, ctx context.Context, e *Engine) []string {
	t.Helper()
	rows, err := e.pool.Query(ctx, `select t.body from document_texts t order by t.doc_id`)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for rows.Next() {
		var body string
		if err := rows.Scan(&body); err != nil {
			t.Fatal(err)
		}
		texts = append(texts, body)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	n := len(texts)
	for i := 0; i+1 < n; i += 2 {
		a, b := texts[i], texts[i+1]
		texts = append(texts, a[:len(a)/2]+" "+b[len(b)/2:])
	}
	return texts
}

// mirroredNodes are the engine's nodes that pair a remote with the master's copy.
func mirroredNodes(e *Engine) []*cluster.Mirrored {
	var out []*cluster.Mirrored
	for _, n := range e.cur().Nodes() {
		if m, ok := n.(*cluster.Mirrored); ok {
			out = append(out, m)
		}
	}
	return out
}

// queryCounts sums Mirrored.Queries over the engine's nodes.
func queryCounts(e *Engine) (remote, mirror int) {
	for _, m := range mirroredNodes(e) {
		r, c := m.Queries()
		remote += r
		mirror += c
	}
	return remote, mirror
}

// TestCluster_QueryOnNodes: "check a file" queries of a master with remote
// nodes are counted on the nodes (Query RPC, partial counts summed by the
// master), and equal, match for match, the queries of an in-process engine
// over the same committed index (its data directory), with and without a df
// cap, for several tops, after incremental runs; with a node down, the
// master's copy answers for it, still equal.
func TestCluster_QueryOnNodes(t *testing.T) {
	for _, dfCap := range []int{-1, 3} {
		t.Run("df_cap="+strconv.Itoa(dfCap), func(t *testing.T) {
			seed := enginetest.Seed(t)
			url := pgtest.NewDB(t)
			pool := pgtest.Pool(t, url)
			servers := []*nodeServer{startNodeServer(t, "127.0.0.1:0"), startNodeServer(t, "127.0.0.1:0"), startNodeServer(t, "127.0.0.1:0")}
			cfg := clusterConfig(t, url, []string{servers[0].addr, servers[1].addr, servers[2].addr})
			cfg.Engine.DFCap = dfCap
			e := NewEngine(cfg, pool, enginetest.Logger(t))
			defer e.Close()
			m := &enginetest.Mutator{T: t, Pool: pool, C: enginetest.NewCorpus(seed), Rng: rand.New(rand.NewPCG(seed, 23))}
			for i := 0; i < 25; i++ {
				m.Step()
			}
			mustRun(t, e, false)
			for run := 0; run < 3; run++ {
				for i := 0; i < 5; i++ {
					m.Step()
				}
				mustRun(t, e, false)
			}
			if len(mirroredNodes(e)) != 3 {
				t.Fatalf("%d mirrored nodes, want 3", len(mirroredNodes(e)))
			}

			// The reference: an in-process engine (2 local nodes, other ranges)
			// loading the same committed index from the data directory.
			lcfg := cfg
			lcfg.Cluster.Nodes = nil
			lcfg.Engine.Nodes = 2
			local := NewEngine(lcfg, pool, enginetest.Logger(t))
			defer local.Close()

			ctx := context.Background()
			texts := queryTexts(t, ctx, e)
			tok := invindex.NewTokenizer(e.params()) // as the committed index was chunked
			compare := func(when string) int {
				t.Helper()
				nonEmpty := 0
				for i, text := range texts {
					_, chunks, checks := tok.DocChunks(text)
					for _, top := range []int{0, 3, 1000} {
						got, err := e.Query(ctx, chunks, checks, top)
						if err != nil {
							t.Fatalf("%s: cluster query %d: %v", when, i, err)
						}
						want, err := local.Query(ctx, chunks, checks, top)
						if err != nil {
							t.Fatalf("%s: local query %d: %v", when, i, err)
						}
						if !slices.Equal(got, want) {
							t.Fatalf("%s: query %d (top %d): cluster %v, in-process %v", when, i, top, got, want)
						}
						if len(got) > 0 {
							nonEmpty++
						}
					}
				}
				return nonEmpty
			}
			if n := compare("all nodes up"); n == 0 {
				t.Fatal("no query found anything: the test proves nothing")
			}
			r, c := queryCounts(e)
			if r == 0 || c != 0 {
				t.Fatalf("queries answered by the nodes %d times, by the master's copy %d times; want only the nodes", r, c)
			}

			// A node down: the master's copy answers for it, same results.
			servers[1].srv.Stop()
			compare("one node down")
			r2, c2 := queryCounts(e)
			if c2 == 0 || r2 == r {
				t.Fatalf("with a node down: nodes answered %d more, the master's copy %d; want both", r2-r, c2)
			}
		})
	}
}

// Query forwards to the node (cluster.Querier); it is not a run call and
// does not count towards failAt.
func (f *faultyNode) Query(ctx context.Context, q cluster.Query) ([]invindex.Pair, error) {
	return f.Node.(cluster.Querier).Query(ctx, q)
}
