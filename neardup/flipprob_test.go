package neardup

import (
	"math"
	"testing"
)

func TestFlipProbShape(t *testing.T) {
	r := testRand(t)
	var pairs []Pair
	for range 2000 {
		a, b := plantedPair(r, 0.05+0.1*r.Float64())
		pairs = append(pairs, Pair{&a, &b})
	}
	m := LearnFlipModel(pairs)
	if len(m.Abs) != MaxQuantiles {
		t.Fatalf("%d quantiles", len(m.Abs))
	}
	prev := 1.0
	for c := 0.0; c < 3; c += 0.01 {
		p := m.Prob(c)
		if p <= 0 || p > 0.5 || p > prev || m.Prob(-c) != p {
			t.Fatalf("Prob(%v) = %v (previous %v)", c, p, prev)
		}
		prev = p
	}
	if (FlipModel{}).Prob(1) != 0.5 {
		t.Errorf("empty model")
	}
}

// Calibration: on fresh pairs from the same process, the fraction of bits
// that actually flipped, bucketed by predicted probability, is close to the
// prediction.
func TestFlipProbCalibrated(t *testing.T) {
	r := testRand(t)
	gen := func(n int) []Pair {
		var ps []Pair
		for range n {
			a, b := plantedPair(r, 0.05+0.1*r.Float64())
			ps = append(ps, Pair{&a, &b})
		}
		return ps
	}
	m := LearnFlipModel(gen(5000))
	const buckets = 10
	var pred, got, cnt [buckets]float64
	for _, p := range gen(20000) {
		probs := m.Probs(p.A)
		for j := range Bits {
			k := min(int(probs[j]*2*buckets), buckets-1)
			pred[k] += probs[j]
			cnt[k]++
			if (p.A[j] >= 0) != (p.B[j] >= 0) {
				got[k]++
			}
		}
	}
	for k := range buckets {
		if cnt[k] < 2000 {
			continue
		}
		pr, gt := pred[k]/cnt[k], got[k]/cnt[k]
		t.Logf("bucket %d: n=%.0f predicted %.4f observed %.4f", k, cnt[k], pr, gt)
		if math.Abs(pr-gt) > 0.03+0.2*pr {
			t.Errorf("bucket %d: predicted %.4f observed %.4f", k, pr, gt)
		}
	}
}
