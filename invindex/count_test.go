package invindex

import (
	"slices"
	"strconv"
	"testing"
)

func TestCount_MatchesReference(t *testing.T) {
	rng := testRand(t)
	c := NewCounter(0) // reused across documents and corpora: Drain must reset it
	for range 200 {
		g := newCorpusGen(rng)
		r := g.corpus(1 + rng.IntN(200))
		post := r.postings()
		// Count across several slices: partial counts must accumulate.
		bounds := []uint64{r.lo, r.hi}
		if k := rng.IntN(4); k > 0 && r.hi-r.lo > 4 {
			bounds = SplitRange(r.hi-r.lo, k+1)
			for i := range bounds {
				bounds[i] += r.lo
			}
		}
		in := r.input(rng)
		var parts []*Slice
		for i := 1; i < len(bounds); i++ {
			parts = append(parts, BuildSlice(bounds[i-1], bounds[i], restrict(in, bounds[i-1], bounds[i])))
		}
		dfCap := []int{0, -3, 1, 2, 5, 50}[rng.IntN(6)]
		minShared := uint32(rng.IntN(3))
		queries := in
		// A query document that is not indexed ("check this file now"),
		// posing as an unused DocID: df=1 chunks of others must count.
		queries = append(queries, g.doc(1<<21))
		for _, q := range queries {
			for i, p := range parts {
				part := restrictDoc(q, bounds[i], bounds[i+1])
				p.Count(c, q.Doc, part.Chunks, part.Checks, dfCap)
			}
			got := c.Drain(nil, minShared)
			want := refCount(post, q.Doc, q.Chunks, q.Checks, dfCap, minShared)
			if len(got) == 0 && len(want) == 0 {
				continue
			}
			if !slices.Equal(got, want) {
				t.Fatalf("doc %d dfCap %d minShared %d:\n got %v\nwant %v", q.Doc, dfCap, minShared, got, want)
			}
		}
	}
}

func TestCount_Example(t *testing.T) {
	s := BuildSlice(0, 100, []DocChunks{
		dc(1, 10, 20, 30, 40),
		dc(2, 10, 20),
		dc(3, 20, 30, 99),
		dc(4, 20),
	})
	zero := make([]uint8, 4)
	c := NewCounter(2) // too small on purpose: Count grows it
	s.Count(c, 1, []uint32{10, 20, 30, 40}, zero, 0)
	if got := c.Drain(nil, 0); !slices.Equal(got, []Pair{{2, 2}, {3, 2}, {4, 1}}) {
		t.Fatalf("no cap: %v", got)
	}
	s.Count(c, 1, []uint32{10, 20, 30, 40}, zero, 3) // chunk 20 has df 4 > 3
	if got := c.Drain(nil, 0); !slices.Equal(got, []Pair{{2, 1}, {3, 1}}) {
		t.Fatalf("cap 3: %v", got)
	}
	s.Count(c, 1, []uint32{10, 20, 30, 40}, zero, 0)
	if got := c.Drain([]Pair{{0, 9}}, 2); !slices.Equal(got, []Pair{{0, 9}, {2, 2}, {3, 2}}) {
		t.Fatalf("minShared 2, appending: %v", got)
	}
	// Outside the range and absent chunks count nothing.
	s.Count(c, 7, []uint32{5, 41, 99}, zero[:3], 0)
	if got := c.Drain(nil, 0); !slices.Equal(got, []Pair{{3, 1}}) {
		t.Fatalf("query doc: %v", got)
	}
}

