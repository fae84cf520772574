package invindex

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"

	"github.com/plagd/plagd/internal/hugepage"
)

// SplitRange splits the chunk-ID space [0, space) into k contiguous ranges
// of equal size (the first ones one smaller when space is not a multiple of
// k) and returns the k+1 bounds: range i is [b[i], b[i+1]), with
// b[i] = floor(space*i/k).
//
// This function is stable forever: the bounds decide which node owns which
// chunk IDs and are implied by every cached slice file, so changing it
// silently would mix postings across nodes. TestSplitRangePinned pins it.
func SplitRange(space uint64, k int) []uint64 {
	if k < 1 {
		panic(fmt.Sprintf("invindex: SplitRange into %d ranges", k))
	}
	b := make([]uint64, k+1)
	for i := range b {
		hi, lo := bits.Mul64(space, uint64(i))
		b[i], _ = bits.Div64(hi, lo, uint64(k))
	}
	return b
}

// Reslice re-splits slices covering a contiguous space into slices with the
// given boundaries (bounds[0] = lo ... bounds[len-1] = hi), used when the
// node count changes. parts may come in any order but must not overlap;
// postings outside [bounds[0], bounds[len-1]) are dropped. Each output is
// sized exactly and built by copying whole runs of keys and doc IDs, since
// both are already sorted: no re-sorting.
func Reslice(parts []*Slice, bounds []uint64) []*Slice {
	if len(bounds) < 2 {
		panic("invindex: Reslice needs at least two bounds")
	}
	for i := 1; i < len(bounds); i++ {
		checkRange(bounds[i-1], bounds[i])
	}
	ps := slices.Clone(parts)
	slices.SortFunc(ps, func(a, b *Slice) int { return cmp.Compare(a.lo, b.lo) })
	for i := 1; i < len(ps); i++ {
		if ps[i].lo < ps[i-1].hi {
			panic(fmt.Sprintf("invindex: Reslice parts overlap: [%d, %d) and [%d, %d)", ps[i-1].lo, ps[i-1].hi, ps[i].lo, ps[i].hi))
		}
	}
	out := make([]*Slice, len(bounds)-1)
	for i := range out {
		out[i] = cut(ps, bounds[i], bounds[i+1])
	}
	return out
}

// cut builds the slice over [lo, hi) from the sorted, disjoint parts.
func cut(parts []*Slice, lo, hi uint64) *Slice {
	type span struct {
		p    *Slice
		a, b int // key index range
	}
	var spans []span
	nk, np := 0, 0
	for _, p := range parts {
		if p.hi <= lo || p.lo >= hi || len(p.keys) == 0 {
			continue
		}
		a, b := 0, len(p.keys)
		if lo > p.lo {
			a = lowerBound(p.keys, uint32(lo))
		}
		if hi < p.hi {
			b = lowerBound(p.keys, uint32(hi))
		}
		if a < b {
			spans = append(spans, span{p, a, b})
			nk += b - a
			np += int(p.offs[b] - p.offs[a])
		}
	}
	s := &Slice{lo: lo, hi: hi, keys: hugepage.Make[uint32](nk), offs: hugepage.Make[uint32](nk + 1), docs: hugepage.Make[Posting](np)}
	k, n := 0, 0
	for _, sp := range spans {
		p := sp.p
		copy(s.keys[k:], p.keys[sp.a:sp.b])
		shift := uint32(n) - p.offs[sp.a]
		for q := sp.a; q < sp.b; q++ {
			s.offs[k] = p.offs[q] + shift
			k++
		}
		n += copy(s.docs[n:], p.docs[p.offs[sp.a]:p.offs[sp.b]])
	}
	s.offs[nk] = uint32(n)
	s.finish()
	return s
}
