package neardup

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// bruteMasks lists every mask of 1..h of nb bits with its score, computed
// with the generator's own rank order and summation, sorted by decreasing
// score: the reference VOSH must reproduce, in Θ(l log l) instead of
// Θ(k log k).
func bruteMasks(v *VOSH, h int) []voshNode {
	var out []voshNode
	var rec func(set uint64, from, left int)
	rec = func(set uint64, from, left int) {
		if set != 0 {
			var mask uint64
			for m := set; m != 0; m &= m - 1 {
				mask |= 1 << v.pos[bits.TrailingZeros64(m)]
			}
			out = append(out, voshNode{v.score(set), mask})
		}
		if left == 0 {
			return
		}
		for r := from; r < v.nb; r++ {
			rec(set|1<<r, r+1, left-1)
		}
	}
	rec(0, 0, h)
	slices.SortStableFunc(out, func(a, b voshNode) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	return out
}

func TestVOSHMatchesBruteForce(t *testing.T) {
	r := testRand(t)
	var v VOSH
	for it := range 300 {
		nb := 1 + r.IntN(20)
		h := 1 + r.IntN(4)
		if it%10 == 0 {
			nb = 64
			h = 2
		}
		p := make([]float64, nb)
		for i := range p {
			switch r.IntN(4) {
			case 0:
				p[i] = 0.5 * r.Float64() * r.Float64()
			case 1:
				p[i] = float64(r.IntN(3)) / 8 // ties
			default:
				p[i] = r.Float64()
			}
		}
		v.Reset(p, h)
		want := bruteMasks(&v, h)
		var got []voshNode
		seen := map[uint64]bool{}
		for {
			m, s, ok := v.Next()
			if !ok {
				break
			}
			if seen[m] || m>>nb != 0 || bits.OnesCount64(m) > h || m == 0 {
				t.Fatalf("nb=%d h=%d: bad or repeated mask %b", nb, h, m)
			}
			seen[m] = true
			got = append(got, voshNode{s, m})
		}
		if len(got) != len(want) {
			t.Fatalf("nb=%d h=%d: %d masks, want %d", nb, h, len(got), len(want))
		}
		for i := range got {
			// Non-increasing, and every prefix has the brute-force prefix's
			// scores (the same sets up to ties).
			if got[i].score != want[i].score {
				t.Fatalf("nb=%d h=%d: mask %d has score %v, brute force %v", nb, h, i, got[i].score, want[i].score)
			}
		}
	}
}

// The first masks follow the volatility order: at h=1, the bits by
// decreasing probability.
func TestVOSHSingleBits(t *testing.T) {
	var v VOSH
	v.Reset([]float64{0.1, 0.4, 0.01, 0.3}, 1)
	var got []uint64
	for {
		m, _, ok := v.Next()
		if !ok {
			break
		}
		got = append(got, m)
	}
	if !slices.Equal(got, []uint64{0b10, 0b1000, 0b1, 0b100}) {
		t.Errorf("order %b", got)
	}
	// Two likely bits beat one unlikely bit: 0.4*0.3/(0.6*0.7) > 0.01/0.99.
	v.Reset([]float64{0.4, 0.3, 0.01}, 2)
	var seq []uint64
	for {
		m, _, ok := v.Next()
		if !ok {
			break
		}
		seq = append(seq, m)
	}
	if !slices.Equal(seq[:4], []uint64{0b1, 0b10, 0b11, 0b100}) {
		t.Errorf("order %b", seq)
	}
}

func BenchmarkVOSH(b *testing.B) {
	p := make([]float64, 20)
	for i := range p {
		p[i] = 0.5 / float64(i+1)
	}
	var v VOSH
	for b.Loop() {
		v.Reset(p, 3)
		for range 100 {
			v.Next()
		}
	}
}

// BenchmarkVOSHQuery is VOSH's share of one PSM query over 2^20 hashes at
// the calibrated budget: Reset on the 20 header bits of a query's learned
// flip probabilities, then the 7 masks after the query's own header.
func BenchmarkVOSHQuery(b *testing.B) {
	r := rand.New(rand.NewPCG(2, 3))
	var train []Pair
	for range 2000 {
		a, c := plantedPair(r, 0.05+0.15*r.Float64())
		train = append(train, Pair{&a, &c})
	}
	m := LearnFlipModel(train)
	ps := make([][Bits]float64, 2000)
	for i := range ps {
		a, _ := plantedPair(r, 0.1)
		ps[i] = m.Probs(&a)
	}
	var v VOSH
	i := 0
	for b.Loop() {
		v.Reset(ps[i][Bits-20:], 3)
		for range 7 {
			v.Next()
		}
		i = (i + 1) % len(ps)
	}
}
