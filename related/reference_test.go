package related

// Brute force and shared helpers for the tests.

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// brute is the reference top-k: every pair, Cosine on the Vectors, ranked
// by the rule every join applies (simOf, then the lower document).
func brute(q, d []Vector, self bool, k int, minSim float64) [][]Neighbor {
	if self {
		q = d
	}
	out := make([][]Neighbor, len(q))
	for i := range q {
		var ns []Neighbor
		for j := range d {
			if self && i == j {
				continue
			}
			// The product's one rule (topk.go): a pair's similarity is
			// its cosine rounded by simOf, ties go to the lower document,
			// and a cosine that rounds to 0 is no neighbour. Ranking by the
			// unrounded cosine instead disagrees with every join whenever two
			// cosines round to the same figure and the cut falls between
			// them (PLAGD_TEST_SEED=1795512974884775252, issue 14 item 15).
			v := Cosine(q[i], d[j])
			if sim := simOf(v); sim > 0 && v >= minSim {
				ns = append(ns, Neighbor{int32(j), sim})
			}
		}
		sortNeighbors(ns)
		out[i] = ns[:min(k, len(ns))]
	}
	return out
}

// vectorOf makes a Vector from raw tf-idf values by term hash.
func vectorOf(terms []uint64, raw []float64) Vector {
	idx := make([]int, len(terms))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		if terms[a] < terms[b] {
			return -1
		}
		return 1
	})
	var ss float64
	for _, w := range raw {
		ss += w * w
	}
	n := math.Sqrt(ss)
	v := Vector{Norm: float32(n)}
	for _, i := range idx {
		if raw[i] <= 0 {
			continue
		}
		v.Terms = append(v.Terms, terms[i])
		v.W = append(v.W, float32(raw[i]/n))
	}
	return v
}

// termOf is the hash of test term i: spread out, unlike i itself.
func termOf(i int) uint64 { return uint64(i)*0x9e3779b97f4a7c15 + 1 }

// randomVectors draws n sparse vectors over a Zipf vocabulary, with topics
// (documents of a topic favour its words) and some near-duplicates, so that
// every phase of every join has work and ties are rare.
func randomVectors(r *rand.Rand, n, vocab, meanLen int) []Vector {
	topics := max(1, n/20)
	out := make([]Vector, 0, n)
	for len(out) < n {
		if len(out) > 0 && r.IntN(8) == 0 {
			// near-duplicate: perturb the weights of an earlier vector
			src := out[r.IntN(len(out))]
			terms := slices.Clone(src.Terms)
			raw := make([]float64, len(terms))
			for i, w := range src.W {
				raw[i] = float64(w) * float64(src.Norm) * (0.9 + 0.2*r.Float64())
			}
			out = append(out, vectorOf(terms, raw))
			continue
		}
		topic := r.IntN(topics)
		m := 1 + r.IntN(2*meanLen)
		seen := map[int]bool{}
		var terms []uint64
		var raw []float64
		for range m {
			var t int
			if r.IntN(2) == 0 {
				t = int(float64(vocab) * math.Pow(r.Float64(), 3)) // background, skewed
			} else {
				t = vocab + topic*50 + r.IntN(50) // topic words
			}
			if seen[t] {
				continue
			}
			seen[t] = true
			terms = append(terms, termOf(t))
			raw = append(raw, float64(1+r.IntN(5))*(0.5+3*r.Float64()))
		}
		out = append(out, vectorOf(terms, raw))
	}
	return out
}

// sameLists fails unless got and want hold the same neighbours in the same
// order with the same similarities (to float32 rounding).
func sameLists(t *testing.T, what string, got, want [][]Neighbor) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d lists, want %d", what, len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if len(g) != len(w) {
			t.Fatalf("%s: query %d: %d neighbours %v, want %d %v", what, i, len(g), g, len(w), w)
		}
		for j := range w {
			if math.Abs(float64(g[j].Sim-w[j].Sim)) > 1e-5 {
				t.Fatalf("%s: query %d rank %d: %v, want %v", what, i, j, g[j], w[j])
			}
			// Documents may differ only between near-equal similarities.
			if g[j].Doc != w[j].Doc && !tied(w, g[j]) {
				t.Fatalf("%s: query %d rank %d: %v, want %v (all %v vs %v)", what, i, j, g[j], w[j], g, w)
			}
		}
	}
}

// tied reports whether n's document is in list with about n's similarity.
func tied(list []Neighbor, n Neighbor) bool {
	for _, x := range list {
		if x.Doc == n.Doc && math.Abs(float64(x.Sim-n.Sim)) <= 1e-5 {
			return true
		}
	}
	return false
}
