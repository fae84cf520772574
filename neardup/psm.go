package neardup

// PSM, probabilistic simhash matching (Sood and Loguinov, section 5): one sorted copy
// of the stored hashes plus a header table of 2^t offsets indexed by the top
// t bits. A query looks up its own header, then the headers VOSH produces by
// flipping the most likely header bits, and scans each bucket for hashes
// within the remaining distance. With an unlimited budget it is exact; with
// a budget of k lookups it trades a little recall for speed, at about 1.1-1.5
// times the RAM of the hashes instead of BPHS's T >= 4 copies.

import (
	"cmp"
	"iter"
	"math/bits"
	"slices"
)

// Entry is a stored simhash and the ID of its document.
type Entry struct {
	Hash uint64
	ID   uint32
}

// Match is a stored document within the query's Hamming distance.
type Match struct {
	ID   uint32
	Hash uint64
	Dist int
}

// Near is the brute-force reference: every entry within Hamming distance h
// of x, in entry order. It is also the right tool for a small set of recent
// hashes not yet merged into an index.
func Near(entries []Entry, x uint64, h int, dst []Match) []Match {
	for _, e := range entries {
		if d := bits.OnesCount64(e.Hash ^ x); d <= h {
			dst = append(dst, Match{e.ID, e.Hash, d})
		}
	}
	return dst
}

// PSM is an immutable online index. Build a new one to add or remove hashes
// (Near covers the recent ones meanwhile). Safe for concurrent queries, each
// goroutine with its own Searcher.
type PSM struct {
	t      int
	hashes []uint64 // ascending
	ids    []uint32 // ids[i] is the document of hashes[i]
	header []uint32 // hashes[header[v]:header[v+1]] have top t bits v
}

// HeaderBitsFor is the paper's optimal header width for n hashes, t = d =
// ceil(log2 n), kept within 1..28 (a 1 GiB header table at most).
func HeaderBitsFor(n int) int {
	t := bits.Len(uint(max(n-1, 1)))
	return min(max(t, 1), 28)
}

// NewPSM indexes entries (copied) with a header of t bits, 1 <= t <= 28.
func NewPSM(entries []Entry, t int) *PSM {
	if t < 1 || t > 28 {
		panic("neardup: header bits must be 1..28")
	}
	es := slices.Clone(entries)
	slices.SortFunc(es, func(a, b Entry) int {
		return cmp.Or(cmp.Compare(a.Hash, b.Hash), cmp.Compare(a.ID, b.ID))
	})
	x := &PSM{t: t, hashes: make([]uint64, len(es)), ids: make([]uint32, len(es)),
		header: make([]uint32, 1<<t+1)}
	for i, e := range es {
		x.hashes[i], x.ids[i] = e.Hash, e.ID
		x.header[e.Hash>>(Bits-t)+1]++
	}
	for v := 1; v < len(x.header); v++ {
		x.header[v] += x.header[v-1]
	}
	return x
}

// Len is the number of stored hashes.
func (x *PSM) Len() int { return len(x.hashes) }

// HeaderBits is t.
func (x *PSM) HeaderBits() int { return x.t }

// Bytes is the RAM the index holds: hashes, IDs and the header table.
func (x *PSM) Bytes() int { return 8*len(x.hashes) + 4*len(x.ids) + 4*len(x.header) }

// QueryOpts controls one query.
type QueryOpts struct {
	H      int  // maximum Hamming distance (3 in the seed and by default in plagd)
	Budget int  // header lookups, the query's own included; 0 = all (exact)
	First  bool // stop at the first match (PSM_F) instead of finding all (PSM_A)
}

// Searcher holds one goroutine's query buffers.
type Searcher struct {
	v     VOSH
	masks [lookupGroup]uint64
	lo    [lookupGroup]uint32
	hi    [lookupGroup]uint32
}

// lookupGroup is how many header lookups Query issues together. The header
// and bucket reads of a group do not depend on each other, so the CPU
// overlaps their cache misses, which dominate a query over millions of
// hashes; computing VOSH masks between lookups would serialise them.
const lookupGroup = 16

// Query finds stored hashes within o.H of x, trying header flips in the
// order of the flip probabilities p (FlipModel.Probs of the query's
// weights). It appends matches to dst and returns them with the number of
// header lookups made. Every match is real (precision 1); recall is 1 when
// the budget covers all sum_{i<=H} C(t,i) header flips. With o.First the
// match returned is the first in VOSH order (the most likely header).
func (s *Searcher) Query(x *PSM, q uint64, p *[Bits]float64, o QueryOpts, dst []Match) ([]Match, int) {
	shift := Bits - x.t
	lookups := 0
	started := false // VOSH set up for this query
	for {
		// Collect the next group of masks: the query itself first, then VOSH.
		n := 0
		limit := lookupGroup
		if o.Budget > 0 {
			limit = min(limit, o.Budget-lookups)
		}
		if lookups == 0 {
			s.masks[0] = 0
			n = 1
		}
		// First-match looks up the query's own header alone before setting
		// up VOSH: a near-duplicate that differs only outside the header
		// bits (about half of the planted ones) is then found for one
		// lookup and no VOSH at all; if not, the rest of the budget goes
		// in one group. All-matches visits every header of the budget
		// anyway, so it issues them all at once with its own and overlaps
		// all their cache misses.
		if !started && !(o.First && lookups == 0) {
			started = true
			if o.H > 0 && limit > n {
				if o.Budget > 0 {
					s.v.ResetFirst(p[shift:], min(o.H, x.t), o.Budget-1)
				} else {
					s.v.Reset(p[shift:], min(o.H, x.t))
				}
			}
		}
		if started && n < limit && o.H > 0 {
			n += s.v.fill(s.masks[n:limit])
		}
		if n == 0 {
			return dst, lookups
		}
		for i := range n {
			v := (q ^ s.masks[i]<<shift) >> shift
			s.lo[i], s.hi[i] = x.header[v], x.header[v+1]
		}
		for i := range n {
			for j := s.lo[i]; j < s.hi[i]; j++ {
				if d := bits.OnesCount64(x.hashes[j] ^ q); d <= o.H {
					dst = append(dst, Match{x.ids[j], x.hashes[j], d})
					if o.First {
						return dst, lookups + i + 1
					}
				}
			}
		}
		lookups += n
		if o.Budget > 0 && lookups >= o.Budget {
			return dst, lookups
		}
	}
}

// BatchQuery is one new hash in batch mode with its flip probabilities.
type BatchQuery struct {
	Hash  uint64
	Probs [Bits]float64
}

// Batch is PSM's batch mode: the new hashes qs are matched against a stored
// collection read in chunks (from a file or a table; chunks yields them and
// must not reuse a slice while Batch holds it, which it does only for the
// duration of one chunk). Each chunk gets its own PSM; with o.First, a query
// that has matched is not tried on later chunks. Result i lists the matches
// of qs[i].
func Batch(qs []BatchQuery, chunks iter.Seq[[]Entry], o QueryOpts) [][]Match {
	out := make([][]Match, len(qs))
	pending := make([]int, len(qs))
	for i := range pending {
		pending[i] = i
	}
	var s Searcher
	for chunk := range chunks {
		if len(pending) == 0 {
			break
		}
		x := NewPSM(chunk, HeaderBitsFor(len(chunk)))
		next := pending[:0]
		for _, i := range pending {
			out[i], _ = s.Query(x, qs[i].Hash, &qs[i].Probs, o, out[i])
			if !o.First || len(out[i]) == 0 {
				next = append(next, i)
			}
		}
		pending = next
	}
	return out
}
