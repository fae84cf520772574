package report

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/plagd/plagd/internal/testtext"
	"github.com/plagd/plagd/invindex"
)

// BenchmarkBuild is the CPU part of a passage report (tokenising the
// document and its 100 sources, aligning, exclusions, coverage) with the
// workers Build runs, for an essay and a thesis; every fourth source
// holds four passages of the document.
func BenchmarkBuild(b *testing.B) {
	for _, c := range []struct {
		name             string
		docWords, srcLen int
	}{{"essay", 3000, 3000}, {"thesis", 100_000, 20_000}} {
		b.Run(c.name, func(b *testing.B) {
			g := testtext.NewWordGen(1)
			doc := strings.Fields(g.Words("", c.docWords))
			srcs := make([]SourceReport, 100)
			for i := range srcs {
				s := strings.Fields(g.Words("", c.srcLen))
				if i%4 == 0 {
					for k := 0; k < 4; k++ {
						n := 40 + g.IntN(81)
						from, at := g.IntN(len(doc)-n), g.IntN(len(s)-n)
						copy(s[at:at+n], doc[from:from+n])
					}
				}
				srcs[i].Text = strings.Join(s, " ")
			}
			text := strings.Join(doc, " ")
			b.ReportAllocs()
			for b.Loop() {
				rep := Build(context.Background(), invindex.DefaultParams(), text, slices.Clone(srcs), DefaultOptions())
				if rep.Coverage == 0 {
					b.Fatal("nothing found")
				}
			}
		})
	}
}
