package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/invindex"
	"github.com/plagd/plagd/store"
)

// ErrNoIndex is returned by Engine.Query when there is no index to query:
// no run has committed yet, or the committed generation's files are not in
// the data directory (a different host, or a lost directory). A run
// (plagd run, or the daemon's next run) rebuilds them.
var ErrNoIndex = errors.New("no usable index")

// QueryMatch is an indexed document sharing chunks with a query text.
type QueryMatch struct {
	ID     int64 // documents.id
	Shared int   // chunks shared with the query text
	Chunks int   // the document's own chunk count, the denominator of its similarity
}

// Query counts the chunks (sorted, distinct, with their fingerprints, as
// invindex.Tokenizer.DocChunks returns them) of a text that is not in the
// archive against the committed index, as a run counts a document, and
// returns the top documents: at least engine.min_shared shared chunks,
// most shared first, ties by documents.id, at most top of them (top <= 0:
// engine.top_k). Chunks over engine.df_cap are not counted, as in a run;
// the cap compares the df of the archive alone, without the query text.
//
// The master counts through its nodes' interfaces (cluster.Master.Query):
// nodes in this process count into one counter, the others (with remote
// nodes, the Query RPC) count their range and the master sums the partial
// counts; the master's copy of a range answers only for a node that cannot.
//
// Nothing is stored. The engine loads the committed index from the data
// directory if it holds none yet (ErrNoIndex when that fails); an engine
// that holds an index queries the generation it holds, which is what the
// daemon last committed. Loading must not overlap a Run; querying a held
// index may, since committed node states are immutable.
func (e *Engine) Query(ctx context.Context, chunks []uint32, checks []uint8, top int) ([]QueryMatch, error) {
	if len(chunks) != len(checks) {
		return nil, fmt.Errorf("query: %d chunks but %d fingerprints", len(chunks), len(checks))
	}
	if err := e.loadIndex(ctx); err != nil {
		return nil, err
	}
	if top <= 0 {
		top = e.cfg.Engine.TopK
	}
	lim, err := e.queryLimits(ctx)
	if err != nil {
		return nil, err
	}
	docs := e.cur().Docs()
	// A DocID no posting holds: the query is counted against every posting.
	self := docs.MaxID()
	c := invindex.NewCounter(docs.MaxID())
	if err := e.cur().Query(ctx, cluster.Query{Gen: cluster.AnyGen, Self: self, Chunks: chunks, Checks: checks,
		DFCap: lim.dfCap}, c); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	pairs := c.Drain(nil, uint32(max(lim.minShared, 1)))
	matches := make([]invindex.Match, len(pairs))
	for i, p := range pairs {
		matches[i] = invindex.Match{Other: docs.Ext(p.Other), Shared: p.Shared}
	}
	matches = invindex.TopK(matches, top)
	out := make([]QueryMatch, len(matches))
	for i, m := range matches {
		d, _ := docs.Lookup(m.Other)
		out[i] = QueryMatch{ID: m.Other, Shared: int(m.Shared), Chunks: int(docs.Chunks(d))}
	}
	return out, nil
}

// loadIndex makes the engine hold an index, loading the committed
// generation from the data directory if it holds none.
func (e *Engine) loadIndex(ctx context.Context) error {
	if e.cur().Generation() != 0 {
		return nil
	}
	gen, err := store.LastCommittedRun(ctx, e.pool)
	if err != nil {
		return err
	}
	if gen == 0 {
		return fmt.Errorf("%w: no run has been committed yet (plagd run builds the index)", ErrNoIndex)
	}
	if e.instance == "" {
		id, err := databaseIdentity(ctx, e.pool)
		if err != nil {
			return err
		}
		e.instance = id
	}
	if reason := e.ensureIndex(ctx, gen); reason != "" {
		return fmt.Errorf("%w in data directory %s: %s (the daemon's data directory holds it; otherwise plagd run rebuilds it)",
			ErrNoIndex, e.cfg.DataDir, reason)
	}
	return nil
}
