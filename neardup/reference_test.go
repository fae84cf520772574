package neardup

// Seeded randomness for the property tests and the generators of synthetic
// documents and planted near-duplicates the tests and benchmarks share.

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/plagd/plagd/internal/testseed"
)

// testRand returns a seeded RNG and logs the seed (internal/testseed), so
// every failure can be replayed with -seed=N or PLAGD_TEST_SEED=N.
func testRand(t testing.TB) *rand.Rand { t.Helper(); return testseed.Rand(t) }

// zipfText returns n words drawn from a Zipf vocabulary, the shape of real
// text, so TF-IDF has common and rare words to weigh. Half of them come from
// the document's own topic vocabulary (topic != 0), so that unrelated
// documents are not near-duplicates by their function words alone.
func zipfText(r *rand.Rand, z *rand.Zipf, n int, topic int) []string {
	ws := make([]string, n)
	for i := range ws {
		if topic != 0 && r.IntN(2) == 0 {
			ws[i] = "t" + strconv.Itoa(topic) + "x" + strconv.FormatUint(z.Uint64(), 36)
			continue
		}
		ws[i] = "w" + strconv.FormatUint(z.Uint64(), 36)
	}
	return ws
}

// edit replaces a fraction frac of the words of ws by fresh ones: a light
// rewrite, as when a student retitles and rephrases last year's essay.
func edit(r *rand.Rand, z *rand.Zipf, ws []string, frac float64) []string {
	out := append([]string(nil), ws...)
	for i := range out {
		if r.Float64() < frac {
			out[i] = "w" + strconv.FormatUint(z.Uint64(), 36)
		}
	}
	return out
}

// laplace draws from Laplace(0, b), the shape of simhash weights under
// TF-IDF (Sood and Loguinov, figure 1a).
func laplace(r *rand.Rand, b float64) float64 {
	u := r.Float64() - 0.5
	if u < 0 {
		return b * math.Log(1+2*u)
	}
	return -b * math.Log(1-2*u)
}

// plantedPair draws the weights of a synthetic document (Laplace per bit)
// and of a near-duplicate of it whose weights moved by Gaussian noise of
// standard deviation sigma: the pair's hashes differ where the noise
// overpowered a small weight, exactly the mechanism VOSH exploits.
func plantedPair(r *rand.Rand, sigma float64) (a, b Weights) {
	for j := range Bits {
		a[j] = laplace(r, 1)
		b[j] = a[j] - sigma*r.NormFloat64()
	}
	return a, b
}
