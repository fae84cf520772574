package termstat

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortByTerm against slices.SortStableFunc, on random hashes of every
// size around the thresholds, on terms sharing their top bits (one bucket
// for all), and with repeated terms.
func TestSortByTerm(t *testing.T) {
	seed := rand.Uint64()
	r := rand.New(rand.NewPCG(seed, 1))
	gens := map[string]func() uint64{
		"uniform":  r.Uint64,
		"top bits": func() uint64 { return 0xabc<<52 | r.Uint64()>>12 },
		"repeats":  func() uint64 { return uint64(r.IntN(20)) << 58 },
		"low bits": func() uint64 { return r.Uint64N(1 << 20) },
	}
	for name, gen := range gens {
		for _, n := range []int{0, 1, 2, 31, 33, 63, 64, 65, 100, 1000, 4095, 4096, 4097, 30000} {
			tc := make([]TermCount, n)
			for i := range tc {
				tc[i] = TermCount{Term: gen(), Count: uint32(i)}
			}
			want := slices.Clone(tc)
			slices.SortStableFunc(want, func(x, y TermCount) int { return cmp.Compare(x.Term, y.Term) })
			SortByTerm(tc)
			for i := range tc {
				if tc[i].Term != want[i].Term {
					t.Fatalf("seed %d, %s, %d terms: place %d holds %x, want %x", seed, name, n, i, tc[i].Term, want[i].Term)
				}
			}
			// Same multiset: each count (its original place) once.
			seen := make([]bool, n)
			for _, x := range tc {
				if seen[x.Count] {
					t.Fatalf("seed %d, %s, %d terms: term %d twice", seed, name, n, x.Count)
				}
				seen[x.Count] = true
			}
		}
	}
}

func BenchmarkSortByTerm(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{150, 600, 2000, 6000} {
		tc := make([]TermCount, n)
		for i := range tc {
			tc[i] = TermCount{Term: r.Uint64(), Count: 1}
		}
		w := make([]TermCount, n)
		b.Run(fmt.Sprintf("SortFunc/%d", n), func(b *testing.B) {
			for b.Loop() {
				copy(w, tc)
				slices.SortFunc(w, func(x, y TermCount) int { return cmp.Compare(x.Term, y.Term) })
			}
		})
		b.Run(fmt.Sprintf("SortByTerm/%d", n), func(b *testing.B) {
			for b.Loop() {
				copy(w, tc)
				SortByTerm(w)
			}
		})
	}
}
