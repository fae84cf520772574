package related

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/plagd/plagd/internal/testseed"
)

func randomCounts(r *rand.Rand) []TermCount {
	var terms []string
	for range 1 + r.IntN(60) {
		terms = append(terms, string(rune('a'+r.IntN(26)))+string(rune('a'+r.IntN(26))))
	}
	return Count(terms, nil)
}

// Documents added, removed and changed one by one, or as a Delta, give the
// document frequencies of a rebuild from the final archive, and so the same
// model and vectors.
func TestIncrementalDFEqualsRebuild(t *testing.T) {
	r := testseed.Rand(t)
	docs := map[int][]TermCount{}
	inc := NewDocFreq()
	batched := NewDocFreq()
	next := 0
	for round := range 20 {
		delta := NewDelta()
		for range 1 + r.IntN(30) {
			switch op := r.IntN(4); {
			case op < 2 || len(docs) == 0: // add
				c := randomCounts(r)
				docs[next] = c
				next++
				inc.Add(c)
				delta.Add(c)
			case op == 2: // remove
				ids := slices.Sorted(maps.Keys(docs))
				id := ids[r.IntN(len(ids))]
				inc.Remove(docs[id])
				delta.Remove(docs[id])
				delete(docs, id)
			default: // change
				ids := slices.Sorted(maps.Keys(docs))
				id := ids[r.IntN(len(ids))]
				c := randomCounts(r)
				inc.Remove(docs[id])
				delta.Remove(docs[id])
				inc.Add(c)
				delta.Add(c)
				docs[id] = c
			}
		}
		batched.Apply(delta)
		full := NewDocFreq()
		for _, c := range docs {
			full.Add(c)
		}
		for name, d := range map[string]*DocFreq{"one by one": inc, "delta": batched} {
			if d.Docs != full.Docs || !maps.Equal(d.DF, full.DF) {
				t.Fatalf("round %d, %s: %d docs %d terms, rebuild %d docs %d terms", round, name, d.Docs, len(d.DF), full.Docs, len(full.DF))
			}
		}
		m1, m2 := NewModel(1, inc, 0.5), NewModel(1, full, 0.5)
		for _, c := range docs {
			v1, v2 := m1.Vector(c), m2.Vector(c)
			if !slices.Equal(v1.Terms, v2.Terms) || !slices.Equal(v1.W, v2.W) || v1.Norm != v2.Norm {
				t.Fatalf("round %d: vectors differ", round)
			}
		}
		// A model stored and read back weighs alike.
		terms, df := m2.Terms()
		m3 := ModelFrom(1, m2.Docs, 0.5, terms, df)
		for _, c := range docs {
			if v2, v3 := m2.Vector(c), m3.Vector(c); !slices.Equal(v2.W, v3.W) {
				t.Fatal("ModelFrom weighs differently")
			}
		}
	}
}

func TestModelWeights(t *testing.T) {
	df := NewDocFreq()
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
