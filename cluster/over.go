package cluster

import (
	"slices"

	"github.com/plagd/plagd/invindex"
)

// overSet is a state's over-cap set for one df cap: the chunk keys whose
// live df (base minus tombstones, plus delta) exceeds cap.
type overSet struct {
	cap  int
	keys *invindex.KeySet
}

// Over is the set of chunk keys of st whose live df exceeds dfCap (nil for
// dfCap <= 0): the chunks a capped count leaves out. It is derived, never
// stored: handed on by the run that built st (followOver), or, for a state
// read from files, installed or counted with another cap, computed here at
// first use (deriveOver) and kept. Safe for concurrent use.
func (st *NodeState) Over(dfCap int) *invindex.KeySet {
	if dfCap <= 0 {
		return nil
	}
	if o := st.over.Load(); o != nil && o.cap == dfCap {
		return o.keys
	}
	st.overMu.Lock()
	defer st.overMu.Unlock()
	if o := st.over.Load(); o != nil && o.cap == dfCap {
		return o.keys
	}
	keys := invindex.NewKeySet(st.deriveOver(dfCap))
	st.over.Store(&overSet{cap: dfCap, keys: keys})
	return keys
}

// OverSet is the over-cap set for dfCap of n's committed state (nil for
// dfCap <= 0). A master's copy on disk answers from the set its last
// capped run left in memory; otherwise (or for another cap) the state is
// read, its set derived, and kept with the disk state.
func OverSet(n Node, dfCap int) *invindex.KeySet {
	if dfCap <= 0 {
		return nil
	}
	var ds *DiskState
	if d, ok := n.(DiskStater); ok {
		ds, _, _ = d.DiskState()
	}
	if ds != nil {
		if o := ds.over.Load(); o != nil && o.cap == dfCap {
			return o.keys
		}
	}
	st, _ := n.Snapshot()
	keys := st.Over(dfCap)
	if ds != nil {
		ds.over.Store(&overSet{cap: dfCap, keys: keys})
	}
	return keys
}

// deriveOver computes the over-cap set from scratch, ascending. A key over
// the cap has more than dfCap postings in the base (dead ones included) or
// postings in the delta; only those keys' live df is computed. It costs a
// pass over the base's keys plus the delta's keys: a load or an install,
// never a run of an unchanged cap.
func (st *NodeState) deriveOver(dfCap int) []uint32 {
	cand := st.Base.KeysOver(nil, dfCap)
	cand = mergeKeys(cand, st.delta.KeysOver(nil, 0))
	return st.keepOver(cand, dfCap)
}

// keepOver keeps the keys of cand (ascending) whose live df exceeds dfCap.
func (st *NodeState) keepOver(cand []uint32, dfCap int) []uint32 {
	out := cand[:0]
	for _, k := range cand {
		if st.isOver(k, dfCap) {
			out = append(out, k)
		}
	}
	return out
}

// isOver reports whether k's live df exceeds dfCap. Dead postings can only
// lower the df, so a key whose postings, dead ones included, are at most
// dfCap is settled without walking its list for tombstones.
func (st *NodeState) isOver(k uint32, dfCap int) bool {
	d := st.delta.DF(k)
	if st.Base.DF(k)+d <= dfCap {
		return false
	}
	return st.Base.DFSkip(k, st.tombs)+d > dfCap
}

// followOver sets st's over-cap set for dfCap from the previous state's
// (prev) after a run that indexed added, and returns the flipped documents:
// the live documents of st, not in added, posting on a key whose counted
// status changed. Their counts against other unchanged documents changed
// although neither document did, so the master recounts them.
//
// The flip rule: a key's df rises only where an added document posts, and
// falls to the cap or below only on a key that was over it (in prev), so
// the keys whose status may change are prev's over-cap keys and the added
// documents' keys. Only their live df is computed: the cost follows the
// change plus the over-cap posting lists, not the index.
func (st *NodeState) followOver(prev *invindex.KeySet, added []invindex.DocChunks, dfCap int) []invindex.DocID {
	var cand []uint32
	for _, d := range added {
		cand = append(cand, d.Chunks...)
	}
	slices.Sort(cand)
	cand = mergeKeys(slices.Compact(cand), prev.Keys())
	var over, flips []uint32
	for _, k := range cand {
		isOver := st.isOver(k, dfCap)
		if isOver {
			over = append(over, k)
		}
		if isOver != prev.Has(k) {
			flips = append(flips, k)
		}
	}
	st.overMu.Lock()
	st.over.Store(&overSet{cap: dfCap, keys: invindex.NewKeySet(over)})
	st.overMu.Unlock()
	return st.postersOn(flips, added)
}

// postersOn returns the live documents of st posting on any of keys, not
// in added, sorted and distinct.
func (st *NodeState) postersOn(keys []uint32, added []invindex.DocChunks) []invindex.DocID {
	out := []invindex.DocID{}
	if len(keys) == 0 {
		return out
	}
	skip := invindex.NewDocSet(0)
	for _, d := range added {
		skip.Add(d.Doc)
	}
	for _, k := range keys {
		for _, p := range st.Base.LookupPostings(k) {
			if d := invindex.PostingDoc(p); !st.tombs.Has(d) && !skip.Has(d) {
				out = append(out, d)
			}
		}
		for _, p := range st.delta.LookupPostings(k) {
			if d := invindex.PostingDoc(p); !skip.Has(d) {
				out = append(out, d)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// mergeKeys returns the union of a and b (both ascending, distinct),
// ascending and distinct; it may reuse a.
func mergeKeys(a, b []uint32) []uint32 {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return slices.Clone(b)
	}
	out := make([]uint32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// countScratch holds a caller's filtered chunk lists between documents.
type countScratch struct {
	chunks []uint32
	checks []uint8
}

// countWith is Count with the caller's scratch: the chunks in st's over-cap
// set for dfCap are dropped first, then the rest is counted against the
// live base and the delta without a per-part cap.
func (st *NodeState) countWith(c *invindex.Counter, self invindex.DocID, chunks []uint32, checks []uint8, dfCap int, buf *countScratch) {
	if over := st.Over(dfCap); over.Len() > 0 {
		buf.chunks, buf.checks = over.Without(buf.chunks[:0], buf.checks[:0], chunks, checks)
		chunks, checks = buf.chunks, buf.checks
	}
	st.Base.CountSkip(c, self, chunks, checks, 0, st.tombs)
	st.delta.Count(c, self, chunks, checks, 0)
}
