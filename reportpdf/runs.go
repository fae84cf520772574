package reportpdf

import (
	"slices"

	"github.com/plagd/plagd/passage"
	"github.com/plagd/plagd/report"
)

// rgb is a colour.
type rgb struct{ r, g, b uint8 }

// The page's colours.
var (
	ink    = rgb{0x1f, 0x23, 0x28}
	grey   = rgb{0x6a, 0x73, 0x7d}
	rule   = rgb{0xc8, 0xcd, 0xd2}
	accent = rgb{0x9a, 0x2b, 0x1e}
)

// sourceColor is a source's colour: a light background for its passages
// and a darker one for its number and name.
type sourceColor struct{ fill, text rgb }

// palette follows the web page's source colours; sources beyond it reuse
// them in turn (the number at each passage tells them apart).
var palette = []sourceColor{
	{rgb{0xff, 0xe0, 0x8a}, rgb{0x8a, 0x5a, 0x00}},
	{rgb{0xb9, 0xe3, 0xff}, rgb{0x0b, 0x5c, 0x96}},
	{rgb{0xc9, 0xf2, 0xc0}, rgb{0x2d, 0x6e, 0x1f}},
	{rgb{0xff, 0xcc, 0xd5}, rgb{0xa1, 0x22, 0x3c}},
	{rgb{0xe2, 0xd4, 0xff}, rgb{0x5b, 0x35, 0xa8}},
	{rgb{0xff, 0xd8, 0xb8}, rgb{0x9c, 0x48, 0x0b}},
	{rgb{0xc7, 0xf0, 0xec}, rgb{0x13, 0x6b, 0x63}},
	{rgb{0xf0, 0xd9, 0xc0}, rgb{0x6e, 0x4b, 0x25}},
}

func colorOf(rank int) sourceColor { return palette[rank%len(palette)] }

// run is a stretch of the document's text set alike: in a passage of the
// source of rank source (-1: none; where passages of several sources
// overlap, the best-ranked), in excluded text or not, and whether a
// passage starts at it (its number goes before it).
type run struct {
	r        passage.Range
	source   int
	excluded bool
	starts   bool
}

// runs cuts the document's text at every start and end of a passage and of
// an excluded range.
func runs(rep report.Report) []run {
	text := rep.Text
	cuts := []int{0, len(text)}
	type span struct {
		r    passage.Range
		rank int
	}
	var spans []span
	clipR := func(r passage.Range) passage.Range {
		return passage.Range{Start: min(max(r.Start, 0), len(text)), End: min(max(r.End, 0), len(text))}
	}
	for i, s := range rep.Sources {
		for _, p := range s.Passages {
			r := clipR(p.A())
			spans = append(spans, span{r, i})
			cuts = append(cuts, r.Start, r.End)
		}
	}
	for _, r := range rep.Excluded {
		r = clipR(r)
		cuts = append(cuts, r.Start, r.End)
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	var out []run
	for k := 0; k+1 < len(cuts); k++ {
		from, to := cuts[k], cuts[k+1]
		ru := run{r: passage.Range{Start: from, End: to}, source: -1}
		for _, sp := range spans {
			if sp.r.Start <= from && to <= sp.r.End && (ru.source < 0 || sp.rank < ru.source) {
				ru.source = sp.rank
				ru.starts = sp.r.Start == from
			}
		}
		for _, r := range rep.Excluded {
			if r.Start <= from && to <= r.End {
				ru.excluded = true
			}
		}
		out = append(out, ru)
	}
	return out
}
