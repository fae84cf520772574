package invindex

import (
	"slices"

	"github.com/plagd/plagd/internal/hugepage"
)

// Counter accumulates the shared-chunk counts of one document against all
// others: a dense array indexed by DocID plus the list of touched entries,
// so that draining costs the number of partners, not the number of
// documents. Reuse one Counter across documents (one per goroutine).
type Counter struct {
	counts  []uint32
	touched []DocID
	bounds  []uint32 // Count's gather scratch: posting-list bounds and fingerprints
	sink    uint32   // keeps Count's touching loads alive
	ix      []uint32 // Count's per-stage scratch, one entry per chunk
	ka, kb  []uint32
}

// NewCounter returns a counter sized for DocIDs below maxDoc; it grows
// automatically when a slice holds bigger DocIDs.
func NewCounter(maxDoc DocID) *Counter { return &Counter{counts: hugepage.Make[uint32](int(maxDoc))} }

func (c *Counter) ensure(n uint64) {
	if uint64(len(c.counts)) >= n {
		return
	}
	grown := hugepage.Make[uint32](int(max(n, uint64(len(c.counts))+uint64(len(c.counts))/4)))
	copy(grown, c.counts)
	c.counts = grown
}

// Count adds, for each chunk of chunks (sorted, in s's range) whose df <=
// dfCap (dfCap <= 0: no cap), one to every document in its posting list
// except self whose posting has the chunk's fingerprint, checks[i] for
// chunks[i] (Tokenizer.DocChunks). A posting with the same chunk ID but
// another fingerprint is a different window whose hash collided in the ID
// bits: it counts for nothing. The df is that of the chunk ID, whatever the
// fingerprints. Calls for several slices accumulate until Drain.
//
// If self has postings in s, chunks and checks must be among self's
// chunks in s with their fingerprints (as in every run: a document is
// counted with the chunks it is indexed with); Count then skips unseen the
// windows no other posting carries, they being self's alone. A
// document that is not indexed (a "check this file" query) is counted
// against every posting.
//
// It runs in two phases, as the prototype measured best:
// first it resolves every chunk to its posting-list bounds ("gather", in
// stages of independent loads so the CPU overlaps their cache misses),
// dropping chunks that only self posts on, which on real corpora are 86 %
// of them (a filter of the chunks with df >= 2 answers most of those
// without touching the index); then it walks the surviving lists and
// counts, branch-free. The cap is the defence
// against template text, whose counting cost is quadratic in its df.
//
// Count panics if checks and chunks differ in length.
func (s *Slice) Count(c *Counter, self DocID, chunks []uint32, checks []uint8, dfCap int) {
	s.count(c, self, chunks, checks, dfCap, nil)
}

// CountSkip is Count with the postings of the documents in skip treated as
// absent: a tombstone set, whose postings in this slice are dead (their
// documents were removed or modified after s was built). Those postings
// are neither counted nor part of the df the cap is compared with: df(c)
// is the number of live postings on c in s (DFSkip). A nil or empty skip
// is exactly Count.
//
// self may be in skip (a modified document counted with its new chunks
// against the old slice): then chunks need not be among self's chunks in s.
func (s *Slice) CountSkip(c *Counter, self DocID, chunks []uint32, checks []uint8, dfCap int, skip *DocSet) {
	if skip.Len() == 0 {
		skip = nil
	}
	s.count(c, self, chunks, checks, dfCap, skip)
}

// DFSkip is DF without the postings of the documents in skip: the live
// document frequency of chunk, the df CountSkip caps on. A nil skip is DF.
func (s *Slice) DFSkip(chunk uint32, skip *DocSet) int {
	i, ok := s.find(chunk)
	if !ok {
		return 0
	}
	ps := s.docs[s.offs[i]:s.offs[i+1]]
	if skip.Len() == 0 {
		return len(ps)
	}
	n := 0
	for _, p := range ps {
		if !skip.Has(PostingDoc(p)) {
			n++
		}
	}
	return n
}

