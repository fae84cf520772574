package passage

import (
	"cmp"
	"slices"
)

// summaryRatio is how much longer, in words, one text's side of two
// passages must be than the other's for joinSummaries to take them for
// pieces of one summary.
const summaryRatio = 1.5

// joinSummaries joins consecutive passages that are pieces of one summary
// (or expansion) of a passage: in the same order in both texts, at most
// gap words apart in the shorter text, while in the longer text, at least
// summaryRatio times longer in total, the skipped words are no more than
// the pieces hold. A writer who summarises keeps a sentence here and there
// of the source and skips the rest, so the source side of the pieces lies
// further apart than the gap rule of clustering allows, while their other
// side stays close. Two copies of distant parts of a source stay apart:
// what lies between them there outweighs them.
func joinSummaries(ps []wpass, gap int) []wpass {
	if len(ps) < 2 {
		return ps
	}
	slices.SortFunc(ps, func(x, y wpass) int {
		return cmp.Or(cmp.Compare(x.a0, y.a0), cmp.Compare(x.b0, y.b0), cmp.Compare(x.a1, y.a1), cmp.Compare(x.b1, y.b1))
	})
	out := ps[:1]
	for _, y := range ps[1:] {
		x := &out[len(out)-1]
		if !summaryPieces(x, &y, gap) {
			out = append(out, y)
			continue
		}
		x.a1, x.b1 = max(x.a1, y.a1), max(x.b1, y.b1)
		x.seeds = append(slices.Clip(x.seeds), y.seeds...)
		x.shared = distinctA(x.seeds)
	}
	return out
}

// summaryPieces reports whether x and y, x first in a, are pieces of one
// summary (see joinSummaries).
func summaryPieces(x, y *wpass, gap int) bool {
	if y.a0 < x.a1 || y.b0 < x.b1 { // overlapping, or not in the same order
		return false
	}
	la, lb := (x.a1-x.a0)+(y.a1-y.a0), (x.b1-x.b0)+(y.b1-y.b0)
	ga, gb := y.a0-x.a1, y.b0-x.b1
	if la > lb { // a is the longer side: a expands or b summarises
		la, lb, ga, gb = lb, la, gb, ga
	}
	return ga <= gap && float64(lb) >= summaryRatio*float64(la) && gb <= lb
}
