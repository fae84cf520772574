package invindex

// A naive, obviously correct model of the inverted index (maps and sorts),
// the random corpora the property tests feed both implementations, and the
// seed handling every randomised test in this package's index half shares.

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/plagd/plagd/internal/testseed"
)

// testRand returns a seeded RNG and logs the seed (internal/testseed), so
// every failure can be replayed with -seed=N or PLAGD_TEST_SEED=N.
func testRand(t testing.TB) *rand.Rand { t.Helper(); return testseed.Rand(t) }

// refIndex is the model: the current chunk set (with fingerprints) of every
// document, and the postings derived from it by brute force.
type refIndex struct {
	lo, hi uint64
	docs   map[DocID]DocChunks
}

func newRef(lo, hi uint64) *refIndex { return &refIndex{lo: lo, hi: hi, docs: map[DocID]DocChunks{}} }

// dc is a document with the given chunks, all with fingerprint 0.
func dc(doc DocID, chunks ...uint32) DocChunks {
	return DocChunks{Doc: doc, Chunks: chunks, Checks: make([]uint8, len(chunks))}
}

// apply is Update's contract on the model.
func (r *refIndex) apply(removed []DocID, added []DocChunks) {
	for _, d := range removed {
		delete(r.docs, d)
	}
	for _, a := range added {
		r.docs[a.Doc] = a
	}
}

// postings maps each chunk to its postings (doc<<8 | fingerprint), sorted.
func (r *refIndex) postings() map[uint32][]Posting {
	m := map[uint32][]Posting{}
	for d, dc := range r.docs {
		for i, c := range dc.Chunks {
			m[c] = append(m[c], MakePosting(d, dc.Checks[i]))
		}
	}
	for _, ps := range m {
		slices.Sort(ps)
	}
	return m
}

// input returns the model's documents as BuildSlice input, shuffled so
// that BuildSlice never relies on doc order.
func (r *refIndex) input(rng *rand.Rand) []DocChunks {
	var out []DocChunks
	for _, d := range slices.Sorted(maps.Keys(r.docs)) {
		out = append(out, r.docs[d])
	}
	if rng != nil && rng.IntN(2) == 0 {
		rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	}
	return out
}

// refCount is Count + Drain by brute force over the model's postings: a
// document shares chunk c with the query when it posts on c with the
// query's fingerprint of c, and c's df (all postings) is within the cap.
func refCount(post map[uint32][]Posting, self DocID, chunks []uint32, checks []uint8, dfCap int, minShared uint32) []Pair {
	m := map[DocID]uint32{}
	for i, c := range chunks {
		ps := post[c]
		if dfCap > 0 && len(ps) > dfCap {
			continue
		}
		for _, p := range ps {
			if d := PostingDoc(p); d != self && PostingCheck(p) == checks[i] {
				m[d]++
			}
		}
	}
	out := []Pair{}
	for _, d := range slices.Sorted(maps.Keys(m)) {
		if m[d] >= minShared {
			out = append(out, Pair{d, m[d]})
		}
	}
	return out
}

