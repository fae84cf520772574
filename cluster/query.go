package cluster

import "github.com/plagd/plagd/invindex"

// Count adds to c the chunks a query document shares with each live
// document of st: the base slice without its tombstoned documents, plus
// the delta. chunks (sorted, distinct, with their fingerprints checks, as
// Tokenizer.DocChunks gives them) should lie in st's range; others are
// ignored. self is a DocID that no document of st holds (a text that is
// not indexed, as for "check this file": invindex.Slice.Count then counts
// it against every posting). Chunks whose live df exceeds dfCap (> 0) are
// not counted, as in a run. Calls for several states accumulate until
// c.Drain. st is immutable once committed, so Count may run concurrently
// with runs and with other Counts (each with its own Counter).
func (st *NodeState) Count(c *invindex.Counter, self invindex.DocID, chunks []uint32, checks []uint8, dfCap int) {
	st.Base.CountSkip(c, self, chunks, checks, dfCap, st.tombs)
	st.delta.Count(c, self, chunks, checks, dfCap)
}

// DF is the live document frequency of chunk in st (postings on its chunk
// ID, whatever their fingerprints): the df the engine's df cap compares.
func (st *NodeState) DF(chunk uint32) int {
	return st.Base.DFSkip(chunk, st.tombs) + st.delta.DF(chunk)
}
