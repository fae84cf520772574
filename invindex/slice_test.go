package invindex

import (
	"slices"
	"strings"
	"testing"
)

func TestBuildSlice_MatchesReference(t *testing.T) {
	rng := testRand(t)
	for iter := range 300 {
		g := newCorpusGen(rng)
		r := g.corpus(rng.IntN(300))
		s := BuildSlice(r.lo, r.hi, r.input(rng))
		checkAgainstRef(t, s, r, rng)
		checkPresent(t, s)
		if iter%50 == 0 {
			t.Logf("iter %d: [%d,%d) %d docs, %d postings, %d keys", iter, r.lo, r.hi, len(r.docs), s.Postings(), s.Keys())
		}
	}
}

// TestBuildSlice_ManyBuckets drives the multi-bucket paths (radix passes,
// scatter, out-of-doc-order fix-ups) with enough postings that the bucket
// count exceeds one.
func TestBuildSlice_ManyBuckets(t *testing.T) {
	rng := testRand(t)
	for _, bits := range []uint{20, 24, 28, 32} {
		g := &corpusGen{rng: rng, lo: 0, hi: 1 << bits, maxSize: 1200, shared: 0.3}
		g.pool = make([]uint32, 5000)
		for i := range g.pool {
			g.pool[i] = uint32(rng.Uint64N(g.hi))
		}
		g.zipf = nil
		r := newRef(g.lo, g.hi)
		for len(r.docs) < 400 {
			d := DocID(rng.Uint32N(100000))
			r.docs[d] = g.withChecks(d, g.uniformDoc(rng.IntN(g.maxSize)))
		}
		s := BuildSlice(r.lo, r.hi, r.input(rng))
		checkAgainstRef(t, s, r, rng)
		b := newBucketer(r.lo, r.hi, r.input(nil), uint64(s.Postings()))
		t.Logf("bits %d: %d postings, %d keys, %d buckets", bits, s.Postings(), s.Keys(), b.nb)
	}
}

// TestBuildSlice_ManyGroups drives builds big enough to be scattered in
// several groups of buckets (short and long documents, input in and out of
// doc order, narrow and full ranges, a chunk in every document), checked
// against a plain sort of every posting.
func TestBuildSlice_ManyGroups(t *testing.T) {
	rng := testRand(t)
	for _, tc := range []struct {
		bits    uint
		lo      uint64
		perDoc  int
		shuffle bool
	}{
		{20, 0, 1500, false}, {28, 0, 95, true}, {32, 0, 2000, true}, {24, 1 << 30, 40, false}, {28, 5, 600, true},
	} {
		hi := min(tc.lo+1<<tc.bits, MaxSpace)
		var docs []DocChunks
		total := 0
		for d := 0; total < 3*minGroup*2; d++ {
			n := 1 + rng.IntN(2*tc.perDoc)
			cs := make([]uint32, n)
			for i := range cs {
				if rng.IntN(3) == 0 {
					cs[i] = uint32(tc.lo + rng.Uint64N(min(hi-tc.lo, 5000))) // shared
				} else {
					cs[i] = uint32(tc.lo + rng.Uint64N(hi-tc.lo))
				}
			}
			cs = append(cs, uint32(hi-1)) // in every doc
			slices.Sort(cs)
			cs = slices.Compact(cs)
			checks := make([]uint8, len(cs))
			for i := range checks {
				checks[i] = uint8(rng.IntN(4))
			}
			docs = append(docs, DocChunks{DocID(d * 3), cs, checks})
			total += len(cs)
		}
		if tc.shuffle {
			rng.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
		}
		s := BuildSlice(tc.lo, hi, docs)
		if err := s.validate(); err != nil {
			t.Fatal(err)
		}
		b := newBucketer(tc.lo, hi, docs, uint64(total))
		if len(b.groups) < 3 {
			t.Fatalf("bits %d: %d groups, want several", tc.bits, len(b.groups)-1)
		}
		packed := make([]uint64, 0, total)
		for _, d := range docs {
			for i, c := range d.Chunks {
				packed = append(packed, uint64(c)<<32|uint64(MakePosting(d.Doc, d.Checks[i])))
			}
		}
		slices.Sort(packed)
		var keys, offs []uint32
		for i, p := range packed {
			if i == 0 || p>>32 != packed[i-1]>>32 {
				keys = append(keys, uint32(p>>32))
				offs = append(offs, uint32(i))
			}
			if uint32(p) != s.docs[i] {
				t.Fatalf("bits %d: posting %d is %#x, want %#x", tc.bits, i, s.docs[i], uint32(p))
			}
		}
		offs = append(offs, uint32(len(packed)))
		if !slices.Equal(keys, s.keys) || !slices.Equal(offs, s.offs) || len(packed) != len(s.docs) {
			t.Fatalf("bits %d: keys or offsets differ", tc.bits)
		}
		t.Logf("bits %d: %d docs, %d postings, %d keys, %d buckets in %d groups", tc.bits, len(docs), total, len(keys), b.nb, len(b.groups)-1)
	}
}

