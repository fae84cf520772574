package invindex

import "slices"

// Counter accumulates the shared-chunk counts of one document against all
// others: a dense array indexed by DocID plus the list of touched entries,
// so that draining costs the number of partners, not the number of
// documents. Reuse one Counter across documents (one per goroutine).
type Counter struct {
	counts  []uint32
	touched []DocID
	bounds  []uint32 // Count's gather scratch: posting-list bounds and fingerprints
	sink    uint32   // keeps Count's touching loads alive
}

// NewCounter returns a counter sized for DocIDs below maxDoc; it grows
// automatically when a slice holds bigger DocIDs.
func NewCounter(maxDoc DocID) *Counter { return &Counter{counts: make([]uint32, maxDoc)} }

func (c *Counter) ensure(n uint64) {
	if uint64(len(c.counts)) >= n {
		return
	}
	grown := make([]uint32, max(n, uint64(len(c.counts))+uint64(len(c.counts))/4))
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
// If self has postings in s, chunks must be among self's chunks in s (as
// in every run: a document is counted with the chunks it is indexed with);
// Count then skips chunks with df = 1 unseen, they being self's alone. A
// document that is not indexed (a "check this file" query) is counted
// against every posting.
//
// It runs in two passes, as the prototype measured best (DESIGN.md §5):
// first it resolves every chunk to its posting-list bounds ("gather"; the
// lookups are independent, so the CPU overlaps their cache misses), dropping
// chunks that only self posts on, which on real corpora are 86 % of them;
// then it walks the surviving lists and counts. The cap is the defence
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
	// An indexed document posts on each of its chunks, so a chunk the
	// filter proves df=1 is its own: skip it without touching the arrays.
	// A tombstoned self's postings are dead and its chunks may be new ones.
	skipSingles := s.present.Has(self) && !skip.Has(self)
	// Four stages, each a loop over all chunks whose loads are independent
	// of each other, so the CPU keeps many cache misses in flight instead
	// of chasing dir → keys → offs → docs one chunk at a time. Each stage
	// also touches the line the next stage will read (a load whose value
	// only feeds sink: Go has no prefetch instruction), and no branch
	// waits on a load that may miss, so a mispredicted branch never stalls
	// the loads already issued. g holds triples, rewritten in place by
	// each stage: (chunk index, dir start, dir end), then (key index,
	// fingerprint, -), then (postings start, end, fingerprint).
	keys, offs, docs := s.keys, s.offs, s.docs
	last := uint32(len(keys) - 1)
	var sink uint32
	// Stage 1: filter, and the directory range of each remaining chunk.
	g := c.bounds[:0]
	for i, ch := range chunks {
		if skipSingles && !s.maybeShared(ch) {
			continue
		}
		x := uint64(ch)
		if x < s.lo || x >= s.hi {
			continue
		}
		j := (x - s.lo) >> s.dirShift
		a := s.dir[j]
		g = append(g, uint32(i), a, s.dir[j+1])
		sink += keys[min(a, last)]
	}
	if expStop == 1 { c.sink = sink; return }
	// Stage 2: search the few keys of each range (branch-free: the
	// compiler turns the conditional add into a CMOV); keep the key's index.
	n := 0
	for k := 0; k+2 < len(g); k += 3 {
		i, base, size := g[k], g[k+1], g[k+2]-g[k+1]
		if size == 0 {
			continue
		}
		ch := chunks[i]
		for size > 1 {
			half := size >> 1
			if keys[base+half] <= ch {
				base += half
			}
			size -= half
		}
		if keys[base] == ch {
			g[n], g[n+1] = base, uint32(checks[i])
			n += 3
			sink += offs[base]
		}
	}
	g = g[:n]
	if expStop == 2 { c.sink = sink; return }
	// Stage 3: posting-list bounds, dropping capped and self-only chunks.
	selfOnly := s.present.Has(self)
	n = 0
	for k := 0; k+2 < len(g); k += 3 {
		i, fp := g[k], g[k+1]
		a, b := offs[i], offs[i+1]
		if d := b - a; d > capDF && (skip == nil || liveOver(docs[a:b], skip, capDF)) {
			continue
		} else if d == 1 && selfOnly && PostingDoc(docs[a]) == self {
			continue
		}
		g[n], g[n+1], g[n+2] = a, b, fp
		n += 3
		sink += docs[a]
	}
	g = g[:n]
	c.sink = sink
	if expStop == 3 { return }
	c.bounds = g
	counts, touched := c.counts, c.touched
	if skip != nil {
		for k := 0; k+2 < len(g); k += 3 {
			fp := g[k+2]
			for _, p := range s.docs[g[k]:g[k+1]] {
				d := PostingDoc(p)
				if p&0xff != fp || d == self || skip.Has(d) {
					continue
				}
				if counts[d] == 0 {
					touched = append(touched, d)
				}
				counts[d]++
			}
		}
		c.touched = touched
		return
	}
	for k := 0; k+2 < len(g); k += 3 {
		fp := g[k+2]
		for _, p := range s.docs[g[k]:g[k+1]] {
			d := PostingDoc(p)
			if p&0xff != fp || d == self {
				continue
			}
			if counts[d] == 0 {
				touched = append(touched, d)
			}
			counts[d]++
		}
	}
	c.touched = touched
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
		for d, n := range c.counts {
			if n != 0 {
				if n >= minShared {
					dst = append(dst, Pair{Other: DocID(d), Shared: n})
				}
				c.counts[d] = 0
			}
		}
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

var expStop = 0
