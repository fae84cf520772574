package report

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/plagd/plagd/internal/testseed"
	"github.com/plagd/plagd/internal/testtext"
	"github.com/plagd/plagd/invindex"
	"github.com/plagd/plagd/passage"
)

// filterCorpus is a document and its sources with copies in every place a
// filter cares about: plain text, quotations, block quotes and the
// bibliography, on both sides; sources get random similarities.
func filterCorpus(rng *rand.Rand, g *testtext.WordGen) (string, []SourceReport) {
	nsrc := 1 + rng.IntN(5)
	srcWords := make([][]string, nsrc)
	for i := range srcWords {
		srcWords[i] = strings.Fields(g.Words(fmt.Sprintf("s%d", i), 200+rng.IntN(200)))
	}
	piece := func() string {
		w := srcWords[rng.IntN(nsrc)]
		n := 16 + rng.IntN(40)
		at := rng.IntN(len(w) - n)
		return strings.Join(w[at:at+n], " ")
	}
	var b strings.Builder
	for k := 3 + rng.IntN(6); k > 0; k-- {
		b.WriteString(g.Words("e", 20+rng.IntN(80)))
		switch rng.IntN(4) {
		case 0:
			b.WriteString("\n\n" + piece() + ".\n\n")
		case 1:
			b.WriteString(" as was written, “" + piece() + "” and so ")
		case 2:
			b.WriteString("\n\n> " + piece() + "\n\n")
		case 3: // half quoted: the passage overlaps the quotation
			p := strings.Fields(piece())
			h := len(p) / 2
			b.WriteString(" " + strings.Join(p[:h], " ") + " “" + strings.Join(p[h:], " ") + "” ")
		}
	}
	b.WriteString(g.Words("e", 30) + "\n\nReferences\n" + piece() + "\n" + piece() + "\n")
	doc := b.String()
	// Sources quote the document back: their own exclusions matter too.
	dw := strings.Fields(doc)
	srcs := make([]SourceReport, nsrc)
	for i := range srcs {
		text := strings.Join(srcWords[i], " ")
		if rng.IntN(2) == 0 && len(dw) > 40 {
			at := rng.IntN(len(dw) - 30)
			text += " then “" + strings.Join(dw[at:at+25], " ") + "” ends"
		}
		if rng.IntN(3) == 0 {
			text += "\n\nBibliography\n" + strings.Join(srcWords[i][:30], " ")
		}
		srcs[i] = SourceReport{ID: int64(100 + i), Similarity: rng.Float64() * 0.3, Reverse: rng.Float64(), Shared: rng.IntN(50), Text: text}
	}
	return doc, srcs
}

// directReport is Build as it was before reports were filtered
// afterwards: exclusions applied while aligning. It is the reference that
// buildRaw + Filter must reproduce.
func directReport(p invindex.Params, text string, srcs []SourceReport, opt Options) Report {
	srcs = slices.Clone(srcs)
	rep := Report{Text: text, Sources: srcs}
	doc := NewDoc(invindex.NewTokenizer(p), text, opt.Align)
	rep.Excluded = passage.ExcludedRanges(text, opt.Exclusions)
	tok := invindex.NewTokenizer(p)
	for i := range srcs {
		s := &srcs[i]
		src := NewDoc(tok, s.Text, opt.Align)
		var kept []passage.Passage
		var as, bs []passage.Range
		for _, pg := range passage.Align(doc, src, alignOptions(opt.Align)) {
			if len(rep.Excluded) > 0 && len(passage.SubtractRanges([]passage.Range{pg.A()}, rep.Excluded)) == 0 {
				continue
			}
			kept = append(kept, pg)
			as, bs = append(as, pg.A()), append(bs, pg.B())
		}
		s.Passages = kept
		if s.Passages == nil {
			s.Passages = []passage.Passage{}
		}
		s.CoverageA = doc.Coverage(as, rep.Excluded)
		s.CoverageB = src.Coverage(bs, passage.ExcludedRanges(s.Text, opt.Exclusions))
	}
	var all []passage.Range
	for _, s := range srcs {
		for _, pg := range s.Passages {
			all = append(all, pg.A())
		}
	}
	rep.Coverage = doc.Coverage(all, rep.Excluded)
	return rep
}

