package report

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/plagd/plagd/invindex"
)

// wordGen makes texts of made-up words, uniform over a large vocabulary,
// each text kind with its own first letter: texts share words only where
// a test copies them, so passages have exactly the expected ends.
type wordGen struct{ rng *rand.Rand }

func newWordGen(seed uint64) *wordGen { return &wordGen{rand.New(rand.NewPCG(seed, 5))} }

func (g *wordGen) words(prefix string, n int) string {
	const letters = "abcdefghijklmnoprstuvzčšžá"
	ls := []rune(letters)
	ws := make([]string, n)
	for i := range ws {
		w := []rune(prefix)
		for k := 2 + g.rng.IntN(6); k > 0; k-- {
			w = append(w, ls[g.rng.IntN(len(ls))])
		}
		ws[i] = string(w)
	}
	return strings.Join(ws, " ")
}

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
			g := newWordGen(1)
			doc := strings.Fields(g.words("", c.docWords))
			srcs := make([]SourceReport, 100)
			for i := range srcs {
				s := strings.Fields(g.words("", c.srcLen))
				if i%4 == 0 {
					for k := 0; k < 4; k++ {
						n := 40 + g.rng.IntN(81)
						from, at := g.rng.IntN(len(doc)-n), g.rng.IntN(len(s)-n)
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
