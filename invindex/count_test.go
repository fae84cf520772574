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

// refSkip drops the postings of the documents in skip from the model's
// postings: what CountSkip and DFSkip must see.
func refSkip(post map[uint32][]Posting, skip map[DocID]bool) map[uint32][]Posting {
	out := map[uint32][]Posting{}
	for c, ps := range post {
		for _, p := range ps {
			if !skip[PostingDoc(p)] {
				out[c] = append(out[c], p)
			}
		}
	}
	return out
}

// TestCountSkip_MatchesReference: CountSkip equals Count on the index
// without the tombstoned documents' postings (counts and the df the cap
// sees), over several slices, for indexed documents, tombstoned documents
// counted with new chunks, and unindexed queries; DFSkip equals the live
// df; a nil or empty skip equals Count.
func TestCountSkip_MatchesReference(t *testing.T) {
	rng := testRand(t)
	c, c2 := NewCounter(0), NewCounter(0)
	for range 200 {
		g := newCorpusGen(rng)
		r := g.corpus(1 + rng.IntN(200))
		post := r.postings()
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
		// The tombstones: a random share of the documents, sometimes none,
		// sometimes all, plus ids that post nowhere.
		skipMap := map[DocID]bool{}
		var skip *DocSet
		switch rng.IntN(6) {
		case 0: // nil
		case 1:
			skip = NewDocSet(0) // empty
		default:
			skip = NewDocSet(0)
			frac := []float64{0.05, 0.3, 0.8, 1}[rng.IntN(4)]
			for _, d := range in {
				if rng.Float64() < frac {
					skip.Add(d.Doc)
					skipMap[d.Doc] = true
				}
			}
			skip.Add(1<<22 + 5)
			skipMap[1<<22+5] = true
		}
		live := refSkip(post, skipMap)
		for ch, ps := range post {
			for _, p := range parts {
				if want := len(live[ch]); p.DFSkip(ch, skip) != want && uint64(ch) >= p.lo && uint64(ch) < p.hi {
					t.Fatalf("DFSkip(%d) = %d, want %d (df %d)", ch, p.DFSkip(ch, skip), want, len(ps))
				}
			}
		}
		dfCap := []int{0, -3, 1, 2, 5, 50}[rng.IntN(6)]
		minShared := uint32(rng.IntN(3))
		queries := in
		queries = append(queries, g.doc(1<<21))
		// A tombstoned document counted with new chunks (a modification).
		for _, d := range in {
			if skipMap[d.Doc] {
				queries = append(queries, g.doc(d.Doc))
				break
			}
		}
		for _, q := range queries {
			for i, p := range parts {
				part := restrictDoc(q, bounds[i], bounds[i+1])
				p.CountSkip(c, q.Doc, part.Chunks, part.Checks, dfCap, skip)
				if skip.Len() == 0 {
					p.Count(c2, q.Doc, part.Chunks, part.Checks, dfCap)
				}
			}
			got := c.Drain(nil, minShared)
			want := refCount(live, q.Doc, q.Chunks, q.Checks, dfCap, minShared)
			if skip.Len() == 0 {
				if plain := c2.Drain(nil, minShared); !slices.Equal(got, plain) && len(got)+len(plain) > 0 {
					t.Fatalf("empty skip differs from Count: %v vs %v", got, plain)
				}
			}
			if len(got) == 0 && len(want) == 0 {
				continue
			}
			if !slices.Equal(got, want) {
				t.Fatalf("doc %d dfCap %d minShared %d skip %d docs:\n got %v\nwant %v", q.Doc, dfCap, minShared, len(skipMap), got, want)
			}
		}
	}
}

func TestCountSkip_Example(t *testing.T) {
	s := BuildSlice(0, 100, []DocChunks{
		dc(1, 10, 20, 30, 40),
		dc(2, 10, 20),
		dc(3, 20, 30, 99),
		dc(4, 20),
	})
	zero := make([]uint8, 4)
	c := NewCounter(0)
	skip := docSetOf([]DocID{3, 4})
	if s.DF(20) != 4 || s.DFSkip(20, skip) != 2 || s.DFSkip(20, nil) != 4 || s.DFSkip(99, skip) != 0 || s.DFSkip(5, skip) != 0 {
		t.Fatalf("DFSkip(20) = %d, DFSkip(99) = %d", s.DFSkip(20, skip), s.DFSkip(99, skip))
	}
	// Chunk 20 has df 4 but live df 2: a cap of 2 keeps it.
	s.CountSkip(c, 1, []uint32{10, 20, 30, 40}, zero, 2, skip)
	if got := c.Drain(nil, 0); !slices.Equal(got, []Pair{{2, 2}}) {
		t.Fatalf("cap 2, 3 and 4 dead: %v", got)
	}
	s.Count(c, 1, []uint32{10, 20, 30, 40}, zero, 2)
	if got := c.Drain(nil, 0); !slices.Equal(got, []Pair{{2, 1}, {3, 1}}) {
		t.Fatalf("cap 2, Count: %v", got)
	}
	// Doc 3 modified: tombstoned, counted with new chunks (99 is its old
	// chunk, now dead; 40 is doc 1's df=1 chunk).
	s.CountSkip(c, 3, []uint32{40, 99}, zero[:2], 0, skip)
	if got := c.Drain(nil, 0); !slices.Equal(got, []Pair{{1, 1}}) {
		t.Fatalf("tombstoned self: %v", got)
	}
}