// visible is a report without its cached text information, for comparing.
func visible(r Report) Report {
	r.info = nil
	r.Sources = slices.Clone(r.Sources)
	for i := range r.Sources {
		r.Sources[i].info = nil
	}
	return r
}

func sameReport(t *testing.T, what string, got, want Report) {
	t.Helper()
	g, w := visible(got), visible(want)
	if len(g.Sources) == 0 {
		g.Sources = nil
	}
	if len(w.Sources) == 0 {
		w.Sources = nil
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("%s:\n got %+v\nwant %+v", what, g, w)
	}
}

// deepCopy copies every slice of r, to check that Filter leaves r alone.
func deepCopy(r Report) Report {
	r = visible(r)
	r.Excluded = slices.Clone(r.Excluded)
	for i := range r.Sources {
		r.Sources[i].Passages = slices.Clone(r.Sources[i].Passages)
	}
	return r
}

func randomExclusions(rng *rand.Rand) passage.Exclusions {
	return passage.Exclusions{Quotes: rng.IntN(2) == 0, Bibliography: rng.IntN(2) == 0, BlockQuotes: rng.IntN(2) == 0}
}

func randomFilter(rng *rand.Rand, srcs []SourceReport) Filter {
	f := Filter{Exclusions: randomExclusions(rng)}
	if rng.IntN(2) == 0 {
		f.MinSimilarity = rng.Float64() * 0.3
	}
	for _, s := range srcs {
		if rng.IntN(4) == 0 {
			f.ExcludeSources = append(f.ExcludeSources, s.ID)
		}
	}
	return f
}

// applyDirect is what a filter means, on a report built with its
// exclusions: the sources it leaves out removed, the overall coverage of
// the others.
func applyDirect(rep Report, f Filter) Report {
	var keep []SourceReport
	var all []passage.Range
	for _, s := range rep.Sources {
		if s.Similarity < f.MinSimilarity || slices.Contains(f.ExcludeSources, s.ID) {
			continue
		}
		keep = append(keep, s)
		for _, p := range s.Passages {
			all = append(all, p.A())
		}
	}
	rep.Sources = keep
	rep.Coverage = passage.Coverage(rep.Text, all, rep.Excluded)
	return rep
}

// TestReportFilter_EqualsDirect: for random texts with quotations, block
// quotes and bibliographies on both sides, filtering the raw report equals
// aligning with the exclusions applied, for every filter; filtering leaves
// the raw report untouched, is idempotent and composes.
func TestReportFilter_EqualsDirect(t *testing.T) {
	seed := testseed.Seed(t)
	rng := rand.New(rand.NewPCG(seed, 21))
	g := testtext.NewWordGen(seed)
	p := invindex.DefaultParams()
	ctx := context.Background()
	for iter := 0; iter < 40; iter++ {
		text, srcs := filterCorpus(rng, g)
		raw := buildRaw(ctx, p, text, slices.Clone(srcs), Options{})
		before := deepCopy(raw)
		found := 0
		for _, s := range raw.Sources {
			found += len(s.Passages)
		}
		if found == 0 {
			t.Fatalf("iteration %d: no passage found at all", iter)
		}
		// Build (what daemon's Passages and CheckText use) with zero
		// exclusions is the raw report.
		sameReport(t, "Build without exclusions", Build(ctx, p, text, slices.Clone(srcs), Options{}),
			directReport(p, text, srcs, Options{}))
		// The Docs a caller keeps (the similarity index's cache) change
		// nothing: the document's own and its sources'.
		given := Options{TextDoc: NewDoc(invindex.NewTokenizer(p), text, passage.Options{}),
			SourceDoc: func(_ int64, t string) *passage.Doc { return NewDoc(invindex.NewTokenizer(p), t, passage.Options{}) }}
		sameReport(t, "Build with the caller's Docs", Build(ctx, p, text, slices.Clone(srcs), given),
			directReport(p, text, srcs, Options{}))
		for k := 0; k < 8; k++ {
			f := randomFilter(rng, srcs)
			direct := directReport(p, text, srcs, Options{Exclusions: f.Exclusions})
			got := raw.Filter(f)
			sameReport(t, fmt.Sprintf("iteration %d, filter %+v", iter, f), got, applyDirect(direct, f))
			sameReport(t, "Build", Build(ctx, p, text, slices.Clone(srcs), Options{Exclusions: f.Exclusions}), direct)
			sameReport(t, "raw report after filtering", raw, before)
			sameReport(t, "filter twice", got.Filter(f), got)

			// Composition: a second filter whose exclusions include the first's.
			g2 := randomFilter(rng, srcs)
			g2.Exclusions.Quotes = g2.Exclusions.Quotes || f.Exclusions.Quotes
			g2.Exclusions.Bibliography = g2.Exclusions.Bibliography || f.Exclusions.Bibliography
			g2.Exclusions.BlockQuotes = g2.Exclusions.BlockQuotes || f.Exclusions.BlockQuotes
			both := Filter{MinSimilarity: max(f.MinSimilarity, g2.MinSimilarity),
				ExcludeSources: append(slices.Clone(f.ExcludeSources), g2.ExcludeSources...), Exclusions: g2.Exclusions}
			sameReport(t, "composed filters", got.Filter(g2), raw.Filter(both))
		}
	}
}

