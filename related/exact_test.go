package related

import (
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/plagd/plagd/internal/testseed"
	"github.com/plagd/plagd/termstat"
)

func TestExactBruteForce(t *testing.T) {
	r := testseed.Rand(t)
	for _, n := range []int{1, 2, 50, 400} {
		d := randomVectors(r, n, 300, 20)
		q := randomVectors(r, 37, 300, 20)
		for _, k := range []int{1, 2, 5, 10} {
			s := Prepare(nil, d, true, Pool(3))
			got, _ := Exact(s, NewIndex(s), k, Pool(3))
			sameLists(t, "self", got, brute(nil, d, true, k, 0))
			s = Prepare(q, d, false, Pool(2))
			got, _ = Exact(s, NewIndex(s), k, Pool(2))
			sameLists(t, "R-S", got, brute(q, d, false, k, 0))
		}
	}
}

// TestExactRealText runs the whole pipeline on the Indonesian corpus in
// samples/: analysis, model, vectors, exact join, against brute force.
func TestExactRealText(t *testing.T) {
	texts := sampleTexts(t)
	vs, _ := vectorsOf(texts, 0)
	for _, k := range []int{2, 10} {
		s := Prepare(nil, vs, true, Pool(2))
		got, _ := Exact(s, NewIndex(s), k, Pool(2))
		sameLists(t, "samples", got, brute(nil, vs, true, k, 0))
	}
}

