package related

// A generated corpus with topics, for the measurements: internal/synth draws
// every document from one Zipf vocabulary, so all its documents are about the
// same "topic" and related-by-topic has no ground to stand on. Here every
// document has a main topic and, for a third of them, a second one; its
// words are drawn half from a shared Zipf background (the function words and
// general vocabulary of a language) and half from its topics' own Zipf
// vocabularies. A share of documents are near-duplicates of an earlier
// original (a few percent of words replaced), the case NDD is built for.
// Words are made up (no language): no stop list or stemming applies, and the
// model's MaxDFShare plays the stop list.

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

type topicCorpus struct {
	seed       uint64
	topics     int
	background []float64 // Zipf CDF over background words
	topical    []float64 // Zipf CDF over a topic's words
	minLen     int
	maxLen     int
	nearDup    float64 // share of near-duplicates
	editRate   float64 // words replaced in a near-duplicate
}

func zipfCDF(n int, s float64) []float64 {
	c := make([]float64, n)
	var sum float64
	for i := range c {
		sum += 1 / math.Pow(float64(i+1), s)
		c[i] = sum
	}
	for i := range c {
		c[i] /= sum
	}
	return c
}

func newTopicCorpus(seed uint64, topics int) *topicCorpus {
	return &topicCorpus{
		seed: seed, topics: topics,
		background: zipfCDF(30000, 1.0),
		topical:    zipfCDF(400, 0.9),
		minLen:     100, maxLen: 400,
		nearDup: 0.05, editRate: 0.05,
	}
}

func draw(r *rand.Rand, cdf []float64) int {
	i, _ := slices.BinarySearch(cdf, r.Float64())
	return min(i, len(cdf)-1)
}

func (c *topicCorpus) rng(i int) *rand.Rand {
	return rand.New(rand.NewPCG(c.seed, uint64(i)*0x9e3779b97f4a7c15+1))
}

// word draws one word of a document with topics t1, t2 (t2 < 0: none).
func (c *topicCorpus) word(r *rand.Rand, t1, t2 int) string {
	u := r.Float64()
	switch {
	case u < 0.5:
		return "b" + strconv.FormatInt(int64(draw(r, c.background)), 36)
	case u < 0.85 || t2 < 0:
		return "t" + strconv.Itoa(t1) + "x" + strconv.FormatInt(int64(draw(r, c.topical)), 36)
	default:
		return "t" + strconv.Itoa(t2) + "x" + strconv.FormatInt(int64(draw(r, c.topical)), 36)
	}
}

// words generates document i's words; a near-duplicate regenerates its
// original (always an original: the recursion is one level deep).
func (c *topicCorpus) words(i int) (ws []string, src int) {
	r := c.rng(i)
	if i > 0 && r.Float64() < c.nearDup {
		src = r.IntN(i)
		orig, s := c.words(src)
		if s >= 0 {
			return c.fresh(r), -1 // its pick is a near-duplicate itself: be original
		}
		t1 := r.IntN(c.topics)
		ws = slices.Clone(orig)
		for j := range ws {
			if r.Float64() < c.editRate {
				ws[j] = c.word(r, t1, -1)
			}
		}
		return ws, src
	}
	return c.fresh(r), -1
}

func (c *topicCorpus) fresh(r *rand.Rand) []string {
	t1, t2 := r.IntN(c.topics), -1
	if r.IntN(3) == 0 {
		t2 = r.IntN(c.topics)
	}
	n := c.minLen + r.IntN(c.maxLen-c.minLen+1)
	ws := make([]string, n)
	for j := range ws {
		ws[j] = c.word(r, t1, t2)
	}
	return ws
}

// text is document i as text.
func (c *topicCorpus) text(i int) string {
	ws, _ := c.words(i)
	return strings.Join(ws, " ")
}