// uniformDoc draws n chunks, a third from the pool (uniformly), sorted and
// distinct.
func (g *corpusGen) uniformDoc(n int) []uint32 {
	cs := make([]uint32, 0, n)
	for range n {
		if g.rng.Float64() < g.shared {
			cs = append(cs, g.pool[g.rng.IntN(len(g.pool))])
		} else {
			cs = append(cs, uint32(g.lo+g.rng.Uint64N(g.hi-g.lo)))
		}
	}
	slices.Sort(cs)
	return slices.Compact(cs)
}

func TestBuildSlice_Deterministic(t *testing.T) {
	rng := testRand(t)
	g := newCorpusGen(rng)
	r := g.corpus(200)
	a := BuildSlice(r.lo, r.hi, r.input(rng))
	b := BuildSlice(r.lo, r.hi, r.input(rng))
	if d := sliceDiff(a, b); d != "" {
		t.Fatalf("two builds differ: %s", d)
	}
}

func TestNewSlice_Empty(t *testing.T) {
	for _, r := range [][2]uint64{{0, 0}, {0, 1}, {5, 6}, {0, 1 << 28}, {0, MaxSpace}, {MaxSpace - 1, MaxSpace}, {MaxSpace, MaxSpace}} {
		s := NewSlice(r[0], r[1])
		if err := s.validate(); err != nil {
			t.Fatalf("%v: %v", r, err)
		}
		if s.Lo() != r[0] || s.Hi() != r[1] || s.Postings() != 0 || s.Keys() != 0 {
			t.Fatalf("%v: not empty", r)
		}
		if s.Lookup(uint32(r[0])) != nil || s.DF(0) != 0 || s.Lookup(1<<32-1) != nil {
			t.Fatalf("%v: lookup in empty slice", r)
		}
		if d := sliceDiff(s, BuildSlice(r[0], r[1], []DocChunks{{Doc: 3}, {Doc: MaxDocs}})); d != "" {
			t.Fatalf("%v: empty build differs: %s", r, d)
		}
	}
}

func TestBuildSlice_FullSpaceEdges(t *testing.T) {
	docs := []DocChunks{
		{Doc: 7, Chunks: []uint32{0, 1, 1<<32 - 1}, Checks: []uint8{0, 255, 1}},
		{Doc: MaxDocs - 1, Chunks: []uint32{1<<32 - 1}, Checks: []uint8{255}},
		{Doc: 0, Chunks: []uint32{1, 1 << 31}, Checks: []uint8{0, 0}},
	}
	s := BuildSlice(0, MaxSpace, docs)
	if err := s.validate(); err != nil {
		t.Fatal(err)
	}
	if got := s.Lookup(1<<32 - 1); !slices.Equal(got, []DocID{7, MaxDocs - 1}) {
		t.Fatalf("Lookup(max) = %v", got)
	}
	if got := s.LookupPostings(1<<32 - 1); !slices.Equal(got, []Posting{7<<8 | 1, 1<<32 - 1}) {
		t.Fatalf("LookupPostings(max) = %#x", got)
	}
	if got := s.Lookup(1); !slices.Equal(got, []DocID{0, 7}) {
		t.Fatalf("Lookup(1) = %v", got)
	}
	if s.maxDoc != MaxDocs || !s.present.Has(MaxDocs-1) || s.present.Has(MaxDocs-2) {
		t.Fatalf("maxDoc %d", s.maxDoc)
	}
}

// TestSlice_LookupDoesNotAlias checks that appending to a Lookup result
// cannot overwrite the next posting list.
func TestSlice_LookupDoesNotAlias(t *testing.T) {
	s := BuildSlice(0, 16, []DocChunks{dc(1, 3, 4), dc(2, 4)})
	l := s.Lookup(3)
	_ = append(l, 99)
	lp := s.LookupPostings(3)
	_ = append(lp, 99)
	if got := s.Lookup(4); !slices.Equal(got, []DocID{1, 2}) {
		t.Fatalf("Lookup(4) = %v after append", got)
	}
}

func TestBuildSlice_PanicsOnContractViolation(t *testing.T) {
	cases := map[string][]DocChunks{
		"unsorted":                  {dc(1, 5, 3)},
		"repeated":                  {dc(1, 3, 3)},
		"below range":               {dc(1, 9, 12)},
		"above range":               {dc(1, 12, 20)},
		"doc twice":                 {dc(1, 12), dc(1, 12)},
		"doc twice, apart":          {dc(1, 12), dc(2, 11), dc(1, 11, 12)},
		"doc twice, other checks":   {dc(1, 12), {1, []uint32{12}, []uint8{9}}},
		"doc twice, checks reverse": {{1, []uint32{12}, []uint8{9}}, dc(1, 12)},
		"missing checks":            {{1, []uint32{12, 13}, []uint8{0}}},
		"checks without chunks":     {{1, nil, []uint8{0}}},
		"doc at MaxDocs":            {dc(MaxDocs, 12)},
	}
	for name, docs := range cases {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "invindex") {
					t.Fatalf("recovered %v, want an invindex panic", r)
				}
			}()
			BuildSlice(10, 20, docs)
		})
	}
}