// TestCount_Fingerprints: documents whose windows share a chunk ID but not
// the fingerprint (a hash collision in the ID bits) do not share the
// chunk; equal fingerprints do. The df and its cap still count every
// posting of the ID.
func TestCount_Fingerprints(t *testing.T) {
	s := BuildSlice(0, 100, []DocChunks{
		{1, []uint32{10, 20, 30}, []uint8{0x11, 0x22, 0x33}},
		{2, []uint32{10, 20, 30}, []uint8{0x11, 0x99, 0x33}}, // 20 collides
		{3, []uint32{10, 30}, []uint8{0x77, 0x77}},           // both collide
		{4, []uint32{20}, []uint8{0x22}},
		{5, []uint32{50}, []uint8{0x05}}, // df 1, another fingerprint
	})
	if got := s.DF(10); got != 3 {
		t.Fatalf("DF(10) = %d, want 3: all fingerprints count", got)
	}
	if got := s.LookupPostings(20); !slices.Equal(got, []Posting{1<<8 | 0x22, 2<<8 | 0x99, 4<<8 | 0x22}) {
		t.Fatalf("LookupPostings(20) = %#x", got)
	}
	c := NewCounter(0)
	count := func(self DocID, chunks []uint32, checks []uint8, dfCap int) []Pair {
		s.Count(c, self, chunks, checks, dfCap)
		return c.Drain(nil, 1)
	}
	if got := count(1, []uint32{10, 20, 30}, []uint8{0x11, 0x22, 0x33}, 0); !slices.Equal(got, []Pair{{2, 2}, {4, 1}}) {
		t.Fatalf("doc 1: %v, want 2 sharing 10 and 30, 4 sharing 20, 3 nothing", got)
	}
	if got := count(3, []uint32{10, 30}, []uint8{0x77, 0x77}, 0); len(got) != 0 {
		t.Fatalf("doc 3 shares only colliding IDs, got %v", got)
	}
	// The cap sees df(10) = df(30) = 3 although only two fingerprints agree.
	if got := count(1, []uint32{10, 20, 30}, []uint8{0x11, 0x22, 0x33}, 2); len(got) != 0 {
		t.Fatalf("cap 2: %v, want nothing (every chunk has df 3)", got)
	}
	// A query that is not indexed: fingerprints decide for df=1 chunks too.
	if got := count(9, []uint32{20, 50}, []uint8{0x99, 0x06}, 0); !slices.Equal(got, []Pair{{2, 1}}) {
		t.Fatalf("query: %v", got)
	}
	if got := count(9, []uint32{50}, []uint8{0x05}, 0); !slices.Equal(got, []Pair{{5, 1}}) {
		t.Fatalf("query, df 1: %v", got)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Count with fewer fingerprints than chunks did not panic")
		}
	}()
	s.Count(c, 1, []uint32{10, 20}, []uint8{1}, 0)
}

// TestCount_FingerprintsFromText is the end-to-end case: two texts whose
// windows collide on the chunk ID with different fingerprints (found by
// brute force at 20 bits, one-word windows) share nothing; the same word
// in both does.
func TestCount_FingerprintsFromText(t *testing.T) {
	const bits = 20
	tk := NewTokenizer(Params{WindowWords: 1, ChunkBits: bits})
	seen := map[uint32]string{}
	var a, b string
	for i := 0; a == ""; i++ {
		w := "x" + strconv.Itoa(i)
		_, ids, fps := tk.DocChunks(w)
		if o, ok := seen[ids[0]]; ok {
			if _, _, ofp := tk.DocChunks(o); ofp[0] != fps[0] {
				a, b = o, w
			}
		}
		seen[ids[0]] = w
	}
	var docs []DocChunks
	for i, text := range []string{a, b, a + " " + "y"} {
		_, ids, fps := tk.DocChunks(text)
		docs = append(docs, DocChunks{DocID(i), ids, fps})
	}
	if docs[0].Chunks[0] != docs[1].Chunks[0] {
		t.Fatal("the two words do not collide")
	}
	s := BuildSlice(0, 1<<bits, docs)
	c := NewCounter(0)
	s.Count(c, 0, docs[0].Chunks, docs[0].Checks, 0)
	if got := c.Drain(nil, 1); !slices.Equal(got, []Pair{{2, 1}}) {
		t.Fatalf("%q vs %q (same ID %#x, fingerprints differ) and %q: %v, want only doc 2", a, b, docs[0].Chunks[0], a+" y", got)
	}
}

// TestCounter_DrainDense exercises the dense-scan branch of Drain (most
// documents touched) against the sorted-list branch.
func TestCounter_DrainDense(t *testing.T) {
	var docs []DocChunks
	for d := range DocID(64) {
		docs = append(docs, dc(d, 1, 2+d%3))
	}
	s := BuildSlice(0, 8, docs)
	c := NewCounter(64)
	s.Count(c, 5, []uint32{1, 2, 3, 4}, make([]uint8, 4), 0)
	got := c.Drain(nil, 0)
	if len(got) != 63 || !slices.IsSortedFunc(got, func(a, b Pair) int { return int(a.Other) - int(b.Other) }) {
		t.Fatalf("dense drain: %d pairs %v", len(got), got)
	}
	for _, p := range got {
		if p.Shared != 2 { // chunk 1 and chunk 2+d%3, both queried
			t.Fatalf("pair %v, want shared 2", p)
		}
	}
	for _, n := range c.counts {
		if n != 0 {
			t.Fatal("counter not reset")
		}
	}
}