// liveOver reports whether more than capDF postings of ps belong to
// documents outside skip; it stops as soon as it knows.
func liveOver(ps []Posting, skip *DocSet, capDF uint32) bool {
	dead := uint32(0)
	limit := uint32(len(ps)) - capDF // more than capDF live <=> fewer than limit dead
	for _, p := range ps {
		if skip.Has(PostingDoc(p)) {
			if dead++; dead >= limit {
				return false
			}
		}
	}
	return true
}

// count is Count (skip == nil) and CountSkip (skip non-empty).
func (s *Slice) count(c *Counter, self DocID, chunks []uint32, checks []uint8, dfCap int, skip *DocSet) {
	if len(checks) != len(chunks) {
		panic("invindex: Count: one fingerprint per chunk needed")
	}
	if len(s.keys) == 0 || len(chunks) == 0 {
		return
	}
	c.ensure(s.maxDoc)
	capDF := uint32(1<<32 - 1)
	if dfCap > 0 && uint64(dfCap) < 1<<32 {
		capDF = uint32(dfCap)
	}
	// An indexed document posts on each of its chunks with their
	// fingerprints, so a window the filter proves unshared is its own
	// alone: skip it without touching the arrays.
	// A tombstoned self's postings are dead and its chunks may be new ones.
	skipSingles := s.present.Has(self) && !skip.Has(self)
	// The work is split into stages, each a short loop over all remaining
	// chunks whose loads do not depend on each other and whose branches do
	// not depend on loads that may miss. A lookup is a chain of four
	// dependent cache misses (dir → keys → offs → docs, ~160 ns each on
	// the 2-core test VM once the slice outgrows the L2 cache); a short
	// loop of independent loads lets the CPU keep several of them in
	// flight, and a branch on a value still on its way from memory, half
	// the time mispredicted, would throw away the loads issued after it.
	//
	// Stage 1: keep the chunks that may be shared and are in range,
	// compacting their indexes into ix without a branch.
	n := len(chunks)
	if cap(c.ix) < n {
		c.ix = make([]uint32, n)
		c.ka = make([]uint32, n)
		c.kb = make([]uint32, n)
	}
	ix, ka, kb := c.ix[:n], c.ka[:n], c.kb[:n]
	lo, width := s.lo, s.hi-s.lo
	m := 0
	if skipSingles {
		multi, shift := s.multi, s.multiShift
		for i, ch := range chunks {
			h := multiBit(ch, checks[i], shift)
			ix[m] = uint32(i)
			keep := uint32(multi[h>>6]>>(h&63)) & 1
			if uint64(ch)-lo >= width {
				keep = 0
			}
			m += int(keep)
		}
	} else {
		for i, ch := range chunks {
			ix[m] = uint32(i)
			if uint64(ch)-lo < width {
				m++
			}
		}
	}
	ix = ix[:m]
	// Stage 2: the directory range of each.
	dir, dirShift := s.dir, s.dirShift
	for k, i := range ix {
		j := (uint64(chunks[i]) - lo) >> dirShift
		ka[k], kb[k] = dir[j], dir[j+1]
	}
	// Stage 3: search the few keys of each range; keep the chunks found,
	// with their key index in ka. Branch-free by arithmetic (the compiler
	// does not emit CMOVs here): a branch on a key that is still on its
	// way from memory would be mispredicted half the time, and each
	// misprediction throws away the loads issued after it.
	keys := s.keys
	last := uint32(len(keys) - 1)
	m = 0
	for k, i := range ix {
		ch := int64(chunks[i])
		base, size := ka[k], kb[k]-ka[k]
		for size > 1 {
			half := size >> 1
			// keys[base+half] <= ch: the difference is not negative.
			base += half &^ uint32((ch-int64(keys[base+half]))>>63)
			size -= half
		}
		ix[m], ka[m] = i, base
		eq := uint64(uint32(ch) ^ keys[min(base, last)])
		m += int(size & uint32((eq-1)>>63)) // size is 0 or 1 here
	}
	ix, ka, kb = ix[:m], ka[:m], kb[:m]
	// Stage 4: posting-list bounds.
	offs := s.offs
	for k, ki := range ka {
		ka[k], kb[k] = offs[ki], offs[ki+1]
	}
	// Stage 5: drop capped and self-only chunks; touch the first posting
	// of each list kept (a load whose value only feeds sink: Go has no
	// prefetch instruction), so that counting finds them in the cache.
	docs := s.docs
	selfOnly := s.present.Has(self)
	g := c.bounds[:0]
	var sink uint32
	for k, i := range ix {
		a, b := ka[k], kb[k]
		if d := b - a; d > capDF && (skip == nil || liveOver(docs[a:b], skip, capDF)) {
			continue
		} else if d == 1 && selfOnly && PostingDoc(docs[a]) == self {
			continue
		}
		g = append(g, a, b, uint32(checks[i]))
		sink += docs[a]
	}
	c.sink = sink
	c.bounds = g
	c.countPostings(docs, g, self, skip)
}

