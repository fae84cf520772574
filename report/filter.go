package report

import (
	"slices"

	"github.com/plagd/plagd/passage"
)

// Filter is what a teacher's filters change; applying it needs no new
// alignment (Report.Filter).
type Filter struct {
	// MinSimilarity leaves out the sources whose similarity (document →
	// source) is below it; 0 keeps all.
	MinSimilarity float64 `json:"min_similarity"`
	// ExcludeSources are left out (documents.id).
	ExcludeSources []int64 `json:"exclude_sources"`
	// MinWords leaves out passages shorter than this many words in the
	// document (the commercial tools' "exclude small matches"); 0 keeps
	// all. A source left with no passage stays listed, not counted.
	MinWords int `json:"min_words,omitempty"`
	// Exclusions leave quotations, block quotes, the bibliography and
	// common text out of the figures (see Options.Exclusions).
	Exclusions passage.Exclusions `json:"exclusions"`
}

// Filter returns the report as the filter f shows it, without aligning
// again: the sources f leaves out are dropped (the others keep their rank
// order), the passages lying wholly inside the document's excluded text
// are dropped, CoverageA and CoverageB of each source and the overall
// Coverage are recomputed with the exclusions, and Excluded is set to the
// document's excluded ranges. r is not modified: the result shares no
// slice r could see change.
//
// Filter is meant for a raw report, one built without exclusions (Build
// with zero Options.Exclusions, as daemon's Passages and CheckText pass
// it on): then
//
//	raw.Filter(Filter{Exclusions: ex}) == Build(…, Options{Align: a, Exclusions: ex})
//
// for the same alignment options a. Applied to a filtered report it can
// only narrow further: passages an earlier filter dropped as excluded
// text do not come back when a later one turns the exclusion off. For
// filters whose exclusions include those of the first,
// r.Filter(f).Filter(g) equals r.Filter of the two combined (the larger
// minimums, both lists of excluded sources, g's exclusions); in particular
// Filter is idempotent.
func (r Report) Filter(f Filter) Report {
	info := r.info
	if info == nil || info.text.Text != r.Text {
		info = newTextInfo(r.Text)
	}
	out := r
	out.info = info
	out.Excluded = info.excluded(f.Exclusions)
	if f.Exclusions.Common && len(r.Common) > 0 {
		out.Excluded = passage.UnionRanges(append(passage.CommonSpans(r.Common), out.Excluded...))
	}
	out.Sources = make([]SourceReport, 0, len(r.Sources))
	var all []passage.Range
	for _, s := range r.Sources {
		if s.Similarity < f.MinSimilarity || slices.Contains(f.ExcludeSources, s.ID) {
			continue
		}
		sinfo := s.info
		if sinfo == nil || sinfo.text.Text != s.Text {
			sinfo = newTextInfo(s.Text)
		}
		s.info = sinfo
		kept := make([]passage.Passage, 0, len(s.Passages))
		var as, bs []passage.Range
		for _, pg := range s.Passages {
			if inside(pg.A(), out.Excluded) {
				continue // a quotation or the bibliography: not evidence
			}
			if pg.AWords < f.MinWords {
				continue // a match too small to count, as the teacher asks
			}
			kept = append(kept, pg)
			as, bs = append(as, pg.A()), append(bs, pg.B())
		}
		s.Passages = kept
		s.CoverageA = info.text.Coverage(as, out.Excluded)
		s.CoverageB = sinfo.text.Coverage(bs, sinfo.excluded(f.Exclusions))
		all = append(all, as...)
		out.Sources = append(out.Sources, s)
	}
	out.Coverage = info.text.Coverage(all, out.Excluded)
	return out
}

// textInfo is what Filter needs of a text besides its passages, found once
// when a raw report is built, so that a filter change costs a pass over
// ranges rather than over the texts: the candidate exclusions of each kind,
// and the text's rune count (held by a passage.Doc that has only its
// text, whose Coverage computes the count once).
type textInfo struct {
	quotes, blocks, bib []passage.Range
	text                *passage.Doc
}

func newTextInfo(text string) *textInfo {
	t := &textInfo{
		quotes: passage.QuoteRanges(text),
		blocks: passage.BlockQuoteRanges(text),
		text:   &passage.Doc{Text: text},
	}
	if r, ok := passage.BibliographyRange(text); ok {
		t.bib = []passage.Range{r}
	}
	return t
}

// excluded is passage.ExcludedRanges(text, ex), from the ranges found once.
func (t *textInfo) excluded(ex passage.Exclusions) []passage.Range {
	var rs []passage.Range
	if ex.Quotes {
		rs = append(rs, t.quotes...)
	}
	if ex.BlockQuotes {
		rs = append(rs, t.blocks...)
	}
	if ex.Bibliography {
		rs = append(rs, t.bib...)
	}
	return passage.UnionRanges(rs)
}

// inside tells whether r lies wholly inside the union of ex, which is
// sorted, disjoint and non-adjacent (passage.UnionRanges): then r lies
// inside one of them. As passage.SubtractRanges has it, an empty r lies
// inside any non-empty ex.
func inside(r passage.Range, ex []passage.Range) bool {
	if len(ex) == 0 {
		return false
	}
	if r.Len() == 0 {
		return true
	}
	i, _ := slices.BinarySearchFunc(ex, r.Start, func(x passage.Range, start int) int {
		if x.End <= start {
			return -1
		}
		return 1
	})
	return i < len(ex) && ex[i].Start <= r.Start && r.End <= ex[i].End
}
