package neardup

// VOSH, the volatility-ordered set heap (seed 002, section 4): bit-flip
// masks in decreasing probability p(S) = prod_{i in S} p_i prod_{j not in S}
// (1-p_j), without enumerating and sorting all sum_{i<=h} C(b,i) subsets.
// Bits are ranked by decreasing p; for each size s the sets of s ranks form
// a tree (algorithm 2) in which every child is at most as likely as its
// parent (lemma 1), so a max-heap M seeded with the h roots pops sets in
// decreasing probability, each pop pushing at most two children: Θ(k log k)
// time and Θ(k) space for k masks.

import (
	"math"
	"math/bits"
)

// VOSH generates flip masks for one query. Reset it per query; the buffers
// are kept, so a long-lived VOSH does not allocate. Not safe for concurrent
// use.
type VOSH struct {
	nb    int
	pos   [Bits]uint8   // pos[r] = input index of the bit of rank r
	lodds [Bits]float64 // log(p/(1-p)) by rank, non-increasing
	heap  []voshNode
	cache []loddsSlot // log-odds by probability, see logOdds
}

type voshNode struct {
	score float64 // sum of lodds over the set: log p(S) up to a constant
	set   uint64  // bit r set = rank r in S
}

// probClamp keeps log-odds finite.
const probClamp = 1e-12

// Reset starts a new enumeration over len(p) <= 64 bits with flip
// probabilities p, of sets of 1..h bits. Masks refer to indexes of p.
func (v *VOSH) Reset(p []float64, h int) {
	v.nb = len(p)
	// Sort keys: floatKey orders like the float, so decreasing p, ties by
	// index, is ascending (^floatKey(p), index): integer compares only.
	var keys [Bits]uint64
	ks := keys[:len(p)]
	for i, pi := range p {
		ks[i] = ^floatKey(pi)
	}
	idx := v.pos[:len(p)]
	for i := range idx {
		idx[i] = uint8(i)
	}
	// Insertion sort on integer keys, stable, so the order is deterministic;
	// nb <= 64 and usually about 20 (the PSM header).
	for i := 1; i < len(idx); i++ {
		x, kx := idx[i], ks[idx[i]]
		j := i
		for ; j > 0 && kx < ks[idx[j-1]]; j-- {
			idx[j] = idx[j-1]
		}
		idx[j] = x
	}
	for r, i := range idx {
		v.lodds[r] = v.logOdds(p[i])
	}
	v.heap = v.heap[:0]
	for s := 1; s <= min(h, v.nb); s++ {
		v.push(uint64(1)<<s - 1)
	}
}

// logOdds is log(q/(1-q)) for p clamped to [probClamp, 1-probClamp], from a
// cache: FlipModel probabilities take at most MaxQuantiles+1 distinct values,
// so a long-lived VOSH (a Searcher's) soon computes no logarithm at all. The
// cache is keyed by the exact bits of p and stores the exact value the
// formula gives, so the order is the same as without it.
func (v *VOSH) logOdds(p float64) float64 {
	key := math.Float64bits(p) ^ loddsEmpty // 0 marks an empty slot
	if key != 0 {
		if v.cache == nil {
			v.cache = make([]loddsSlot, loddsCacheSize)
		}
		i := (key * 0x9e3779b97f4a7c15) >> (64 - loddsCacheBits)
		for range loddsProbes {
			e := &v.cache[i]
			if e.key == key {
				return e.val
			}
			if e.key == 0 {
				e.key, e.val = key, logOdds(p)
				return e.val
			}
			i = (i + 1) & (loddsCacheSize - 1)
		}
	}
	return logOdds(p) // a full neighbourhood: not a model's probabilities
}

func logOdds(p float64) float64 {
	q := min(max(p, probClamp), 1-probClamp)
	return math.Log(q / (1 - q))
}

// floatKey maps x to a uint64 in the same order as x (for non-NaN x).
func floatKey(x float64) uint64 {
	b := math.Float64bits(x)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

const (
	loddsCacheBits = 11 // 2048 slots (32 KiB) for <= 1025 values
	loddsCacheSize = 1 << loddsCacheBits
	loddsProbes    = 8
	loddsEmpty     = 0x7ff8_0000_dead_beef // a NaN no model produces
)

type loddsSlot struct {
	key uint64 // Float64bits(p) ^ loddsEmpty, 0 = empty
	val float64
}

// score sums the log-odds of set in rank order, so the same set always gets
// the same float (the brute-force reference relies on it).
func (v *VOSH) score(set uint64) float64 {
	var s float64
	for m := set; m != 0; m &= m - 1 {
		s += v.lodds[bits.TrailingZeros64(m)]
	}
	return s
}

// Next returns the next most likely mask over the input bits and its log
// probability relative to flipping nothing (sum of log(p/(1-p))), or false
// when all sets of up to h bits have been produced.
func (v *VOSH) Next() (mask uint64, logRatio float64, ok bool) {
	if len(v.heap) == 0 {
		return 0, 0, false
	}
	top := v.pop()
	v.children(top.set)
	for m := top.set; m != 0; m &= m - 1 {
		mask |= 1 << v.pos[bits.TrailingZeros64(m)]
	}
	return mask, top.score, true
}

// children pushes the children of set in its VOSH tree (algorithm 2). Left:
// the last (least volatile) rank moves one down. Right: if the run of
// consecutive ranks ending at the last one is preceded by a gap of exactly
// 2, the rank before the gap moves up. Every set of a given size has exactly
// one parent, so nothing is produced twice.
func (v *VOSH) children(set uint64) {
	last := 63 - bits.LeadingZeros64(set)
	if last+1 < v.nb {
		v.push(set&^(1<<last) | 1<<(last+1))
	}
	below := ^set & (uint64(1)<<last - 1) // zeros below the last rank
	if below == 0 {
		return // the set is 0..last: no gap
	}
	z := 63 - bits.LeadingZeros64(below) // the gap just before the run
	rest := set & (uint64(1)<<z - 1)
	if rest == 0 {
		return
	}
	if e := 63 - bits.LeadingZeros64(rest); e == z-1 {
		v.push(set&^(1<<e) | 1<<z)
	}
}

func (v *VOSH) less(i, j int) bool { // max-heap order
	a, b := v.heap[i], v.heap[j]
	if a.score != b.score {
		return a.score > b.score
	}
	return a.set < b.set
}

func (v *VOSH) push(set uint64) {
	v.heap = append(v.heap, voshNode{v.score(set), set})
	i := len(v.heap) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !v.less(i, p) {
			break
		}
		v.heap[i], v.heap[p] = v.heap[p], v.heap[i]
		i = p
	}
}

func (v *VOSH) pop() voshNode {
	h := v.heap
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	v.heap = h[:n]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && v.less(l, m) {
			m = l
		}
		if r < n && v.less(r, m) {
			m = r
		}
		if m == i {
			return top
		}
		v.heap[i], v.heap[m] = v.heap[m], v.heap[i]
		i = m
	}
}