// countPostings is Count's last stage: for each (start, end, fingerprint)
// triple of g, one to every document of docs[start:end] other than self
// (and outside skip) whose posting has the fingerprint. Branch-free but
// for skip: a document's first count also appends it to touched, by
// writing it there always and advancing by one when it counts.
func (c *Counter) countPostings(docs []Posting, g []uint32, self DocID, skip *DocSet) {
	counts := c.counts
	nt := len(c.touched)
	for k := 0; k+2 < len(g); k += 3 {
		a, b, fp := g[k], g[k+1], g[k+2]
		if need := nt + int(b-a); need > cap(c.touched) {
			c.touched = append(c.touched[:nt], make([]DocID, need-nt+need/4+64)...)
		}
		touched := c.touched[:cap(c.touched)]
		if skip == nil {
			for _, p := range docs[a:b] {
				d := PostingDoc(p)
				// 1 if p has the fingerprint and d is not self.
				match := uint32((uint64(p&0xff^fp)-1)>>63) &^ uint32((uint64(d^self)-1)>>63)
				old := counts[d]
				touched[nt] = d
				nt += int(match & uint32((uint64(old)-1)>>63))
				counts[d] = old + match
			}
			continue
		}
		for _, p := range docs[a:b] {
			d := PostingDoc(p)
			match := uint32((uint64(p&0xff^fp)-1)>>63) &^ uint32((uint64(d^self)-1)>>63)
			if skip.Has(d) {
				match = 0
			}
			old := counts[d]
			touched[nt] = d
			nt += int(match & uint32((uint64(old)-1)>>63))
			counts[d] = old + match
		}
	}
	c.touched = c.touched[:nt]
}

// Pair is a partial similarity count: Other shares Shared chunks with the
// counted document (in the slices counted so far).
type Pair struct {
	Other  DocID
	Shared uint32
}

// Drain appends the accumulated pairs with Shared >= minShared to dst,
// sorted by Other, and resets the counter for the next document. When most
// documents were touched it scans the dense array instead of sorting the
// touched list.
func (c *Counter) Drain(dst []Pair, minShared uint32) []Pair {
	t := c.touched
	if len(t) > len(c.counts)/16 {
		// Branch-free: write every entry, advance past those kept (a
		// branch on a count would be mispredicted at every other entry).
		m := uint64(max(minShared, 1))
		n0 := len(dst)
		dst = slices.Grow(dst, len(t)+1)[:n0+len(t)+1]
		j := n0
		for d, n := range c.counts {
			dst[j] = Pair{Other: DocID(d), Shared: n}
			j += int(1 ^ (uint64(n)-m)>>63)
		}
		dst = dst[:j]
		clear(c.counts)
	} else {
		slices.Sort(t)
		for _, d := range t {
			if n := c.counts[d]; n >= minShared {
				dst = append(dst, Pair{Other: d, Shared: n})
			}
			c.counts[d] = 0
		}
	}
	c.touched = t[:0]
	return dst
}

// Add adds partial counts (as Drain returns them, say from other
// processes counting other slices) to the counter's.
func (c *Counter) Add(ps []Pair) {
	for _, p := range ps {
		if p.Shared == 0 {
			continue
		}
		c.ensure(uint64(p.Other) + 1)
		if c.counts[p.Other] == 0 {
			c.touched = append(c.touched, p.Other)
		}
		c.counts[p.Other] += p.Shared
	}
}
