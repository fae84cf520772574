package related

import (
	"math"
	"testing"

	"github.com/plagd/plagd/internal/testseed"
)

// Example 4 of the paper: a's first and second iteration projections, their
// cosines with a, and the choice l = 2 at σ = 0.8, λ = 3.
func TestProjectionPaperExample4(t *testing.T) {
	a := []float64{0, 27, 17, 0, 5, 9, 0, 11, 6, 11, 0, 13, 14}
	b := []float64{0, 27, 21, 0, 0, 0, 15, 0, 5, 0, 0, 6, 10}
	c := []float64{0, 0, 0, 29, 0, 0, 16, 0, 0, 0, 4, 0, 5}
	var vs []Vector
	for _, x := range [][]float64{a, b, c} {
		var terms []uint64
		for i := range x {
			terms = append(terms, termOf(i))
		}
		vs = append(vs, vectorOf(terms, x))
	}
	s := Prepare(nil, vs, true, Pool(1))
	z := newZorder(s, true)
	if z.emax != 5 {
		t.Fatalf("e_max %d, want 5 (μ = 29)", z.emax)
	}
	va := &s.d[0]
	for l, want := range map[int]float64{1: 0.7590, 2: 0.9826} {
		keys, got := z.project(va, l, 1, nil)
		if got != l {
			t.Fatalf("l=%d: projected to %d", l, got)
		}
		var part float64
		for i, tm := range va.t {
			for _, k := range keys {
				if k == tm {
					part += float64(va.w[i]) * float64(va.w[i])
				}
			}
		}
		if cos := math.Sqrt(part); math.Abs(cos-want) > 5e-4 {
			t.Errorf("S_c(a, ā^%d) = %.4f, want %.4f", l, cos, want)
		}
	}
	keys, l := z.project(va, 3, 0.8, nil)
	if l != 2 || len(keys) != 7 {
		t.Fatalf("σ=0.8: l=%d with %d terms, want l=2 with 7", l, len(keys))
	}
	// b shares important terms with a, c does not: CIT compares a with b only.
	zl := NewZolip(s, Params{K: 2, Lambda: 3, Sigma: 0.8})
	ndd := zl.NDD(Pool(1))
	cit := zl.CIT(Pool(1), ndd)
	if got := cit.Lists[0]; len(got) != 1 || got[0].Doc != 1 || math.Abs(float64(got[0].Sim)-0.8045) > 5e-4 {
		t.Fatalf("CIT for a: %v, want b at 0.8045", got)
	}
}

// Example 2 of the paper: a and b share the 3-bit Z-order prefix, c does not.
func TestKeyPaperExample2(t *testing.T) {
	a := []float64{0, 8, 5, 0.25, 0.125, 0, 0.25, 0, 0, 0.75}
	b := []float64{0.5, 9, 4, 0, 0, 0.125, 0, 0, 0, 0}
	c := []float64{9, 0.25, 7, 0, 0.75, 1, 0.5, 1, 0, 7}
	var vs []Vector
	for _, x := range [][]float64{a, b, c} {
		var terms []uint64
		for i := range x {
			terms = append(terms, termOf(i))
		}
		vs = append(vs, vectorOf(terms, x))
	}
	s := Prepare(nil, vs, true, Pool(1))
	z := newZorder(s, true)
	ka, _ := z.key(s, &s.d[0], 3)
	kb, _ := z.key(s, &s.d[1], 3)
	kc, _ := z.key(s, &s.d[2], 3)
	if ka != kb || ka == kc {
		t.Fatalf("keys a=%x b=%x c=%x: want a == b != c", ka, kb, kc)
	}
	res, st := ZOLIP(s, Params{K: 1, Lambda: 3, Sigma: 0.8}, Pool(1))
	if st.NDDOnly != 2 || res[0][0].Doc != 1 || res[1][0].Doc != 0 {
		t.Fatalf("NDD answered %d, results %v", st.NDDOnly, res)
	}
}

// Whatever the parameters, ZOLIP returns real pairs with their true cosine,
// best first, at most k, never the query itself.
func TestZolipTrueSimilarities(t *testing.T) {
	r := testseed.Rand(t)
	d := randomVectors(r, 500, 300, 20)
	q := randomVectors(r, 50, 300, 20)
	for _, self := range []bool{true, false} {
		s := Prepare(q, d, self, Pool(2))
		qs := q
		if self {
			qs = d
		}
		for _, p := range []Params{{K: 2, Lambda: 4, Sigma: 0.5}, {K: 10, Lambda: 8, Sigma: 0.8}, {K: 5, Lambda: 6, Sigma: 0.9, Unit: true}} {
			res, st := ZOLIP(s, p, Pool(2))
			if st.Queries != len(qs) || st.NDDOnly > st.Keyed {
				t.Fatalf("stats %+v", st)
			}
			for i, l := range res {
				if len(l) > p.K {
					t.Fatalf("query %d: %d neighbours", i, len(l))
				}
				seen := map[int32]bool{}
				for j, n := range l {
					if self && int(n.Doc) == i || seen[n.Doc] {
						t.Fatalf("query %d: bad neighbour %v in %v", i, n, l)
					}
					seen[n.Doc] = true
					if want := Cosine(qs[i], d[n.Doc]); math.Abs(want-float64(n.Sim)) > 1e-5 {
						t.Fatalf("query %d: %v, true cosine %v", i, n, want)
					}
					if j > 0 && better(n, l[j-1]) {
						t.Fatalf("query %d: not sorted %v", i, l)
					}
				}
			}
		}
	}
}

// With λ deep enough that every weight is in the prefix and σ = 1 (the
// projection is the whole vector), CIT compares every pair sharing a term:
// ZOLIP is exact.
func TestZolipExhaustiveIsExact(t *testing.T) {
	r := testseed.Rand(t)
	d := randomVectors(r, 400, 300, 20)
	q := randomVectors(r, 60, 300, 20)
	for _, self := range []bool{true, false} {
		s := Prepare(q, d, self, Pool(2))
		for _, k := range []int{1, 2, 5, 10} {
			want, _ := Exact(s, NewIndex(s), k, Pool(2))
			got, st := ZOLIP(s, Params{K: k, Lambda: 63, Sigma: 1, Parts: 7, Tasks: 5}, Pool(3))
			sameLists(t, "exhaustive", got, want)
			if st.Type1 != 0 {
				t.Fatalf("type-1 queries at λ=63: %+v", st)
			}
		}
	}
}
