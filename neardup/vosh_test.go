package neardup

import (
	"math"
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
// the calibrated budget k = 8: ResetFirst (what Query calls with a budget)
// on the 20 header bits of a query's learned flip probabilities, then the 7
// masks after the query's own header. BenchmarkVOSHQueryFull is the same
// with Reset (the exact query's setup, and what Query called before
// ResetFirst).
func BenchmarkVOSHQuery(b *testing.B) { benchVOSHQuery(b, true) }

func BenchmarkVOSHQueryFull(b *testing.B) { benchVOSHQuery(b, false) }

func benchVOSHQuery(b *testing.B, first bool) {
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
		if first {
			v.ResetFirst(ps[i][Bits-20:], 3, 7)
		} else {
			v.Reset(ps[i][Bits-20:], 3)
		}
		for range 7 {
			v.Next()
		}
		i = (i + 1) % len(ps)
	}
}

// ResetFirst's first n masks are Reset's: masks, scores and order.
func TestVOSHResetFirstMatchesReset(t *testing.T) {
	r := testRand(t)
	var full, first VOSH
	for it := range 3000 {
		nb := 1 + r.IntN(24)
		if it%10 == 0 {
			nb = 64
		}
		h := 1 + r.IntN(4)
		p := make([]float64, nb)
		for i := range p {
			switch r.IntN(5) {
			case 0:
				p[i] = 0.5 * r.Float64() * r.Float64()
			case 1:
				p[i] = float64(r.IntN(5)) / 8 // ties, 0 and 1/2
			case 2:
				p[i] = 0.5 * float64(r.IntN(4)+1) / 7
			default:
				p[i] = 0.5 * r.Float64()
			}
		}
		switch it % 7 {
		case 0:
			p[r.IntN(nb)] = 0.5 + 0.5*r.Float64() // > 1/2: Reset's path
		case 1:
			p[r.IntN(nb)] = math.Copysign(0, -1) // -0 is outside too
		}
		n := r.IntN(nb + 3)
		full.Reset(p, h)
		first.ResetFirst(p, h, n)
		for i := range n {
			m1, s1, ok1 := full.Next()
			m2, s2, ok2 := first.Next()
			if m1 != m2 || math.Float64bits(s1) != math.Float64bits(s2) || ok1 != ok2 {
				t.Fatalf("nb=%d h=%d n=%d p=%v: mask %d is %b %v %v, Reset gives %b %v %v", nb, h, n, p, i, m2, s2, ok2, m1, s1, ok1)
			}
		}
	}
}

// The candidate lists are well formed for every n <= maxListN (their sizes
// are logged) and dominated agrees with brute force; that they hold every
// set that can be among the first n is TestVOSHResetFirstMatchesReset's.
func TestVOSHCandidates(t *testing.T) {
	for n := 1; n <= maxListN; n++ {
		for h := 1; h <= 6; h++ {
			c := voshCandidates(n, h)
			if h == 3 || h == 6 {
				t.Logf("n=%d h=%d: %d candidates, %d open pairs", n, h, len(c.ranks), len(c.open))
			}
			prev := uint64(0)
			for _, rs := range c.ranks {
				var set uint64
				for _, r := range rs {
					if r != maxListN {
						set |= 1 << r
					}
				}
				if bits.OnesCount64(set) > h || set>>n != 0 || set <= prev {
					t.Fatalf("n=%d h=%d: bad candidate %b", n, h, set)
				}
				prev = set
			}
		}
	}
	// dominated against brute force over all sets of 16 ranks.
	for _, set := range []uint64{0b1, 0b10, 0b11, 0b101, 0b110, 0b1011, 0b100110, 0b1001} {
		want := 0
		for o := uint64(1); o < 1<<16; o++ {
			if o != set && dominates(set, o) {
				want++
			}
		}
		if got := dominated(set); got != want {
			t.Errorf("dominated(%b) = %d, want %d", set, got, want)
		}
	}
}