// TestReportFilter_ExcludeSource: leaving a source out lowers the overall
// coverage exactly to the union of the other sources' passages.
func TestReportFilter_ExcludeSource(t *testing.T) {
	g := testtext.NewWordGen(7)
	s1, s2 := strings.Fields(g.Words("a", 200)), strings.Fields(g.Words("b", 200))
	c1, c2 := strings.Join(s1[20:80], " "), strings.Join(s2[50:90], " ")
	// The two copies lie side by side in the document.
	text := g.Words("e", 100) + "\n\n" + c1 + " " + c2 + "\n\n" + g.Words("e", 100)
	srcs := []SourceReport{
		{ID: 1, Similarity: 0.2, Text: strings.Join(s1, " ")},
		{ID: 2, Similarity: 0.1, Text: strings.Join(s2, " ")},
	}
	raw := buildRaw(context.Background(), invindex.DefaultParams(), text, srcs, Options{})
	all := raw.Filter(Filter{})
	i1, i2 := strings.Index(text, c1), strings.Index(text, c2)
	r1 := passage.Range{Start: i1, End: i1 + len(c1)}
	r2 := passage.Range{Start: i2, End: i2 + len(c2)}
	if want := passage.Coverage(text, []passage.Range{r1, r2}, nil); all.Coverage != want || len(all.Sources) != 2 {
		t.Fatalf("both sources: coverage %v, want %v; sources %+v", all.Coverage, want, all.Sources)
	}
	only2 := raw.Filter(Filter{ExcludeSources: []int64{1}})
	if want := passage.Coverage(text, []passage.Range{r2}, nil); only2.Coverage != want || len(only2.Sources) != 1 || only2.Sources[0].ID != 2 {
		t.Fatalf("source 1 excluded: coverage %v, want %v; sources %+v", only2.Coverage, want, only2.Sources)
	}
	if only2.Coverage >= all.Coverage || only2.Sources[0].CoverageA != all.Sources[1].CoverageA {
		t.Fatalf("excluding a source: overall %v -> %v, the other's own coverage %v -> %v",
			all.Coverage, only2.Coverage, all.Sources[1].CoverageA, only2.Sources[0].CoverageA)
	}
	none := raw.Filter(Filter{ExcludeSources: []int64{1, 2}})
	if none.Coverage != 0 || len(none.Sources) != 0 || none.Sources == nil {
		t.Fatalf("all excluded: %+v", none)
	}
}

