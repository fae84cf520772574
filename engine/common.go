package engine

import (
	"context"
	"slices"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/invindex"
	"github.com/plagd/plagd/report"
)

// CommonText is what the committed index counts as common text: the chunks
// found in more documents than the run's df cap (engine.df_cap, auto by
// default: config.AutoDFCap). Faculty declarations, assignment prompts and
// stock phrases are such text. A run counts none of it, so a passage made
// of it is no evidence of copying either: reports suppress its windows
// (Suppress, for passage.Options.Suppress) and show where it lies and in
// how many documents (DF). It is safe for concurrent use and reads the
// generation that was committed when it was made.
type CommonText struct {
	cap    int
	bounds []uint64             // first chunk ID of each node's range
	over   []*invindex.KeySet   // each range's over-cap chunks (cluster.OverSet)
	states []*cluster.NodeState // each range's state when in memory, for exact counts; nil on disk
}

// CommonText returns the committed index's common text, or nil when the
// last run counted every chunk (df_cap -1). Like Query, it loads the index
// if the engine holds none. Membership comes from each range's over-cap set,
// which a master keeps in memory even when its copy of the index is on disk
// (remote nodes); the number of documents is exact where the range's state
// is in memory, and a lower bound (the cap + 1) where it is on disk.
func (e *Engine) CommonText(ctx context.Context) (*CommonText, error) {
	if err := e.loadIndex(ctx); err != nil {
		return nil, err
	}
	lim, err := e.queryLimits(ctx)
	if err != nil || lim.dfCap <= 0 {
		return nil, err
	}
	nodes := e.cur().Nodes()
	ct := &CommonText{cap: lim.dfCap, bounds: make([]uint64, len(nodes)),
		over: make([]*invindex.KeySet, len(nodes)), states: make([]*cluster.NodeState, len(nodes))}
	for i, n := range nodes {
		ct.bounds[i], _ = n.Range()
		ct.over[i] = cluster.OverSet(n, lim.dfCap)
		if _, onDisk := n.(cluster.DiskStater); !onDisk {
			ct.states[i], _ = n.Snapshot()
		}
	}
	return ct, nil
}

// Cap is the document frequency above which a chunk is common.
func (c *CommonText) Cap() int { return c.cap }

// DF is the number of live documents holding the chunk of key (a window
// key, invindex.Tokenizer.WindowKeys) when it is common text, 0 otherwise;
// exact is false when the count is only known to exceed the cap (Cap()+1 is
// returned then).
func (c *CommonText) DF(key uint64) (docs int, exact bool) { return c.chunkDF(invindex.KeyChunk(key)) }

// chunkDF is DF of a chunk ID.
func (c *CommonText) chunkDF(chunk uint32) (int, bool) {
	i, over := c.rangeOver(chunk)
	if !over {
		return 0, true
	}
	if c.states[i] == nil {
		return c.cap + 1, false
	}
	return c.states[i].DF(chunk), true
}

// rangeOver finds the range holding chunk and whether the chunk is over
// the cap there: membership only, a binary search and a set lookup. The
// exact count (NodeState.DF) is dearer: after an incremental run it walks
// the chunk's postings to skip removed documents.
func (c *CommonText) rangeOver(chunk uint32) (int, bool) {
	i, found := slices.BinarySearch(c.bounds, uint64(chunk))
	if !found {
		i--
	}
	return i, i >= 0 && c.over[i].Has(chunk)
}

// Suppress reports whether the window of key is common text: the predicate
// of passage.Options.Suppress. A nil CommonText suppresses nothing.
func (c *CommonText) Suppress(key uint64) bool {
	if c == nil {
		return false
	}
	_, over := c.rangeOver(invindex.KeyChunk(key))
	return over
}

// member is DF without the count: Cap()+1 (not exact) for common text, 0
// otherwise. What a report leaves out depends on membership only, so the
// similarity indexes of a run use it (applyMembership).
func (c *CommonText) member(key uint64) (int, bool) {
	if _, over := c.rangeOver(invindex.KeyChunk(key)); over {
		return c.cap + 1, false
	}
	return 0, true
}

// applyMembership is Apply for a figure that needs no counts (report.Index):
// the report's common ranges carry Cap()+1 instead of the exact number of
// documents, which costs a walk of the chunk's postings on a state with
// removed documents (a tenfold slower similarity-index step after an
// incremental run, measured at 20k documents).
func (c *CommonText) applyMembership(opt *report.Options) {
	if c == nil {
		return
	}
	c.Apply(opt)
	opt.Common = c.member
}

// Apply makes opt show c: Report.Common lists the document's common text,
// and unless opt.CountCommon is set (the teacher's "count common text")
// its windows seed no passage and it is left out of the figures, as the
// similarities leave it out. A nil c leaves opt as it is.
func (c *CommonText) Apply(opt *report.Options) {
	if c == nil {
		return
	}
	opt.Common = c.DF
	if opt.CountCommon {
		opt.Exclusions.Common = false
	} else {
		opt.Align.Suppress = c.Suppress
	}
}

// uncommon returns the chunks (and their fingerprints) that are not common
// text, in new slices.
func (c *CommonText) uncommon(chunks []uint32, checks []uint8) ([]uint32, []uint8) {
	return filterChunks(chunks, checks, func(ch uint32, _ uint8) bool { df, _ := c.chunkDF(ch); return df > 0 })
}
