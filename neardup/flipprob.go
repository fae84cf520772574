package neardup

// Per-bit flip probabilities (Sood and Loguinov, section 3): bit j of a document's
// simhash flips in a near-duplicate when the weight change Y_j = W_j(u) -
// W_j(v) exceeds |W_j(u)| with the right sign, so p_j = P(Y > |W_j|), taken
// from the empirical distribution of Y over known near-duplicate pairs. All
// bits share one distribution (they are built identically), so one model
// serves every bit.

import (
	"math"
	"slices"
)

// FlipModel is the empirical distribution of |Y| as a sorted quantile
// table: small enough (at most MaxQuantiles floats) to store alongside the
// hashes and ship to every process that answers queries.
type FlipModel struct {
	// Abs holds quantiles of |Y|, ascending; quantile i is at rank
	// (i+0.5)/len(Abs).
	Abs []float64
}

// MaxQuantiles bounds the size of a learned FlipModel.
const MaxQuantiles = 1024

// Pair is the per-bit weights of two documents known to be near-duplicates
// (e.g. a text and an edited copy, or pairs with high cosine similarity).
type Pair struct{ A, B *Weights }

// LearnFlipModel estimates the distribution of weight changes from pairs of
// near-duplicates, pooling all 64 bits of every pair. It returns a model
// with no quantiles (every bit equally likely to flip) if pairs is empty.
func LearnFlipModel(pairs []Pair) FlipModel {
	ys := make([]float64, 0, len(pairs)*Bits)
	for _, p := range pairs {
		for j := range Bits {
			ys = append(ys, math.Abs(p.A[j]-p.B[j]))
		}
	}
	return flipModelFromSamples(ys)
}

func flipModelFromSamples(ys []float64) FlipModel {
	if len(ys) == 0 {
		return FlipModel{}
	}
	slices.Sort(ys)
	q := min(len(ys), MaxQuantiles)
	abs := make([]float64, q)
	for i := range abs {
		abs[i] = ys[int((float64(i)+0.5)*float64(len(ys))/float64(q))]
	}
	return FlipModel{Abs: abs}
}

// Prob is the probability that a bit whose weight is c flips:
// P(Y > |c|) = P(|Y| > |c|)/2, Y being symmetric around 0. It is smoothed
// so it is never 0 (a bit beyond every sample may still flip, just last) and
// at most 1/2.
func (m FlipModel) Prob(c float64) float64 {
	n := len(m.Abs)
	if n == 0 {
		return 0.5
	}
	c = math.Abs(c)
	// above = number of quantiles strictly greater than |c|.
	above := n - sort64(m.Abs, c)
	return (float64(above) + 0.5) / (2 * float64(n+1))
}

// sort64 is the number of elements of the ascending a that are <= c.
func sort64(a []float64, c float64) int {
	lo, hi := 0, len(a)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if a[mid] <= c {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// Probs is Prob for every bit of a query's weights.
func (m FlipModel) Probs(W *Weights) (p [Bits]float64) {
	for j, w := range W {
		p[j] = m.Prob(w)
	}
	return p
}
