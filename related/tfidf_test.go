package related

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/plagd/plagd/internal/testseed"
	"github.com/plagd/plagd/termstat"
)

func randomCounts(r *rand.Rand) []TermCount {
	var terms []string
	for range 1 + r.IntN(60) {
		terms = append(terms, string(rune('a'+r.IntN(26)))+string(rune('a'+r.IntN(26))))
	}
	return Count(terms, nil)
}

// randomArchive is 1 to most documents of random counts and their
// document frequencies.
func randomArchive(r *rand.Rand, most int) (*termstat.DocFreq, [][]TermCount) {
	df := termstat.NewDocFreq()
	var docs [][]TermCount
	for range 1 + r.IntN(most) {
		c := randomCounts(r)
		docs = append(docs, c)
		df.Add(c)
	}
	return df, docs
}

// A model stored and read back weighs alike. (That document frequencies
// kept document by document or by Delta equal a recount, and so give the
// same model, is termstat's TestIncrementalEqualsRecount.)
func TestModelStoredAndReadBack(t *testing.T) {
	r := testseed.Rand(t)
	for range 20 {
		df, docs := randomArchive(r, 60)
		m := NewModel(1, df, 0.5)
		tb, err := termstat.Decode(m.Docs, m.Encode())
		if err != nil {
			t.Fatal(err)
		}
		back := ModelFrom(1, tb, 0.5)
		for _, c := range docs {
			v, w := m.Vector(c), back.Vector(c)
			if !slices.Equal(v.Terms, w.Terms) || !slices.Equal(v.W, w.W) || v.Norm != w.Norm {
				t.Fatal("the model read back weighs differently")
			}
		}
	}
}

func TestModelWeights(t *testing.T) {
	df := termstat.NewDocFreq()
	for range 9 {
		df.Add(Count([]string{"common", "rare"}[:1], nil))
	}
	df.Add(Count([]string{"common", "rare"}, nil))
	m := NewModel(1, df, 0.5)
	if m.IDF(TermHash("common")) != 0 {
		t.Error("a term in every document must be dropped at MaxDFShare 0.5")
	}
	v := m.Vector(Count([]string{"common", "rare", "rare", "unseen"}, nil))
	if len(v.Terms) != 2 {
		t.Fatalf("vector %+v: want rare and unseen", v)
	}
	var ss float64
	for _, w := range v.W {
		ss += float64(w) * float64(w)
	}
	if ss < 0.9999 || ss > 1.0001 || !slices.IsSorted(v.Terms) {
		t.Fatalf("vector %+v not unit or not sorted", v)
	}
	if !NeedsRebuild(0, 5) || NeedsRebuild(100, 150) || !NeedsRebuild(100, 200) || !NeedsRebuild(100, 49) {
		t.Error("NeedsRebuild")
	}
}

// MaxTerms keeps the heaviest terms (ties: the lower term hash), scaled to
// unit length, in term order; a vector with no more terms than MaxTerms is
// the uncut one bit for bit. Checked against a reference that sorts the
// uncut vector's terms by weight.
func TestModelMaxTerms(t *testing.T) {
	r := testseed.Rand(t)
	for range 200 {
		df, docs := randomArchive(r, 40)
		all := NewModel(1, df, 0.5)
		cut := NewModel(1, df, 0.5)
		cut.MaxTerms = 1 + r.IntN(30)
		for _, c := range docs {
			full, v := all.Vector(c), cut.Vector(c)
			if len(full.Terms) <= cut.MaxTerms {
				if !slices.Equal(full.Terms, v.Terms) || !slices.Equal(full.W, v.W) || full.Norm != v.Norm {
					t.Fatalf("a vector of %d terms under MaxTerms %d changed", len(full.Terms), cut.MaxTerms)
				}
				continue
			}
			// The reference: the uncut vector's terms by weight, heaviest
			// first, ties to the lower hash; its first MaxTerms.
			order := make([]int, len(full.Terms))
			for i := range order {
				order[i] = i
			}
			slices.SortStableFunc(order, func(a, b int) int {
				if full.W[a] != full.W[b] {
					if full.W[a] > full.W[b] {
						return -1
					}
					return 1
				}
				return 0 // stable: terms ascend, so the lower hash stays first
			})
			want := make([]uint64, 0, cut.MaxTerms)
			for _, i := range order[:cut.MaxTerms] {
				want = append(want, full.Terms[i])
			}
			slices.Sort(want)
			if !slices.Equal(v.Terms, want) {
				t.Fatalf("MaxTerms %d kept %v, want %v", cut.MaxTerms, v.Terms, want)
			}
			var ss float64
			for i, w := range v.W {
				ss += float64(w) * float64(w)
				j, _ := slices.BinarySearch(full.Terms, v.Terms[i])
				// The ratios of the kept weights stay those of the uncut vector.
				if ratio := float64(w) / float64(full.W[j]); ratio < 1 {
					t.Fatalf("weight of a kept term fell from %g to %g", full.W[j], w)
				} else if r0 := float64(v.W[0]) / float64(full.W[slices.Index(full.Terms, v.Terms[0])]); ratio/r0 < 0.9999 || ratio/r0 > 1.0001 {
					t.Fatalf("kept weights not scaled alike: %g against %g", ratio, r0)
				}
			}
			if ss < 0.9999 || ss > 1.0001 || v.Norm >= full.Norm {
				t.Fatalf("cut vector not unit (%g) or its norm %g not below the uncut %g", ss, v.Norm, full.Norm)
			}
		}
	}
}
