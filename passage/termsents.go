package passage

import "math/bits"

// termSents finds the sentences of a Doc that have a term: an
// open-addressing table from term to a run of one array of sentence
// numbers, in order (as keyIndex does for windows; a map lookup per term of
// every sentence pair's text cost most of the join).
type termSents struct {
	keys   []uint64 // slot → term; 0 (no term is 0) marks an empty slot
	lo, hi []uint32 // slot → sents[lo:hi]
	sents  []int32
	shift  uint
}

// build indexes the terms of sents (n of them in all) and sets each
// termAt's df: a pass to count each term's sentences, one to lay the runs
// out, one to fill them in sentence order.
func (x *termSents) build(sents []sentence, n int) {
	size := 1 << max(4, bits.Len(uint(2*n)))
	x.keys, x.lo, x.hi = make([]uint64, size), make([]uint32, size), make([]uint32, size)
	x.shift = uint(64 - bits.TrailingZeros(uint(size)))
	mask := uint64(size - 1)
	slotOf := func(k uint64) uint64 {
		slot := (k * 0x9E3779B97F4A7C15) >> x.shift
		for x.keys[slot] != 0 && x.keys[slot] != k {
			slot = (slot + 1) & mask
		}
		return slot
	}
	for _, s := range sents { // hi counts the term's sentences for now
		for _, t := range s.terms {
			slot := slotOf(t.term)
			x.keys[slot] = t.term
			x.hi[slot]++
		}
	}
	at := uint32(0)
	for slot, c := range x.hi {
		if c != 0 {
			x.lo[slot] = at
			at += c
			x.hi[slot] = x.lo[slot] // the fill pointer, hi at the end
		}
	}
	x.sents = make([]int32, at)
	for i := range sents {
		for _, t := range sents[i].terms {
			slot := slotOf(t.term)
			x.sents[x.hi[slot]] = int32(i)
			x.hi[slot]++
		}
	}
	for i := range sents {
		for j := range sents[i].terms {
			sents[i].terms[j].df = int32(len(x.lookup(sents[i].terms[j].term)))
		}
	}
}

// lookup returns the sentences that have term k, in order.
func (x *termSents) lookup(k uint64) []int32 {
	if len(x.keys) == 0 {
		return nil
	}
	mask := uint64(len(x.keys) - 1)
	for slot := (k * 0x9E3779B97F4A7C15) >> x.shift; x.keys[slot] != 0; slot = (slot + 1) & mask {
		if x.keys[slot] == k {
			return x.sents[x.lo[slot]:x.hi[slot]]
		}
	}
	return nil
}
