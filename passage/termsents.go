package passage

import "math/bits"

// termSents finds the sentences of a Doc that have a term: an
// open-addressing table from term to a run of one array of sentence
// numbers, in order (as keyIndex does for windows; a map lookup per term of
// every sentence pair's text cost most of the join). The runs lie in slot
// order, so one offset per slot bounds them all: slot s's sentences are
// sents[off[s]:off[s+1]], an empty run for an empty slot.
type termSents struct {
	keys  []uint64 // slot → term; 0 (no term is 0) marks an empty slot
	off   []uint32 // len(keys)+1 offsets into sents
	sents []int32
	shift uint
}

// build indexes the terms of sents (n of them in all) and sets each
// termAt's df. The table is sized for the distinct terms, which a first
// pass counts (a Doc stays in a report's cache of sources, and most of its
// terms recur); the second places each term, keeping its slot in its
// termAt's df for the passes that count and fill in each term's
// sentences, in sentence order.
func (x *termSents) build(sents []sentence, n int) {
	distinct := 0
	x.reset(2*n, false)
	for _, s := range sents {
		for _, t := range s.terms {
			if slot := x.slotOf(t.term); x.keys[slot] == 0 {
				x.keys[slot] = t.term
				distinct++
			}
		}
	}
	x.reset(2*distinct, true)
	for _, s := range sents {
		for j := range s.terms {
			t := &s.terms[j]
			slot := x.slotOf(t.term)
			x.keys[slot] = t.term
			x.off[slot+1]++
			t.df = int32(slot)
		}
	}
	for slot := range x.keys {
		x.off[slot+1] += x.off[slot]
	}
	x.sents = make([]int32, n)
	fill := make([]uint32, len(x.keys)) // sentences placed per slot so far
	for i, s := range sents {
		for _, t := range s.terms {
			x.sents[x.off[t.df]+fill[t.df]] = int32(i)
			fill[t.df]++
		}
	}
	for _, s := range sents {
		for j := range s.terms {
			slot := s.terms[j].df
			s.terms[j].df = int32(x.off[slot+1] - x.off[slot])
		}
	}
}

// reset empties the table and sizes it for at least n slots (a power of
// two, at least 16), with its offsets when runs are to be laid out (the
// first pass of build only counts terms).
func (x *termSents) reset(n int, runs bool) {
	size := 1 << max(4, bits.Len(uint(n)))
	x.keys, x.off = make([]uint64, size), nil
	if runs {
		x.off = make([]uint32, size+1)
	}
	x.shift = uint(64 - bits.TrailingZeros(uint(size)))
}

// slotOf is term k's slot, or the empty slot where it would go.
func (x *termSents) slotOf(k uint64) uint64 {
	mask := uint64(len(x.keys) - 1)
	slot := (k * 0x9E3779B97F4A7C15) >> x.shift
	for x.keys[slot] != 0 && x.keys[slot] != k {
		slot = (slot + 1) & mask
	}
	return slot
}

// lookup returns the sentences that have term k, in order.
func (x *termSents) lookup(k uint64) []int32 {
	if len(x.keys) == 0 {
		return nil
	}
	if slot := x.slotOf(k); x.keys[slot] == k {
		return x.sents[x.off[slot]:x.off[slot+1]]
	}
	return nil
}

// over calls f with every term in more than lim sentences.
func (x *termSents) over(lim int32, f func(term uint64)) {
	for slot, k := range x.keys {
		if k != 0 && int32(x.off[slot+1]-x.off[slot]) > lim {
			f(k)
		}
	}
}
