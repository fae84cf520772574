package cluster

import (
	"context"
	"fmt"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/plagd/plagd/invindex"
)

// Count adds to c the chunks a query document shares with each live
// document of st: the base slice without its tombstoned documents, plus
// the delta. chunks (sorted, distinct, with their fingerprints checks, as
// Tokenizer.DocChunks gives them) should lie in st's range; others are
// ignored. self is a DocID that no document of st holds (a text that is
// not indexed, as for "check this file": invindex.Slice.Count then counts
// it against every posting). Chunks whose live df exceeds dfCap (> 0), the
// state's over-cap set (Over), are not counted, as in a run. Calls for several states accumulate until
// c.Drain. st is immutable once committed, so Count may run concurrently
// with runs and with other Counts (each with its own Counter).
func (st *NodeState) Count(c *invindex.Counter, self invindex.DocID, chunks []uint32, checks []uint8, dfCap int) {
	st.countWith(c, self, chunks, checks, dfCap, &countScratch{})
}

// DF is the live document frequency of chunk in st (postings on its chunk
// ID, whatever their fingerprints): the df the engine's df cap compares.
func (st *NodeState) DF(chunk uint32) int {
	return st.Base.DFSkip(chunk, st.tombs) + st.delta.DF(chunk)
}

// Query is a text that is not in the archive ("check a file now"), to be
// counted against a node's committed state: its chunks (sorted, distinct,
// with their fingerprints, restricted to the node's range), self (a DocID no
// posting holds) and the run's df cap.
type Query struct {
	// Gen is the committed generation the caller expects: a node holding
	// another answers ErrStale. AnyGen (-1) takes whatever is committed.
	Gen    int64
	Self   invindex.DocID
	Chunks []uint32
	Checks []uint8
	DFCap  int
}

// AnyGen as Query.Gen accepts any committed generation.
const AnyGen = -1

// Querier is a node that counts queries against its committed state itself
// (LocalNode, a remote node, a Mirrored node through its remote). A query
// runs outside any run and may overlap one: committed states are immutable.
type Querier interface {
	// Query returns the partial shared-chunk counts of q within the node's
	// range, sorted by document, with no min_shared applied (it applies to
	// the sum over all nodes): what NodeState.Count adds to a Counter.
	Query(ctx context.Context, q Query) ([]invindex.Pair, error)
}

// CountQuery counts q against st, as Querier.Query answers.
func (st *NodeState) CountQuery(q Query) []invindex.Pair {
	c := invindex.NewCounter(0)
	st.Count(c, q.Self, q.Chunks, q.Checks, q.DFCap)
	return c.Drain(nil, 1)
}

// CountingQuerier is a node whose committed state is in this process: it
// adds a query's counts to the caller's Counter directly, with no partial
// list in between (LocalNode). Master.Query counts such nodes one after
// the other into one Counter; other nodes answer partial lists concurrently.
type CountingQuerier interface {
	// QueryInto adds to c what Query would return for q.
	QueryInto(ctx context.Context, c *invindex.Counter, q Query) error
}

// queryNode returns n's partial counts for q: n's own Query when n is a
// Querier (in this process or another), otherwise its committed state's.
func queryNode(ctx context.Context, n Node, q Query) ([]invindex.Pair, error) {
	if qr, ok := n.(Querier); ok {
		return qr.Query(ctx, q)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	st, _ := n.Snapshot()
	return st.CountQuery(q), nil
}

// Query counts q (its chunks over the whole chunk-ID space, sorted, with
// their fingerprints) against the committed index and adds the counts to
// c: every node counts the chunks of its range, a CountingQuerier into c
// directly, any other node (a Querier in another process, say) as partial
// counts, at most 16 concurrently, which c sums. The slices are read where
// they live. Nothing applies min_shared: the caller drains c.
func (m *Master) Query(ctx context.Context, q Query, c *invindex.Counter) error {
	if len(q.Chunks) != len(q.Checks) {
		return fmt.Errorf("query: %d chunks but %d fingerprints", len(q.Chunks), len(q.Checks))
	}
	type partial struct {
		n     Node
		q     Query
		pairs []invindex.Pair
	}
	var others []*partial
	for i, n := range m.raw {
		if i%4 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		lo, hi := n.Range()
		a, _ := slices.BinarySearch(q.Chunks, uint32(lo)) // lo < hi <= 2^32
		b := len(q.Chunks)
		if hi < 1<<32 {
			b, _ = slices.BinarySearch(q.Chunks, uint32(hi))
		}
		nq := q
		nq.Chunks, nq.Checks = q.Chunks[a:b], q.Checks[a:b]
		if cq, ok := n.(CountingQuerier); ok {
			if err := cq.QueryInto(ctx, c, nq); err != nil {
				return fmt.Errorf("query: %w", err)
			}
			continue
		}
		others = append(others, &partial{n: n, q: nq})
	}
	if len(others) == 0 {
		return nil
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(16)
	for _, p := range others {
		g.Go(func() (err error) {
			p.pairs, err = queryNode(gctx, p.n, p.q)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return fmt.Errorf("query: %w", err)
	}
	for _, p := range others {
		c.Add(p.pairs)
	}
	return nil
}
