package invindex

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// randomChange draws one run's changes against the model: removed docs
// (deleted or modified), modified docs re-added with new chunks, and new
// docs under fresh or recycled ids.
func randomChange(rng *rand.Rand, g *corpusGen, r *refIndex) (removed []DocID, added []DocChunks) {
	live := slices.Sorted(func(yield func(DocID) bool) {
		for d := range r.docs {
			if !yield(d) {
				return
			}
		}
	})
	frac := []float64{0, 0.01, 0.1, 0.5, 1}[rng.IntN(5)]
	gone := map[DocID]bool{}
	for _, d := range live {
		if rng.Float64() < frac {
			removed = append(removed, d)
			gone[d] = true
			if rng.IntN(2) == 0 { // modified
				added = append(added, g.doc(d))
			}
		}
	}
	if rng.IntN(4) == 0 { // removing an unknown doc is a no-op
		removed = append(removed, DocID(1<<20+rng.IntN(100)))
	}
	for range rng.IntN(20) { // new docs: fresh ids or ids freed by this run
		d := DocID(rng.IntN(2*len(live) + 10))
		if _, ok := r.docs[d]; ok && !gone[d] {
			continue
		}
		if slices.ContainsFunc(added, func(dc DocChunks) bool { return dc.Doc == d }) {
			continue
		}
		added = append(added, g.doc(d))
	}
	rng.Shuffle(len(added), func(i, j int) { added[i], added[j] = added[j], added[i] })
	return removed, added
}

func docSetOf(ds []DocID) *DocSet {
	s := NewDocSet(0)
	for _, d := range ds {
		s.Add(d)
	}
	return s
}

func TestUpdate_SequenceEqualsBuild(t *testing.T) {
	rng := testRand(t)
	for iter := range 150 {
		g := newCorpusGen(rng)
		r := g.corpus(rng.IntN(150))
		s := BuildSlice(r.lo, r.hi, r.input(rng))
		for step := range 8 {
			removed, added := randomChange(rng, g, r)
			dfCap := []int{0, -1, 1, 2, 3, 5, 20}[rng.IntN(7)]
			before := r.postings()
			snapshot := cloneSlice(s)

			next, flipped := s.Update(docSetOf(removed), added, dfCap)

			if d := sliceDiff(s, snapshot); d != "" {
				t.Fatalf("iter %d step %d: Update modified its receiver: %s", iter, step, d)
			}
			r.apply(removed, added)
			checkAgainstRef(t, next, r, rng)
			checkPresent(t, next)
			if d := sliceDiff(next, BuildSlice(r.lo, r.hi, r.input(rng))); d != "" {
				t.Fatalf("iter %d step %d: Update differs from BuildSlice of the final state: %s", iter, step, d)
			}
			if dfCap <= 0 {
				if flipped != nil {
					t.Fatalf("dfCap %d: flipped = %v, want nil", dfCap, flipped)
				}
			} else {
				want := refFlipped(before, r.postings(), removed, added, dfCap)
				if !slices.Equal(flipped, want) || flipped == nil {
					t.Fatalf("iter %d step %d dfCap %d: flipped = %v, want %v", iter, step, dfCap, flipped, want)
				}
			}
			s = next
		}
	}
}

// checkPresent compares the derived set of documents with postings (which
// BuildSlice and Update compute from their input) with the postings.
func checkPresent(t testing.TB, s *Slice) {
	t.Helper()
	want := NewDocSet(0)
	for _, p := range s.docs {
		want.Add(PostingDoc(p))
	}
	got := s.present.appendTo(nil)
	if w := want.appendTo(nil); !slices.Equal(got, w) || s.present.Len() != len(w) {
		t.Fatalf("present %v (len %d), want %v", got, s.present.Len(), w)
	}
}

func cloneSlice(s *Slice) *Slice {
	c := *s
	c.keys, c.offs, c.docs, c.dir = slices.Clone(s.keys), slices.Clone(s.offs), slices.Clone(s.docs), slices.Clone(s.dir)
	return &c
}

