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

// A model stored and read back weighs alike. (That document frequencies
// kept document by document or by Delta equal a recount, and so give the
// same model, is termstat's TestIncrementalEqualsRecount.)
func TestModelStoredAndReadBack(t *testing.T) {
	r := testseed.Rand(t)
	for range 20 {
		df := termstat.NewDocFreq()
		var docs [][]TermCount
		for range 1 + r.IntN(60) {
			c := randomCounts(r)
			docs = append(docs, c)
			df.Add(c)
		}
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
