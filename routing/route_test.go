package routing

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func randSet(rng *rand.Rand, n int, universe uint64) []uint64 {
	s := make([]uint64, n)
	for i := range s {
		s[i] = rng.Uint64N(universe)
	}
	slices.Sort(s)
	return slices.Compact(s)
}

func TestRoute_BruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for range 2000 {
		fs := randSet(rng, rng.IntN(20), 1<<rng.IntN(64))
		k, m := 1+rng.IntN(128), 1+rng.IntN(10)
		got := Route(fs, k, m, nil)
		want := []int{}
		for i, h := range fs {
			if i < m {
				want = append(want, int(h%uint64(k)))
			}
		}
		slices.Sort(want)
		want = slices.Compact(want)
		if !slices.Equal(got, want) {
			t.Fatalf("Route(%v, %d, %d) = %v, want %v", fs, k, m, got, want)
		}
	}
	if got := Route([]uint64{5, 9}, 1, 3, nil); !slices.Equal(got, []int{0}) {
		t.Errorf("K=1: %v", got)
	}
}

func TestJaccard_BruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	for range 2000 {
		a, b := randSet(rng, rng.IntN(30), 40), randSet(rng, rng.IntN(30), 40)
		in := map[uint64]int{}
		for _, x := range a {
			in[x]++
		}
		for _, x := range b {
			in[x]++
		}
		inter := 0
		for _, c := range in {
			if c == 2 {
				inter++
			}
		}
		want := 0.0
		if len(in) > 0 {
			want = float64(inter) / float64(len(in))
		}
		if got := Jaccard(a, b); math.Abs(got-want) > 1e-12 || Shared(a, b) != inter {
			t.Fatalf("Jaccard(%v, %v) = %v, want %v", a, b, got, want)
		}
	}
}

// TestRoute_Bound checks the paper's lemma on random sets: sets with Jaccard
// similarity s share at least one routed partition with probability at least
// 1-(1-s)^m (up to sampling error). Large K makes collisions of distinct
// features rare, so the bound is nearly tight.
func TestRoute_Bound(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	const k, trials = 1 << 20, 3000
	for _, m := range []int{1, 3, 5} {
		for _, s := range []float64{0.2, 0.5} {
			// |A ∩ B| = c, |A \ B| = |B \ A| = d: s = c / (c + 2d).
			const c = 40
			d := int(float64(c) * (1/s - 1) / 2)
			s := float64(c) / float64(c+2*d)
			meet := 0
			for range trials {
				// Random 64-bit features: distinct but for a 2^-50 chance.
				all := make([]uint64, c+2*d)
				for i := range all {
					all[i] = rng.Uint64()
				}
				a := slices.Sorted(slices.Values(all[:c+d]))
				b := slices.Sorted(slices.Values(slices.Concat(all[:c], all[c+d:])))
				pa, pb := Route(a, k, m, nil), Route(b, k, m, nil)
				for _, p := range pa {
					if slices.Contains(pb, p) {
						meet++
						break
					}
				}
			}
			got, bound := float64(meet)/trials, 1-math.Pow(1-s, float64(m))
			t.Logf("m=%d s=%.3f: met %.3f, bound %.3f", m, s, got, bound)
			if got < bound-0.03 {
				t.Errorf("m=%d s=%.3f: met %.3f < bound %.3f", m, s, got, bound)
			}
		}
	}
}
