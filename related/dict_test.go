package related

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/plagd/plagd/internal/testseed"
)

// TestDictJoinsEqualPrepared: a self join over a Dict's numbering, built
// over two batches (the second brings new terms, as a run's batch does),
// gives the lists of the same join over Prepare's numbering, and ExactOf
// the same lists and above-floor hits.
func TestDictJoinsEqualPrepared(t *testing.T) {
	r := testseed.Rand(t)
	vs := randomVectors(r, 1200, 300, 20)
	dict := NewDict()
	docs := dict.Docs(vs[:700], Pool(3))
	docs = append(docs, dict.Docs(vs[700:], Pool(3))...)
	d := SelfSet(dict, docs)
	p := Prepare(nil, vs, true, Pool(3))
	for _, k := range []int{1, 10, 20} {
		want, _ := ExactSelf(p, NewIndex(p), k, Pool(3))
		got, _ := ExactSelf(d, NewIndex(d), k, Pool(3))
		identicalLists(t, fmt.Sprintf("k=%d, over the Dict, over Prepare", k), got, want)
	}
	sameExactOf(t, r, "over the Dict, over Prepare", []int32{3, 500, 701, 1199}, d, NewIndex(d), p, NewIndex(p))
	if n := len(dict.terms); n != p.Terms() {
		t.Fatalf("the Dict numbers %d terms, the vectors have %d", n, p.Terms())
	}
}

// sameExactOf fails t unless ExactOf gives the same lists and above-floor
// hits for the queries qs over (gs, gx) as over (ws, wx), with random
// floors; how names the two sides.
func sameExactOf(t *testing.T, r *rand.Rand, how string, qs []int32, gs *Set, gx *Index, ws *Set, wx *Index) {
	t.Helper()
	floor := make([]float32, gs.Docs())
	for i := range floor {
		floor[i] = r.Float32() / 3
	}
	wantTop, wantAbove, _ := ExactOf(ws, wx, 15, qs, floor, Pool(3))
	gotTop, gotAbove, _ := ExactOf(gs, gx, 15, qs, floor, Pool(3))
	for j := range qs {
		if !slices.Equal(gotTop[j], wantTop[j]) {
			t.Fatalf("ExactOf query %d (%s): %v, %v", qs[j], how, gotTop[j], wantTop[j])
		}
	}
	for i := range floor {
		if !slices.Equal(gotAbove[i], wantAbove[i]) {
			t.Fatalf("ExactOf above of %d (%s): %v, %v", i, how, gotAbove[i], wantAbove[i])
		}
	}
}

// identicalLists fails t unless every list of got is want's, bit for bit;
// how names the two sides.
func identicalLists(t *testing.T, how string, got, want [][]Neighbor) {
	t.Helper()
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Fatalf("document %d (%s): %v, %v", i, how, got[i], want[i])
		}
	}
}

// TestDictVectorIsTheVectorConverted: Vector gives back, bit for bit, the
// vector each Doc was converted from, over a Dict filled by two batches
// (the second numbering new terms), the empty vector included.
func TestDictVectorIsTheVectorConverted(t *testing.T) {
	r := testseed.Rand(t)
	vs := append(randomVectors(r, 600, 400, 25), Vector{Norm: 0})
	dict := NewDict()
	docs := dict.Docs(vs[:300], Pool(3))
	docs = append(docs, dict.Docs(vs[300:], Pool(3))...)
	for i, d := range docs {
		got := dict.Vector(d)
		if !slices.Equal(got.Terms, vs[i].Terms) || !slices.Equal(got.W, vs[i].W) || got.Norm != vs[i].Norm {
			t.Fatalf("vector %d: got %v, converted from %v", i, got, vs[i])
		}
	}
}
