package passage

import (
	"cmp"
	"slices"
	"unicode/utf8"
)

// Range is a byte range [Start, End) of a text.
type Range struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Len is End-Start, or 0 for an empty or inverted range.
func (r Range) Len() int { return max(r.End-r.Start, 0) }

// UnionRanges returns the union of rs as sorted, disjoint, non-adjacent
// ranges (touching ranges are joined; empty ones dropped). rs is not
// modified.
func UnionRanges(rs []Range) []Range {
	out := make([]Range, 0, len(rs))
	for _, r := range rs {
		if r.End > r.Start {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(x, y Range) int { return cmp.Or(cmp.Compare(x.Start, y.Start), cmp.Compare(x.End, y.End)) })
	n := 0
	for _, r := range out {
		if n > 0 && r.Start <= out[n-1].End {
			out[n-1].End = max(out[n-1].End, r.End)
			continue
		}
		out[n] = r
		n++
	}
	return out[:n]
}

// SubtractRanges returns the parts of rs not in minus, as sorted disjoint
// ranges. Neither input needs to be sorted or disjoint.
func SubtractRanges(rs, minus []Range) []Range {
	a, b := UnionRanges(rs), UnionRanges(minus)
	var out []Range
	j := 0
	for _, r := range a {
		start := r.Start
		for j < len(b) && b[j].End <= start {
			j++
		}
		for k := j; k < len(b) && b[k].Start < r.End; k++ {
			if b[k].Start > start {
				out = append(out, Range{start, b[k].Start})
			}
			start = max(start, b[k].End)
		}
		if start < r.End {
			out = append(out, Range{start, r.End})
		}
	}
	return out
}

// Coverage is the share of text's characters that lie in the union of
// ranges and outside the excluded ones: the figure a report shows as "x %
// of the document matches". Characters are runes (Unicode code points, as
// PAN's offsets count them), not bytes, so that Czech text is not weighed
// by its UTF-8 encoding; each is counted once however many ranges cover
// it, and all of them count, spaces and punctuation included. Ranges are
// byte offsets into text on rune boundaries (as Passage and QuoteRanges
// offsets are), clipped to the text.
//
//	Coverage = runes(union(ranges) − union(excluded)) / runes(text)
//
// The whole text is the denominator, so that an exclusion can only lower
// the figure: with excluded text left out of the denominator as well,
// excluding a bibliography with few matches once raised a report from
// 53.7 % to 57.6 %. It is 0 for an empty text.
func Coverage(text string, ranges, excluded []Range) float64 {
	return coverage(text, utf8.RuneCountInString(text), ranges, excluded)
}

// coverage is Coverage given the rune count of text.
func coverage(text string, runes int, ranges, excluded []Range) float64 {
	clip := func(rs []Range) []Range {
		out := make([]Range, 0, len(rs))
		for _, r := range rs {
			r.Start, r.End = max(r.Start, 0), min(r.End, len(text))
			if r.End > r.Start {
				out = append(out, r)
			}
		}
		return out
	}
	if runes <= 0 {
		return 0
	}
	ex := UnionRanges(clip(excluded))
	covered := countRunes(text, SubtractRanges(clip(ranges), ex))
	return float64(covered) / float64(runes)
}

// countRunes counts the runes of text in disjoint ranges within it.
func countRunes(text string, rs []Range) int {
	n := 0
	for _, r := range rs {
		n += utf8.RuneCountInString(text[r.Start:r.End])
	}
	return n
}

// RuneOffsets converts byte offsets into text to rune (character) offsets,
// in place, in one pass over text: PAN's XML and most user interfaces
// count characters. offs may be in any order; an offset inside a UTF-8
// sequence maps to the rune it belongs to, offsets past the end to the
// rune count.
func RuneOffsets(text string, offs []int) {
	if len(offs) == 0 {
		return
	}
	order := make([]int, len(offs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int { return cmp.Compare(offs[x], offs[y]) })
	runes, pos := 0, 0
	for _, i := range order {
		target := min(max(offs[i], 0), len(text))
		for pos < target {
			_, size := utf8.DecodeRuneInString(text[pos:])
			if pos+size > target {
				break
			}
			pos += size
			runes++
		}
		offs[i] = runes
	}
}