// refFlipped is Update's flipped-documents list by brute force.
func refFlipped(before, after map[uint32][]Posting, removed []DocID, added []DocChunks, dfCap int) []DocID {
	skip := map[DocID]bool{}
	for _, d := range removed {
		skip[d] = true
	}
	for _, dc := range added {
		skip[dc.Doc] = true
	}
	set := map[DocID]bool{}
	for _, c := range slices.Collect(maps.Keys(after)) {
		if (len(before[c]) <= dfCap) == (len(after[c]) <= dfCap) {
			continue
		}
		for _, p := range after[c] {
			if d := PostingDoc(p); !skip[d] {
				set[d] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// checkAgainstRef compares every observable of s with the model.
func checkAgainstRef(t testing.TB, s *Slice, r *refIndex, rng *rand.Rand) {
	t.Helper()
	if err := s.validate(); err != nil {
		t.Fatalf("invalid slice: %v", err)
	}
	if s.Lo() != r.lo || s.Hi() != r.hi {
		t.Fatalf("range [%d,%d), want [%d,%d)", s.Lo(), s.Hi(), r.lo, r.hi)
	}
	post := r.postings()
	n := 0
	for _, ds := range post {
		n += len(ds)
	}
	if s.Postings() != n || s.Keys() != len(post) {
		t.Fatalf("%d postings over %d keys, want %d over %d", s.Postings(), s.Keys(), n, len(post))
	}
	if !slices.Equal(s.keys, slices.Sorted(maps.Keys(post))) {
		t.Fatalf("keys differ")
	}
	var maxDoc uint64
	for c, want := range post {
		if got := s.LookupPostings(c); !slices.Equal(got, want) {
			t.Fatalf("LookupPostings(%d) = %#x, want %#x", c, got, want)
		}
		docs := make([]DocID, len(want))
		for i, p := range want {
			docs[i] = PostingDoc(p)
		}
		if got := s.Lookup(c); !slices.Equal(got, docs) {
			t.Fatalf("Lookup(%d) = %v, want %v", c, got, docs)
		}
		if s.DF(c) != len(want) {
			t.Fatalf("DF(%d) = %d, want %d", c, s.DF(c), len(want))
		}
		maxDoc = max(maxDoc, uint64(docs[len(docs)-1])+1)
	}
	if s.maxDoc != maxDoc {
		t.Fatalf("maxDoc %d, want %d", s.maxDoc, maxDoc)
	}
	// Absent chunks, inside and around the range.
	probes := []uint64{r.lo, r.hi - 1, r.lo - 1, r.hi}
	for range 200 {
		probes = append(probes, r.lo+rng.Uint64N(max(r.hi-r.lo, 1)))
	}
	for _, p := range probes {
		if p >= MaxSpace || r.hi == r.lo && p == r.lo {
			continue
		}
		c := uint32(p)
		if _, ok := post[c]; ok {
			continue
		}
		if s.Lookup(c) != nil || s.LookupPostings(c) != nil || s.DF(c) != 0 {
			t.Fatalf("Lookup(%d) = %v, want nil", c, s.Lookup(c))
		}
	}
}

// sliceDiff reports how two slices differ, "" when identical (including
// the derived directory).
func sliceDiff(a, b *Slice) string {
	switch {
	case a.lo != b.lo || a.hi != b.hi:
		return fmt.Sprintf("range [%d,%d) vs [%d,%d)", a.lo, a.hi, b.lo, b.hi)
	case !slices.Equal(a.keys, b.keys):
		return "keys differ"
	case !slices.Equal(a.offs, b.offs):
		return "offsets differ"
	case !slices.Equal(a.docs, b.docs):
		return "postings differ"
	case a.dirShift != b.dirShift || !slices.Equal(a.dir, b.dir):
		return "directories differ"
	case a.maxDoc != b.maxDoc:
		return fmt.Sprintf("maxDoc %d vs %d", a.maxDoc, b.maxDoc)
	}
	return ""
}

// corpusGen draws random corpora: a random range (tiny and dense, a
// sub-range, the whole space, or ending at 2^32) and documents whose chunks
// are partly drawn from a Zipf-distributed pool of popular chunk IDs, so
// some chunks have a large df, as template text does. Fingerprints come
// from a tiny alphabet, so that postings on one chunk ID agree with each
// other's fingerprints often and disagree often: a pool chunk mostly has
// its own fingerprint (the same window copied), sometimes another (a
// different window colliding on the ID).
type corpusGen struct {
	rng     *rand.Rand
	lo, hi  uint64
	pool    []uint32
	zipf    *rand.Zipf
	maxSize int
	shared  float64 // probability a chunk comes from the pool
}

// check draws the fingerprint of chunk c in a document.
func (g *corpusGen) check(c uint32) uint8 {
	if g.rng.IntN(4) > 0 {
		return uint8(c*0x9e3779b1>>29) % 3
	}
	return uint8(g.rng.IntN(3))
}

// withChecks makes a document of sorted, distinct chunks, drawing their
// fingerprints.
func (g *corpusGen) withChecks(doc DocID, chunks []uint32) DocChunks {
	checks := make([]uint8, len(chunks))
	for i, c := range chunks {
		checks[i] = g.check(c)
	}
	return DocChunks{Doc: doc, Chunks: chunks, Checks: checks}
}

func newCorpusGen(rng *rand.Rand) *corpusGen {
	g := &corpusGen{rng: rng}
	bits := 20 + rng.UintN(13) // 20..32
	space := uint64(1) << bits
	switch rng.IntN(5) {
	case 0: // tiny range: every chunk ID dense, every bucket shape degenerate
		w := 1 + rng.Uint64N(64)
		g.lo = rng.Uint64N(space - w + 1)
		g.hi = g.lo + w
	case 1:
		g.lo, g.hi = 0, space
	case 2:
		g.lo, g.hi = MaxSpace-space, MaxSpace
	default:
		a, b := rng.Uint64N(space), rng.Uint64N(space)
		if a > b {
			a, b = b, a
		}
		g.lo, g.hi = a, b+1
	}
	w := g.hi - g.lo
	g.pool = make([]uint32, 1+rng.IntN(200))
	for i := range g.pool {
		g.pool[i] = uint32(g.lo + rng.Uint64N(w))
	}
	g.zipf = rand.NewZipf(rng, 1.1+rng.Float64(), 1, uint64(len(g.pool)-1))
	g.maxSize = []int{1, 5, 50, 400}[rng.IntN(4)]
	g.shared = rng.Float64()
	return g
}

// doc draws one document's sorted, distinct chunks (possibly none) with
// their fingerprints.
func (g *corpusGen) doc(d DocID) DocChunks {
	n := g.rng.IntN(g.maxSize + 1)
	cs := make([]uint32, 0, n)
	for range n {
		if g.rng.Float64() < g.shared {
			cs = append(cs, g.pool[g.zipf.Uint64()])
		} else {
			cs = append(cs, uint32(g.lo+g.rng.Uint64N(g.hi-g.lo)))
		}
	}
	slices.Sort(cs)
	return g.withChecks(d, slices.Compact(cs))
}

// corpus fills a model with n documents under random, sparse DocIDs.
func (g *corpusGen) corpus(n int) *refIndex {
	r := newRef(g.lo, g.hi)
	idSpace := uint32(max(2*n, 1))
	if g.rng.IntN(4) == 0 {
		idSpace = 1 << 20 // sparse, large ids
	}
	for len(r.docs) < n {
		d := g.rng.Uint32N(idSpace)
		r.docs[d] = g.doc(d)
	}
	return r
}

func TestReferenceModelSelfCheck(t *testing.T) {
	r := newRef(0, 16)
	r.apply(nil, []DocChunks{dc(1, 3, 9), {5, []uint32{3}, []uint8{7}}, dc(2, 9)})
	post := r.postings()
	if !slices.Equal(post[3], []Posting{1 << 8, 5<<8 | 7}) || !slices.Equal(post[9], []Posting{1 << 8, 2 << 8}) {
		t.Fatalf("postings %v", post)
	}
	// Doc 5 has chunk 3 with another fingerprint: not shared.
	got := refCount(post, 1, []uint32{3, 9}, []uint8{0, 0}, 0, 1)
	if !slices.Equal(got, []Pair{{2, 1}}) {
		t.Fatalf("refCount %v", got)
	}
	got = refCount(post, 9, []uint32{3, 9}, []uint8{7, 0}, 0, 1)
	if !slices.Equal(got, []Pair{{1, 1}, {2, 1}, {5, 1}}) {
		t.Fatalf("refCount %v", got)
	}
}