// TestUpdate_Flipped is a worked example of the flipped list.
func TestUpdate_Flipped(t *testing.T) {
	// chunk 1: docs 1, 2 (df 2); chunk 2: docs 1, 2, 3 (df 3); chunk 3: doc 4.
	// Fingerprints differ, but df and flips count every posting of an ID.
	s := BuildSlice(0, 8, []DocChunks{{1, []uint32{1, 2}, []uint8{1, 2}}, {2, []uint32{1, 2}, []uint8{3, 4}}, dc(3, 2), dc(4, 3)})
	// Doc 5 arrives on chunk 1 (df 2 → 3) and doc 3 leaves chunk 2 (df 3 → 2).
	next, flipped := s.Update(docSetOf([]DocID{3}), []DocChunks{{5, []uint32{1}, []uint8{9}}}, 2)
	if !slices.Equal(next.Lookup(1), []DocID{1, 2, 5}) || !slices.Equal(next.Lookup(2), []DocID{1, 2}) {
		t.Fatalf("postings %v %v", next.Lookup(1), next.Lookup(2))
	}
	// Both chunks flip; docs 1 and 2 post on them; 5 is added, 3 removed, 4 untouched.
	if !slices.Equal(flipped, []DocID{1, 2}) {
		t.Fatalf("flipped %v, want [1 2]", flipped)
	}
	if _, f := s.Update(nil, nil, 2); f == nil || len(f) != 0 {
		t.Fatalf("no change: flipped %v, want empty non-nil", f)
	}
}

func TestUpdate_NilAndEmpty(t *testing.T) {
	s := BuildSlice(0, 1<<20, []DocChunks{{1, []uint32{5, 7}, []uint8{1, 2}}, {2, []uint32{7}, []uint8{3}}})
	for _, rm := range []*DocSet{nil, NewDocSet(0), NewDocSet(100)} {
		next, f := s.Update(rm, nil, 0)
		if d := sliceDiff(next, s); d != "" || f != nil {
			t.Fatalf("empty update changed the slice: %s, %v", d, f)
		}
	}
	next, _ := NewSlice(0, 1<<20).Update(nil, []DocChunks{{1, []uint32{5, 7}, []uint8{1, 2}}, {2, []uint32{7}, []uint8{3}}}, 0)
	if d := sliceDiff(next, s); d != "" {
		t.Fatalf("update of empty slice: %s", d)
	}
	all, _ := s.Update(docSetOf([]DocID{1, 2}), nil, 0)
	if d := sliceDiff(all, NewSlice(0, 1<<20)); d != "" {
		t.Fatalf("removing everything: %s", d)
	}
}

func TestDocSet(t *testing.T) {
	rng := testRand(t)
	s := NewDocSet(10)
	want := map[DocID]bool{}
	for range 2000 {
		d := rng.Uint32N(5000)
		s.Add(d)
		want[d] = true
	}
	if s.Len() != len(want) {
		t.Fatalf("Len %d, want %d", s.Len(), len(want))
	}
	for d := range DocID(6000) {
		if s.Has(d) != want[d] {
			t.Fatalf("Has(%d) = %v", d, s.Has(d))
		}
	}
	got := s.appendTo(nil)
	if len(got) != len(want) || !slices.IsSorted(got) {
		t.Fatalf("appendTo not sorted or wrong size")
	}
	var nilSet *DocSet
	if nilSet.Has(3) || nilSet.Len() != 0 {
		t.Fatal("nil DocSet is not empty")
	}
	s.Add(1<<32 - 1)
	if !s.Has(1<<32-1) || s.Has(1<<32-2) {
		t.Fatal("largest DocID")
	}
}

// TestUpdate_UnionTakesAddedCheck: an added doc that keeps postings in s
// (not removed) gets the union by doc; where both have a chunk, the added
// fingerprint wins and the doc stays once in the list.
func TestUpdate_UnionTakesAddedCheck(t *testing.T) {
	s := BuildSlice(0, 16, []DocChunks{{1, []uint32{3, 4}, []uint8{1, 1}}, dc(2, 4)})
	next, _ := s.Update(nil, []DocChunks{{1, []uint32{4, 5}, []uint8{7, 7}}}, 0)
	if err := next.validate(); err != nil {
		t.Fatal(err)
	}
	for c, want := range map[uint32][]Posting{3: {1<<8 | 1}, 4: {1<<8 | 7, 2 << 8}, 5: {1<<8 | 7}} {
		if got := next.LookupPostings(c); !slices.Equal(got, want) {
			t.Fatalf("chunk %d: %#x, want %#x", c, got, want)
		}
	}
}
