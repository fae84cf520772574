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

// TestReuseJoinsEqualNewIndex: an index reused from an earlier set of the
// same Dict (documents gone, changed, added, and new terms since) gives
// the joins of an index built anew, bit for bit.
func TestReuseJoinsEqualNewIndex(t *testing.T) {
	r := testseed.Rand(t)
	old := randomVectors(r, 900, 300, 20)
	dict, oldDocs, base := indexedSet(old)
	// The next set: every third document gone, every seventh changed, 200
	// new ones (more terms: a larger vocabulary).
	fresh := randomVectors(r, 400, 600, 20)
	var vs []Vector
	var docs []Doc
	at := make([]int32, len(old))
	for b := range old {
		at[b] = -1
		switch {
		case b%3 == 0:
		case b%7 == 0:
			vs = append(vs, fresh[len(vs)%len(fresh)])
			docs = append(docs, dict.Docs(vs[len(vs)-1:], Pool(1))[0])
		default:
			at[b] = int32(len(vs))
			vs = append(vs, old[b])
			docs = append(docs, oldDocs[b])
		}
	}
	added := fresh[200:]
	vs = append(vs, added...)
	docs = append(docs, dict.Docs(added, Pool(3))...)
	s := SelfSet(dict, docs)
	reused, plain := Reuse(s, base, at), NewIndex(s)
	want, _ := Exact(s, plain, 7, Pool(3))
	// Each way of reading the accumulator (whole, touched documents only,
	// chosen per query) skips the postings of the documents gone alike.
	for _, mode := range []int{0, 1, -1} {
		denseAcc = mode
		how := fmt.Sprintf("reusing the base (accumulator mode %d), anew", mode)
		sameExactOf(t, r, how, []int32{0, 5, int32(len(vs) / 2), int32(len(vs) - 1)}, s, reused, s, plain)
		got, _ := Exact(s, reused, 7, Pool(3))
		denseAcc = 0
		identicalLists(t, how, got, want)
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

// TestReuseWithNothingToAdd: when the kept index reaches every document
// (a run that only deleted some), the small index is empty: no document is
// indexed twice.
func TestReuseWithNothingToAdd(t *testing.T) {
	r := testseed.Rand(t)
	vs := randomVectors(r, 300, 200, 20)
	dict, docs, base := indexedSet(vs)
	at := make([]int32, len(vs))
	var keep []Doc
	for b := range vs {
		at[b] = -1
		if b%5 != 0 {
			at[b] = int32(len(keep))
			keep = append(keep, docs[b])
		}
	}
	s := SelfSet(dict, keep)
	want, _ := Exact(s, NewIndex(s), 5, Pool(3))
	got, _ := Exact(s, Reuse(s, base, at), 5, Pool(3))
	identicalLists(t, "reusing the base, anew", got, want)
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

// indexedSet numbers vs in a new Dict and indexes them: the base a kept
// index starts from.
func indexedSet(vs []Vector) (*Dict, []Doc, *Index) {
	dict := NewDict()
	docs := dict.Docs(vs, Pool(3))
	return dict, docs, NewIndex(SelfSet(dict, docs))
}
