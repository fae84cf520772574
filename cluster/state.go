package cluster

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/plagd/plagd/invindex"
)

// compactRatio bounds the delta: once the postings a node holds outside its
// base slice (new in the delta, or dead under tombstones) reach 1/compactRatio
// of the base, the next run merges them into a new base. Until then a run
// costs what its change costs, not what the archive costs; the merge is
// amortised over the runs that filled the delta.
var compactRatio = 8 // a variable so that tests can force either path

// NodeState is a node's committed index for its range: a base slice, built
// by a full run or a compaction in generation BaseGen, and the delta since
// (tombstoned documents whose base postings are dead, and the chunk lists of
// documents indexed after the base). Live index = (Base minus Tombs) + Docs.
type NodeState struct {
	Base    *invindex.Slice
	BaseGen int64
	Delta   invindex.Delta // Delta.Base == BaseGen; Delta.BaseDocs estimates dead postings

	delta *invindex.Slice  // Delta.Docs as a slice, for counting
	tombs *invindex.DocSet // Delta.Tombs as a set

	// over is the over-cap set of the last df cap asked (see Over);
	// overMu serialises its derivation.
	over   atomic.Pointer[overSet]
	overMu sync.Mutex
}

// NewNodeState derives the counting structures of a state.
func NewNodeState(base *invindex.Slice, baseGen int64, delta invindex.Delta) (*NodeState, error) {
	if delta.Base != baseGen {
		return nil, fmt.Errorf("delta applies to base generation %d, base is %d", delta.Base, baseGen)
	}
	st := &NodeState{Base: base, BaseGen: baseGen, Delta: delta}
	st.delta = invindex.BuildSlice(base.Lo(), base.Hi(), delta.Docs)
	st.tombs = docSet(delta.Tombs)
	return st, nil
}

func emptyState(lo, hi uint64) *NodeState {
	st, _ := NewNodeState(invindex.NewSlice(lo, hi), 0, invindex.Delta{})
	return st
}

func docSet(ids []invindex.DocID) *invindex.DocSet {
	n := 0
	for _, d := range ids {
		n = max(n, int(d)+1)
	}
	s := invindex.NewDocSet(n)
	for _, d := range ids {
		s.Add(d)
	}
	return s
}

// Postings is the number of live postings (approximately: dead base postings
// are estimated from the average document).
func (st *NodeState) Postings() int {
	return st.Base.Postings() + st.delta.Postings() - st.deadPostings()
}

// Bytes is the memory held by the state's arrays.
func (st *NodeState) Bytes() int { return st.Base.Bytes() + st.delta.Bytes() + 5*st.Delta.Postings() }

func (st *NodeState) deadPostings() int {
	if st.Delta.BaseDocs <= 0 {
		return 0
	}
	return min(st.Base.Postings(), len(st.Delta.Tombs)*st.Base.Postings()/st.Delta.BaseDocs)
}

// next returns the state after a run that removes the documents in removed
// and indexes added (whose chunk lists replace any earlier ones).
func (st *NodeState) next(gen int64, removed *invindex.DocSet, removedIDs []invindex.DocID, added []invindex.DocChunks) *NodeState {
	docs := make([]invindex.DocChunks, 0, len(st.Delta.Docs)+len(added))
	for _, d := range st.Delta.Docs {
		if !removed.Has(d.Doc) {
			docs = append(docs, d)
		}
	}
	docs = append(docs, added...)
	slices.SortFunc(docs, func(a, b invindex.DocChunks) int { return int(a.Doc) - int(b.Doc) })
	tombs := slices.Concat(st.Delta.Tombs, removedIDs)
	slices.Sort(tombs)
	tombs = slices.Compact(tombs)
	nx, _ := NewNodeState(st.Base, st.BaseGen, invindex.Delta{Base: st.BaseGen, BaseDocs: st.Delta.BaseDocs, Tombs: tombs, Docs: docs})
	if (nx.Delta.Postings()+nx.deadPostings())*compactRatio >= max(nx.Base.Postings(), 1) {
		return nx.compact(gen)
	}
	return nx
}

// advance is next for a run with df cap dfCap: with a cap it also hands
// the over-cap set on to the new state and returns the flipped documents
// (followOver), whether the delta is kept or compacted.
func (st *NodeState) advance(gen int64, removed *invindex.DocSet, removedIDs []invindex.DocID, added []invindex.DocChunks, dfCap int) (*NodeState, []invindex.DocID) {
	prev := st.Over(dfCap)
	nx := st.next(gen, removed, removedIDs, added)
	if dfCap <= 0 {
		return nx, nil
	}
	return nx, nx.followOver(prev, added, dfCap)
}

// compact merges the delta into a new base built in generation gen.
func (st *NodeState) compact(gen int64) *NodeState {
	base, _ := st.Base.Update(st.tombs, st.Delta.Docs, 0)
	live := st.Delta.BaseDocs - len(st.Delta.Tombs) + len(st.Delta.Docs)
	nx, _ := NewNodeState(base, gen, invindex.Delta{Base: gen, BaseDocs: max(live, 0)})
	return nx
}

// SetCompactRatio sets the compaction ratio of this process's nodes and
// disk copies and returns the previous one: a test hook (a high ratio
// compacts at every run with a change; the default is 8).
func SetCompactRatio(r int) int {
	old := compactRatio
	compactRatio = r
	return old
}