func TestSlice_BytesPerPosting(t *testing.T) {
	rng := testRand(t)
	// All chunks df = 1: the worst case, 4 B doc + 4 B key + 4 B offset
	// plus the directory (1/8 of a key).
	var docs []DocChunks
	for d := range 1000 {
		cs := make([]uint32, 1000)
		for i := range cs {
			cs[i] = rng.Uint32N(1 << 28)
		}
		slices.Sort(cs)
		cs = slices.Compact(cs)
		docs = append(docs, DocChunks{DocID(d), cs, make([]uint8, len(cs))})
	}
	s := BuildSlice(0, 1<<28, docs)
	bpp := float64(s.Bytes()) / float64(s.Postings())
	t.Logf("%.2f bytes/posting at df=1", bpp)
	if bpp > 12.7 {
		t.Fatalf("%.2f bytes/posting, want <= 12.7", bpp)
	}
}

func TestReslice_EqualsBuild(t *testing.T) {
	rng := testRand(t)
	for range 100 {
		bits := 20 + rng.UintN(13)
		space := uint64(1) << bits
		g := newCorpusGen(rng)
		g.lo, g.hi = 0, space
		for i := range g.pool {
			g.pool[i] = uint32(rng.Uint64N(space))
		}
		r := g.corpus(rng.IntN(200))
		in := r.input(rng)
		from := SplitRange(space, 1+rng.IntN(5))
		to := SplitRange(space, 1+rng.IntN(5))
		if rng.IntN(3) == 0 { // uneven bounds too
			to = []uint64{0, rng.Uint64N(space), space}
			slices.Sort(to)
		}
		var parts []*Slice
		for i := 1; i < len(from); i++ {
			parts = append(parts, BuildSlice(from[i-1], from[i], restrict(in, from[i-1], from[i])))
		}
		rng.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
		got := Reslice(parts, to)
		if len(got) != len(to)-1 {
			t.Fatalf("%d slices for %d bounds", len(got), len(to))
		}
		for i, s := range got {
			want := BuildSlice(to[i], to[i+1], restrict(in, to[i], to[i+1]))
			if d := sliceDiff(s, want); d != "" {
				t.Fatalf("bounds %v → %v, slice %d: %s", from, to, i, d)
			}
		}
	}
}

// restrictDoc is d's chunks (and their fingerprints) inside [lo, hi).
func restrictDoc(d DocChunks, lo, hi uint64) DocChunks {
	a, _ := slices.BinarySearch(d.Chunks, uint32(min(lo, MaxSpace-1)))
	if lo >= MaxSpace {
		a = len(d.Chunks)
	}
	b := len(d.Chunks)
	if hi < MaxSpace {
		b, _ = slices.BinarySearch(d.Chunks, uint32(hi))
	}
	b = max(a, b)
	return DocChunks{d.Doc, d.Chunks[a:b], d.Checks[a:b]}
}

// restrict is the shuffle step: each document's chunks inside [lo, hi).
func restrict(docs []DocChunks, lo, hi uint64) []DocChunks {
	var out []DocChunks
	for _, d := range docs {
		if r := restrictDoc(d, lo, hi); len(r.Chunks) > 0 {
			out = append(out, r)
		}
	}
	return out
}

// TestSplitRange_Pinned pins the chunk-ID split forever: every cached slice
// file depends on it. If this test fails, the change is wrong, not the test.
func TestSplitRange_Pinned(t *testing.T) {
	cases := []struct {
		space uint64
		k     int
		want  []uint64
	}{
		{1 << 28, 1, []uint64{0, 268435456}},
		{1 << 28, 2, []uint64{0, 134217728, 268435456}},
		{1 << 28, 3, []uint64{0, 89478485, 178956970, 268435456}},
		{1 << 28, 7, []uint64{0, 38347922, 76695844, 115043766, 153391689, 191739611, 230087533, 268435456}},
		{1 << 32, 3, []uint64{0, 1431655765, 2863311530, 4294967296}},
		{1 << 32, 5, []uint64{0, 858993459, 1717986918, 2576980377, 3435973836, 4294967296}},
		{1 << 20, 4, []uint64{0, 262144, 524288, 786432, 1048576}},
		{10, 4, []uint64{0, 2, 5, 7, 10}},
	}
	for _, c := range cases {
		if got := SplitRange(c.space, c.k); !slices.Equal(got, c.want) {
			t.Errorf("SplitRange(%d, %d) = %v, want %v", c.space, c.k, got, c.want)
		}
	}
	for k := 1; k <= 64; k++ {
		b := SplitRange(1<<32, k)
		if len(b) != k+1 || b[0] != 0 || b[k] != 1<<32 {
			t.Fatalf("k=%d: %v", k, b)
		}
		for i := 1; i <= k; i++ {
			if w := b[i] - b[i-1]; w != (1<<32)/uint64(k) && w != (1<<32)/uint64(k)+1 {
				t.Fatalf("k=%d: range %d has width %d", k, i, w)
			}
		}
	}
}
