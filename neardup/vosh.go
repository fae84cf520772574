package neardup

// VOSH, the volatility-ordered set heap (Sood and Loguinov, section 4): bit-flip
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
	"sync"
)

// VOSH generates flip masks for one query. Reset it per query; the buffers
// are kept, so a long-lived VOSH does not allocate. Not safe for concurrent
// use.
type VOSH struct {
	nb    int
	pos   [Bits]uint8   // pos[r] = input index of the bit of rank r
	lodds [Bits]float64 // log(p/(1-p)) by rank, non-increasing
	heap  []voshNode
	cache *[loddsCacheSize]loddsSlot // log-odds by probability, see logOdds

	// After ResetFirst with a small n, the masks in order (set = the input
	// mask, not ranks) and the next one's index; listAt < 0 otherwise.
	list    []voshNode
	listAt  int
	listBuf [maxListN]voshNode
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
	v.listAt = -1
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

// ResetFirst is Reset for a caller that takes at most n masks: the first n
// calls to Next return exactly what they would after Reset(p, h) (same
// masks, same scores, same order, ties included); later calls may end
// early. PSM with a budget of k lookups takes n = k-1.
//
// Why it is cheaper: when every p_j is in [0, 1/2], every log-odds is <= 0,
// so a set containing the bit of rank r scores at most that bit's log-odds
// and comes after the r single-bit sets of the better-ranked bits (ties go
// to the smaller set, and {i} < S for i < r in S). The first n masks thus
// only involve ranks 0..n-1: only those n bits need ranking (selectTop, a
// bucket pass instead of a sort whose branches the CPU cannot predict) and
// log-odds. For n <= maxListN the masks themselves come from a precomputed
// candidate list instead of the heap (listFirst). Otherwise (some p_j
// outside [0, 1/2], or n covers all bits) it is Reset. At k = 8 on a 20-bit
// header this took VOSH from 0.6-1 µs to about 0.3 µs per query.
func (v *VOSH) ResetFirst(p []float64, h, n int) {
	v.list = v.list[:0]
	v.listAt = -1
	if n <= 0 || n >= len(p) || !v.selectTop(p, n) {
		v.Reset(p, h)
		return
	}
	v.nb = n
	if v.cache == nil {
		v.cache = new([loddsCacheSize]loddsSlot)
	}
	for r, i := range v.pos[:n] {
		// logOdds, with its first probe inlined (p is not NaN: key != 0).
		key := math.Float64bits(p[i]) ^ loddsEmpty
		if e := &v.cache[(key*loddsHash)>>(64-loddsCacheBits)]; e.key == key {
			v.lodds[r] = e.val
		} else {
			v.lodds[r] = v.logOddsSlow(p[i], key)
		}
	}
	if n <= maxListN {
		v.listFirst(h, n)
		return
	}
	v.heap = v.heap[:0]
	for s := 1; s <= min(h, n); s++ {
		v.push(uint64(1)<<s - 1)
	}
}

// selectTop sets pos[:n] to the n best bits of p in Reset's order
// (decreasing p, ties by index) when every p_j is in [0, 1/2], and reports
// whether they are; n < len(p).
//
// It avoids sorting: a sort's branches are mispredicted about once per bit,
// which made it most of a query's VOSH time. One pass puts each bit in a
// coarse bucket (a quarter octave of p, bucketOf), a bit set per bucket;
// then the buckets are read best first until n bits are out. A bucket of
// one bit needs no comparison. A bucket of several usually holds one
// probability (a learned model gives every bit with a large weight the
// same smallest value), so its bits go in index order; only a bucket of
// distinct probabilities is ranked, pairwise (rankPairs).
func (v *VOSH) selectTop(p []float64, n int) bool {
	var members [Bits]uint64 // members[q]: the bits in bucket q
	var hi, occupied uint64
	for i, pi := range p {
		b := math.Float64bits(pi)
		hi = max(hi, b)
		q := bucketOf(b)
		members[q&(Bits-1)] |= 1 << (i & (Bits - 1))
		occupied |= 1 << q
	}
	if hi > math.Float64bits(0.5) { // some p > 1/2, negative (sign bit) or NaN
		return false
	}
	k := 0
	for occ := occupied; k < n && occ != 0; occ &= occ - 1 {
		ms := members[bits.TrailingZeros64(occ)]
		if ms&(ms-1) == 0 { // one bit
			v.pos[k] = uint8(bits.TrailingZeros64(ms))
			k++
			continue
		}
		first := math.Float64bits(p[bits.TrailingZeros64(ms)])
		same := true
		for m := ms & (ms - 1); m != 0; m &= m - 1 {
			same = same && math.Float64bits(p[bits.TrailingZeros64(m)]) == first
		}
		if same { // index order
			for m := ms; m != 0 && k < n; m &= m - 1 {
				v.pos[k] = uint8(bits.TrailingZeros64(m))
				k++
			}
			continue
		}
		var key [Bits]uint64
		var idx, out [Bits]uint8
		c := 0
		for m := ms; m != 0; m &= m - 1 {
			i := bits.TrailingZeros64(m)
			key[c], idx[c] = math.Float64bits(p[i]), uint8(i)
			c++
		}
		rankPairs(key[:c], idx[:c], out[:])
		k += copy(v.pos[k:n], out[:c])
	}
	return true
}

// rankPairs writes idx to out in the order of decreasing float bits key
// (non-negative floats), ties by position: out[rank of x] = idx[x], the
// rank being counted over all pairs by the signs of their differences.
func rankPairs(key []uint64, idx []uint8, out []uint8) {
	var rank [Bits]uint64
	for j := 1; j < len(key) && j < Bits; j++ {
		kj := key[j]
		rj := uint64(j) // earlier ones come first unless key_i < key_j
		for x, ki := range key[:j] {
			d := (ki - kj) >> 63 // 1 if key_i < key_j: j goes before i
			rank[x] += d
			rj -= d
		}
		rank[j] += rj
	}
	for x, r := range rank[:len(idx)] {
		out[r&(Bits-1)] = idx[x]
	}
}

// bucketOf is a coarse rank of a probability in [0, 1/2] given its float
// bits: 0 for 1/2, one more per quarter octave below it (the exponent and
// two mantissa bits), 63 for everything below 2^-16.75. It never increases
// with p, which is all selectTop needs. A FlipModel's probabilities are at
// least 1/(4*(MaxQuantiles+1)) > 2^-13, so they spread over buckets 0..48
// and never share the catch-all 63.
func bucketOf(bits uint64) uint8 {
	const top = 0x3fe0_0000_0000_0000 >> 50 // 1/2
	return uint8(min(top-min(bits>>50, top), 63))
}

// maxListN bounds the n for which ResetFirst uses a candidate list instead
// of the heap; PSM's calibrated budgets are 6 to 11 lookups at 2^16..2^22
// hashes.
const maxListN = 16

// listFirst puts the first n masks of the enumeration over ranks 0..n-1
// (n <= maxListN, lodds set, every lodds <= 0) in v.list, in order. The
// sets that can be among the first n, and which of them come before which
// whatever the log-odds, are fixed by n and h alone (voshCandidates); a
// query only scores the candidates and compares the pairs left open,
// branch-free: for n = 7, 12 candidates and 22 comparisons, no heap (whose
// comparisons, about 4 per mask, are mispredicted half the time).
func (v *VOSH) listFirst(h, n int) {
	cl := voshCandidates(n, h)
	// Rank slot maxListN is a missing term: log-odds +0 (adding it leaves
	// a sum unchanged, bit for bit) and no mask bit, so every candidate
	// is scored and mapped by the same straight-line code.
	var lo [32]float64
	var bit [32]uint64
	for r := range n {
		lo[r&31], bit[r&31] = v.lodds[r], 1<<v.pos[r]
	}
	var key [64]uint64
	var score [64]float64
	for i, rs := range cl.ranks {
		// In rank order, as VOSH.score sums.
		s := lo[rs[0]&31] + lo[rs[1]&31] + lo[rs[2]&31] + lo[rs[3]&31]
		score[i&63] = s
		// Scores are <= 0 (+0 at most), so their bits without the sign
		// grow as the score decreases; equal scores have equal keys.
		key[i&63] = math.Float64bits(s) &^ (1 << 63)
	}
	rank := cl.before
	for _, ij := range cl.open {
		i, j := ij[0], ij[1]                      // set i < set j: i wins a tie, as in VOSH.less
		d := uint8((key[j&63] - key[i&63]) >> 63) // 1 if score_j > score_i
		rank[i&63] += d
		rank[j&63] += 1 - d
	}
	var order [64]uint8
	for i, r := range rank[:len(cl.ranks)] {
		order[r&63] = uint8(i)
	}
	m := min(n, len(cl.ranks))
	for k, i := range order[:m] {
		rs := &cl.ranks[i]
		v.listBuf[k] = voshNode{score[i&63], bit[rs[0]&31] | bit[rs[1]&31] | bit[rs[2]&31] | bit[rs[3]&31]}
	}
	v.list = v.listBuf[:m]
	v.listAt = 0
}

// maxListH is the largest set size among the candidates for n <=
// maxListN: a set of s bits comes after its 2^s-2 proper non-empty subsets.
const maxListH = 4

// maxListCands bounds len(voshCandidates(n, h)) for n <= maxListN (checked
// when a list is built; TestVOSHCandidates lists the sizes).
const maxListCands = 40

var voshCandTables [maxListN + 1][maxListH + 1]struct {
	once sync.Once
	list candList
}

// candList is the candidate sets of one (n, h) in increasing set order,
// each as its ranks in increasing order padded with maxListN (no rank);
// before[i] counts the candidates that come before candidate i whatever
// the log-odds (those it dominates), and open lists the pairs i < j whose
// order depends on the scores.
type candList struct {
	ranks  [][maxListH]uint8
	before [64]uint8
	open   [][2]uint8
}

// voshCandidates is every set of 1..h ranks among 0..n-1 that can be among
// the first n of the enumeration whatever the log-odds (all <= 0), in
// increasing order. Built once per (n, h) and shared.
//
// A set S comes after every other set S' that it dominates whatever the
// log-odds: S' of at most |S| ranks whose i-th largest rank is at most the
// i-th largest of S (drop ranks, move ranks up). Dropping a term <= 0 or
// raising one does not lower the float sum in rank order, and such an S'
// is a smaller integer, which wins ties. So a set dominating n or more
// others is never among the first n.
func voshCandidates(n, h int) *candList {
	h = min(h, bits.Len(uint(n+1))-1) // sets of more ranks dominate >= n subsets
	e := &voshCandTables[n][max(h, 0)]
	e.once.Do(func() {
		var sets []uint64
		for set := uint64(1); set < 1<<n && h > 0; set++ {
			if bits.OnesCount64(set) <= h && dominated(set) < n {
				sets = append(sets, set)
			}
		}
		if len(sets) > maxListCands {
			panic("neardup: maxListCands too small")
		}
		l := &e.list
		for i, set := range sets {
			rs := [maxListH]uint8{maxListN, maxListN, maxListN, maxListN}
			for k, m := 0, set; m != 0; k, m = k+1, m&(m-1) {
				rs[k] = uint8(bits.TrailingZeros64(m))
			}
			l.ranks = append(l.ranks, rs)
			for j := range i {
				if dominates(set, sets[j]) {
					l.before[i]++
				} else {
					l.open = append(l.open, [2]uint8{uint8(j), uint8(i)})
				}
			}
		}
	})
	return &e.list
}

// dominates reports whether set s dominates o (see voshCandidates): o has
// at most as many ranks and its i-th largest rank is at most the i-th
// largest of s.
func dominates(s, o uint64) bool {
	if bits.OnesCount64(o) > bits.OnesCount64(s) {
		return false
	}
	for o != 0 {
		a, b := 63-bits.LeadingZeros64(s), 63-bits.LeadingZeros64(o)
		if b > a {
			return false
		}
		s &^= 1 << a
		o &^= 1 << b
	}
	return true
}

// dominated counts the sets other than S that S dominates (see
// voshCandidates): for each size m <= |S|, the increasing sequences a_1 <
// ... < a_m with a_i <= b_i, b being the m largest ranks of S, by dynamic
// programming over the last rank.
func dominated(set uint64) int {
	var r []int
	for m := set; m != 0; m &= m - 1 {
		r = append(r, bits.TrailingZeros64(m))
	}
	total := 0
	for m := 1; m <= len(r); m++ {
		b := r[len(r)-m:]
		var f [Bits]int // f[v]: sequences so far ending at rank v
		for v := 0; v <= b[0]; v++ {
			f[v] = 1
		}
		for i := 1; i < m; i++ {
			var g [Bits]int
			acc := 0
			for v := 0; v <= b[i]; v++ {
				g[v] = acc // sequences ending below v
				acc += f[v]
			}
			f = g
		}
		for _, c := range f {
			total += c
		}
	}
	return total - 1 // S itself
}

// logOdds is log(q/(1-q)) for p clamped to [probClamp, 1-probClamp], from a
// cache: FlipModel probabilities take at most MaxQuantiles+1 distinct values,
// so a long-lived VOSH (a Searcher's) soon computes no logarithm at all. The
// cache is keyed by the exact bits of p and stores the exact value the
// formula gives, so the order is the same as without it.
func (v *VOSH) logOdds(p float64) float64 {
	key := math.Float64bits(p) ^ loddsEmpty // 0 marks an empty slot
	if c := v.cache; c != nil && key != 0 {
		if e := &c[(key*loddsHash)>>(64-loddsCacheBits)]; e.key == key {
			return e.val // the usual case: one probe
		}
	}
	return v.logOddsSlow(p, key)
}

// logOddsSlow is logOdds past the first slot: it probes on and fills.
func (v *VOSH) logOddsSlow(p float64, key uint64) float64 {
	if key != 0 {
		if v.cache == nil {
			v.cache = new([loddsCacheSize]loddsSlot)
		}
		i := (key * loddsHash) >> (64 - loddsCacheBits)
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
	loddsHash      = 0x9e3779b97f4a7c15    // Fibonacci hashing
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
	if v.listAt >= 0 {
		if v.listAt == len(v.list) {
			return 0, 0, false
		}
		e := v.list[v.listAt]
		v.listAt++
		return e.set, e.score, true
	}
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

// fill puts the next masks into dst, as many as fit and remain, and
// returns their number: Next without its per-mask call, for PSM's lookup
// groups.
func (v *VOSH) fill(dst []uint64) int {
	if v.listAt >= 0 {
		n := copyMasks(dst, v.list[v.listAt:])
		v.listAt += n
		return n
	}
	for i := range dst {
		m, _, ok := v.Next()
		if !ok {
			return i
		}
		dst[i] = m
	}
	return len(dst)
}

func copyMasks(dst []uint64, src []voshNode) int {
	n := min(len(dst), len(src))
	for i := range n {
		dst[i] = src[i].set
	}
	return n
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
