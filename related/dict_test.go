package related

import (
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
		for i := range want {
			if !slices.Equal(got[i], want[i]) {
				t.Fatalf("k=%d: document %d: %v over the Dict, %v over Prepare", k, i, got[i], want[i])
			}
		}
	}
	qs := []int32{3, 500, 701, 1199}
	floor := make([]float32, len(vs))
	for i := range floor {
		floor[i] = r.Float32() / 3
	}
	wantTop, wantAbove, _ := ExactOf(p, NewIndex(p), 15, qs, floor, Pool(3))
	gotTop, gotAbove, _ := ExactOf(d, NewIndex(d), 15, qs, floor, Pool(3))
	for j := range qs {
		if !slices.Equal(gotTop[j], wantTop[j]) {
			t.Fatalf("ExactOf query %d: %v over the Dict, %v over Prepare", qs[j], gotTop[j], wantTop[j])
		}
	}
	for i := range vs {
		if !slices.Equal(gotAbove[i], wantAbove[i]) {
			t.Fatalf("ExactOf above of %d: %v over the Dict, %v over Prepare", i, gotAbove[i], wantAbove[i])
		}
	}
	if n := len(dict.terms); n != p.Terms() {
		t.Fatalf("the Dict numbers %d terms, the vectors have %d", n, p.Terms())
	}
}