// TestReportFilter_MinSimilarity drops exactly the sources below the
// minimum (a source at the minimum stays), keeping the rank order.
func TestReportFilter_MinSimilarity(t *testing.T) {
	rep := Report{Text: "x", Sources: []SourceReport{
		{ID: 5, Similarity: 0.30}, {ID: 3, Similarity: 0.05}, {ID: 9, Similarity: 0.049}, {ID: 4, Similarity: 0.10},
	}}
	ids := func(r Report) []int64 {
		var out []int64
		for _, s := range r.Sources {
			out = append(out, s.ID)
		}
		return out
	}
	for _, c := range []struct {
		min  float64
		want []int64
	}{{0, []int64{5, 3, 9, 4}}, {5.0 / 100, []int64{5, 3, 4}}, {0.1, []int64{5, 4}}, {0.31, nil}} {
		if got := ids(rep.Filter(Filter{MinSimilarity: c.min})); !slices.Equal(got, c.want) {
			t.Errorf("min %v: sources %v, want %v", c.min, got, c.want)
		}
	}
	if got := ids(rep.Filter(Filter{MinSimilarity: 0.05, ExcludeSources: []int64{5}})); !slices.Equal(got, []int64{3, 4}) {
		t.Errorf("min 5 %% and source 5 excluded: %v", got)
	}
}

// TestInside: inside agrees with SubtractRanges on random ranges.
func TestInside(t *testing.T) {
	rng := rand.New(rand.NewPCG(testseed.Seed(t), 3))
	for i := 0; i < 20000; i++ {
		var ex []passage.Range
		for k := rng.IntN(6); k > 0; k-- {
			s := rng.IntN(60)
			ex = append(ex, passage.Range{Start: s, End: s + rng.IntN(15)})
		}
		ex = passage.UnionRanges(ex)
		s := rng.IntN(70)
		r := passage.Range{Start: s, End: s + rng.IntN(12)}
		want := len(ex) > 0 && len(passage.SubtractRanges([]passage.Range{r}, ex)) == 0
		if got := inside(r, ex); got != want {
			t.Fatalf("inside(%v, %v) = %v, want %v", r, ex, got, want)
		}
	}
}

// TestReportFilter_MinWords: passages shorter than the minimum (in the
// document's words) leave the figures and the list of passages; the
// source stays; the figure only falls as the minimum rises.
func TestReportFilter_MinWords(t *testing.T) {
	g := testtext.NewWordGen(9)
	s1, s2 := strings.Fields(g.Words("a", 200)), strings.Fields(g.Words("b", 200))
	long, short := strings.Join(s1[20:80], " "), strings.Join(s2[50:70], " ") // 60 and 20 words
	text := g.Words("e", 100) + "\n\n" + long + "\n\n" + g.Words("e", 100) + "\n\n" + short + "\n\n" + g.Words("e", 50)
	srcs := []SourceReport{
		{ID: 1, Similarity: 0.2, Text: strings.Join(s1, " ")},
		{ID: 2, Similarity: 0.1, Text: strings.Join(s2, " ")},
	}
	raw := buildRaw(context.Background(), invindex.DefaultParams(), text, srcs, Options{})
	prev := 2.0
	for _, c := range []struct{ min, p1, p2 int }{{0, 1, 1}, {20, 1, 1}, {21, 1, 0}, {60, 1, 0}, {61, 0, 0}} {
		rep := raw.Filter(Filter{MinWords: c.min})
		if len(rep.Sources) != 2 || len(rep.Sources[0].Passages) != c.p1 || len(rep.Sources[1].Passages) != c.p2 {
			t.Fatalf("min %d words: sources %d, passages %d and %d; want 2, %d and %d", c.min, len(rep.Sources),
				len(rep.Sources[0].Passages), len(rep.Sources[1].Passages), c.p1, c.p2)
		}
		if rep.Coverage > prev {
			t.Fatalf("min %d words: coverage rose to %v from %v", c.min, rep.Coverage, prev)
		}
		if c.p2 == 0 && rep.Sources[1].CoverageA != 0 {
			t.Fatalf("min %d words: a source with no passage left covers %v", c.min, rep.Sources[1].CoverageA)
		}
		prev = rep.Coverage
	}
}
