package termstat

import (
	"cmp"
	"math/bits"
	"slices"
)

// SortByTerm sorts distinct term counts by term, ascending, as
// slices.SortFunc with cmp.Compare on Term would, about four times faster
// on a document's few hundred to few thousand terms. Terms are hashes,
// spread evenly over 64 bits, so one pass puts each in one of about n/2
// buckets by its top bits (an American flag sort: counted, then moved in
// place along cycles), and each bucket, of a term or two on average, is
// sorted by insertion. A larger bucket (terms chosen to share their top
// bits) goes to slices.SortFunc, so the cost stays O(n log n) whatever the
// terms. Equal terms may come out in any order.
func SortByTerm(tc []TermCount) {
	n := len(tc)
	if n < 64 {
		insertionByTerm(tc)
		return
	}
	k := min(bits.Len(uint(n))-1, maxBucketBits)
	shift := 64 - k
	var next, end [1 << maxBucketBits]int32
	for i := range tc {
		end[tc[i].Term>>shift]++
	}
	var at int32
	for b := range 1 << k {
		next[b] = at
		at += end[b]
		end[b] = at
	}
	for b := range 1 << k {
		for next[b] < end[b] {
			x := tc[next[b]]
			d := int(x.Term >> shift)
			for d != b { // follow the cycle: x's place holds the next one to move
				x, tc[next[d]] = tc[next[d]], x
				next[d]++
				d = int(x.Term >> shift)
			}
			tc[next[b]] = x
			next[b]++
		}
	}
	lo := 0
	for b := range 1 << k {
		hi := int(end[b])
		insertionByTerm(tc[lo:hi])
		lo = hi
	}
}

// maxBucketBits bounds SortByTerm's buckets (2^11, 16 KiB of counters on
// the stack): past 4,096 terms the buckets grow, and insertion sort stays
// short in them.
const maxBucketBits = 11

// insertionByTerm sorts a few terms by insertion, more with
// slices.SortFunc.
func insertionByTerm(tc []TermCount) {
	if len(tc) > 32 {
		slices.SortFunc(tc, func(x, y TermCount) int { return cmp.Compare(x.Term, y.Term) })
		return
	}
	for i := 1; i < len(tc); i++ {
		x := tc[i]
		j := i
		for ; j > 0 && tc[j-1].Term > x.Term; j-- {
			tc[j] = tc[j-1]
		}
		tc[j] = x
	}
}