// sampleTexts reads the PAN-format corpus in the repository's samples/.
func sampleTexts(t testing.TB) []string {
	t.Helper()
	var texts []string
	for _, dir := range []string{"source-documents", "suspicious-documents"} {
		files, _ := filepath.Glob(filepath.Join("..", "samples", "pan-id", dir, "*.txt"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			texts = append(texts, string(b))
		}
	}
	if len(texts) == 0 {
		t.Skip("no samples/pan-id")
	}
	return texts
}

// vectorsOf analyses texts and weighs them with a model of the texts
// themselves.
func vectorsOf(texts []string, maxDF float64) ([]Vector, []Lang) {
	df := termstat.NewDocFreq()
	counts := make([][]TermCount, len(texts))
	langs := make([]Lang, len(texts))
	for i, s := range texts {
		langs[i], counts[i] = Analyze(s, nil)
		df.Add(counts[i])
	}
	m := NewModel(1, df, maxDF)
	vs := make([]Vector, len(texts))
	for i := range counts {
		vs[i] = m.Vector(counts[i])
	}
	return vs, langs
}

// TestExactAboveFindsEveryPairAboveTheFloor: ExactAbove's lists equal
// Exact's, and above[d] holds exactly the queries whose brute-force
// similarity (the cosine rounded by simOf) with d is positive and at least
// floor[d].
func TestExactAboveFindsEveryPairAboveTheFloor(t *testing.T) {
	r := testseed.Rand(t)
	d := randomVectors(r, 200, 150, 20)
	q := randomVectors(r, 30, 150, 20)
	floor := make([]float32, len(d))
	for i := range floor {
		floor[i] = float32(r.Float64() * 0.3)
	}
	s := Prepare(q, d, false, Pool(2))
	x := NewIndex(s)
	want, _ := Exact(s, x, 5, Pool(2))
	got, above, _ := ExactAbove(s, x, 5, floor, Pool(2))
	sameLists(t, "ExactAbove top", got, want)
	for di := range d {
		var exp []int32
		for qi := range q {
			// The product's rule (topk.go): the similarity is simOf of
			// the cosine, compared with the floor as it is; the unrounded
			// cosine with a tolerance disagreed within a rounding step
			// (PLAGD_TEST_SEED=17917675382031978690).
			if c := simOf(Cosine(q[qi], d[di])); c > 0 && c >= floor[di] {
				exp = append(exp, int32(qi))
			}
		}
		var have []int32
		for _, n := range above[di] {
			have = append(have, n.Doc)
		}
		if !slices.Equal(exp, have) {
			t.Fatalf("data %d: above %v, brute force %v", di, have, exp)
		}
	}
}

// TestExactSelfEqualsExact: the symmetric self join gives Exact's lists
// bit for bit (and the brute-force ones), reading half the postings.
func TestExactSelfEqualsExact(t *testing.T) {
	r := testseed.Rand(t)
	for _, n := range []int{1, 2, 50, 400} {
		d := randomVectors(r, n, 300, 20)
		for _, k := range []int{1, 2, 5, 10} {
			s := Prepare(nil, d, true, Pool(3))
			x := NewIndex(s)
			want, all := Exact(s, x, k, Pool(3))
			// Each way of reading the accumulator (the whole of it, the
			// documents touched, chosen per query) gives the same lists.
			for _, mode := range []int{0, 1, -1} {
				denseAcc = mode
				var done atomic.Int64
				got, half := ExactSelfCounted(s, x, k, Pool(3), &done)
				denseAcc = 0
				// Its progress ends at the work it announced, the
				// postings it read.
				if done.Load() != half.Postings || half.Postings != x.SelfWork() {
					t.Fatalf("n=%d k=%d mode %d: counted %d postings, read %d, SelfWork %d", n, k, mode, done.Load(), half.Postings, x.SelfWork())
				}
				for i := range want {
					if !slices.Equal(got[i], want[i]) {
						t.Fatalf("n=%d k=%d mode %d: document %d: %v, Exact gives %v", n, k, mode, i, got[i], want[i])
					}
				}
				sameLists(t, "brute", got, brute(nil, d, true, k, 0))
				if n > 2 && 2*half.Postings > all.Postings {
					t.Errorf("n=%d: %d postings read, Exact reads %d", n, half.Postings, all.Postings)
				}
			}
		}
	}
}

// TestExactOfIsASubsetOfExactAbove: joining some documents of a self join
// gives their lists and above-floor hits of the join of all, bit for bit.
func TestExactOfIsASubsetOfExactAbove(t *testing.T) {
	r := testseed.Rand(t)
	for _, n := range []int{1, 50, 400} {
		d := randomVectors(r, n, 300, 20)
		s := Prepare(nil, d, true, Pool(3))
		x := NewIndex(s)
		floor := make([]float32, n)
		for i := range floor {
			floor[i] = r.Float32() / 2
		}
		allTop, allAbove, _ := ExactAbove(s, x, 5, floor, Pool(3))
		var qs []int32
		for i := range n {
			if r.IntN(3) == 0 {
				qs = append(qs, int32(i))
			}
		}
		top, above, _ := ExactOf(s, x, 5, qs, floor, Pool(2))
		for j, q := range qs {
			if !slices.Equal(top[j], allTop[q]) {
				t.Fatalf("n=%d: document %d: %v, want %v", n, q, top[j], allTop[q])
			}
		}
		for dd := range n {
			var want []Neighbor
			for _, h := range allAbove[dd] {
				if j, ok := slices.BinarySearch(qs, h.Doc); ok {
					want = append(want, Neighbor{Doc: int32(j), Sim: h.Sim})
				}
			}
			if !slices.Equal(above[dd], want) {
				t.Fatalf("n=%d: above %d: %v, want %v", n, dd, above[dd], want)
			}
		}
		if top, _, _ := ExactOf(s, x, 5, qs, nil, Pool(2)); len(top) != len(qs) {
			t.Fatalf("n=%d: %d lists for %d queries", n, len(top), len(qs))
		}
	}
}

// TestNewIndexSplitsLikeOnePass: built by several ranges of documents at
// once, the index is the one a single pass in document order builds.
func TestNewIndexSplitsLikeOnePass(t *testing.T) {
	r := testseed.Rand(t)
	d := randomVectors(r, 9000, 300, 20)
	s := Prepare(nil, d, true, Pool(3))
	x := NewIndex(s)
	var want [][]int32
	want = make([][]int32, len(s.terms))
	for i := range s.d {
		for _, term := range s.d[i].t {
			want[term] = append(want[term], int32(i))
		}
	}
	for term := range s.terms {
		got := x.doc[x.off[term]:x.off[term+1]]
		if !slices.Equal(got, want[term]) {
			t.Fatalf("term %d: postings %v, one pass gives %v", term, got, want[term])
		}
		for p := x.off[term]; p < x.off[term+1]; p++ {
			dd := &s.d[x.doc[p]]
			j, _ := slices.BinarySearch(dd.t, uint32(term))
			if dd.w[j] != x.w[p] {
				t.Fatalf("term %d, document %d: weight %v, document has %v", term, x.doc[p], x.w[p], dd.w[j])
			}
		}
	}
}

// TestExactJoins_SkippingBelowTheFloorsChangesNothing: the joins give the
// same lists and above-floor hits, bit for bit, whether they skip the
// pairs whose raw sum lies below the floors (belowBoth) or round and offer
// every pair, on vectors made to tie: exact copies, and copies with one
// weight moved by less than the rounding step, so that many similarities
// are equal or within a millionth of the k-th and of the floors.
func TestExactJoins_SkippingBelowTheFloorsChangesNothing(t *testing.T) {
	r := testseed.Rand(t)
	base := randomVectors(r, 60, 120, 12)
	var d []Vector
	for _, v := range base {
		d = append(d, v)
		for range r.IntN(4) {
			c := Vector{Terms: slices.Clone(v.Terms), W: slices.Clone(v.W), Norm: v.Norm}
			if len(c.W) > 0 && r.IntN(2) == 0 {
				c.W[r.IntN(len(c.W))] *= float32(1 + (r.Float64()-0.5)*4e-6)
			}
			d = append(d, c)
		}
	}
	q := d[:len(d)/3]
	run := func() (self, ex, rs [][]Neighbor, above [][]Neighbor) {
		s := Prepare(nil, d, true, Pool(2))
		x := NewIndex(s)
		self, _ = ExactSelf(s, x, 7, Pool(2))
		for _, mode := range []int{1, -1} {
			denseAcc = mode
			forced, _ := ExactSelf(s, x, 7, Pool(2))
			denseAcc = 0
			for i := range self {
				if !slices.Equal(forced[i], self[i]) {
					t.Fatalf("ExactSelf, list %d: mode %d gives %v, the chosen modes %v", i, mode, forced[i], self[i])
				}
			}
		}
		ex, _ = Exact(s, x, 7, Pool(2))
		// Floors at similarities that occur: the k-th of each document's list.
		floor := make([]float32, len(d))
		for i, l := range ex {
			if len(l) > 0 {
				floor[i] = l[len(l)-1].Sim
			}
		}
		sq := Prepare(q, d, false, Pool(2))
		rs, above, _ = ExactAbove(sq, NewIndex(sq), 5, floor, Pool(2))
		return
	}
	s1, e1, r1, a1 := run()
	skipBelowFloors = false
	defer func() { skipBelowFloors = true }()
	s2, e2, r2, a2 := run()
	for name, pair := range map[string][2][][]Neighbor{"ExactSelf": {s1, s2}, "Exact": {e1, e2}, "ExactAbove": {r1, r2}, "above": {a1, a2}} {
		got, want := pair[0], pair[1]
		for i := range want {
			if !slices.Equal(got[i], want[i]) {
				t.Fatalf("%s, list %d: skipping gives %v, offering every pair %v", name, i, got[i], want[i])
			}
		}
	}
	sameLists(t, "ExactSelf against brute force", s1, brute(nil, d, true, 7, 0))
}
