package neardup

// Simhash per document (Sood and Loguinov, algorithm 1) over word features with
// normalised TF-IDF weights, keeping the per-bit sums W_j: they are what lets
// PSM guess which bits of a near-duplicate's hash differ.

import (
	"math"

	"github.com/plagd/plagd/invindex"
	"github.com/plagd/plagd/termstat"
)

// Bits is the width of a simhash.
const Bits = 64

// Feature is one distinct word of a document: the tokenizer's 64-bit hash of
// its normalised form (invindex.Word.Hash, FNV-1a 64) as Term, and how often
// it occurs.
type Feature = termstat.TermCount

// Weights are the per-bit sums W_j of algorithm 1: bit j of the simhash is 1
// iff W[j] >= 0, and |W[j]| is how hard that bit is to flip.
type Weights [Bits]float64

// TermCounts appends the distinct words of words to dst[:0], sorted by hash,
// with their counts. Sorting makes Simhash's floating-point sums independent
// of word order, so equal documents get bit-identical weights.
func TermCounts(words []invindex.Word, dst []Feature) []Feature {
	dst = dst[:0]
	for _, w := range words {
		dst = append(dst, Feature{Term: w.Hash, Count: 1})
	}
	return termstat.Merge(dst)
}

// IDF gives the inverse document frequency of a feature. The caller owns the
// statistics (a termstat.DocFreq counted over the archive, or a
// termstat.Table loaded from the database); the simhash of a document
// changes when they change, so a stored hash must be recomputed, or kept,
// deliberately.
type IDF interface {
	IDF(feature uint64) float64
}

// IDFFunc adapts a function to IDF.
type IDFFunc func(feature uint64) float64

// IDF implements IDF.
func (f IDFFunc) IDF(feature uint64) float64 { return f(feature) }

// UniformIDF weighs every feature 1: plain term-frequency simhash.
var UniformIDF IDF = IDFFunc(func(uint64) float64 { return 1 })

// FeatureHash is algorithm 1's UniformHash: the 64-bit pseudo-random vector
// phi_i of a feature. The word hashes are FNV-1a, whose high bits are poorly
// mixed for short words, so they go through the SplitMix64 finaliser (a
// bijection with full avalanche). Stored simhashes depend on it: never change
// it without recomputing them (a test pins its values).
func FeatureHash(feature uint64) uint64 {
	z := feature + 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// tfidf returns the weight of each feature, tf*idf normalised to unit L2
// norm (the paper's "normalised TF-IDF"), into dst.
func tfidf(features []Feature, idf IDF, dst []float64) []float64 {
	dst = dst[:0]
	var norm float64
	for _, f := range features {
		w := float64(f.Count) * idf.IDF(f.Term)
		dst = append(dst, w)
		norm += w * w
	}
	if norm > 0 {
		inv := 1 / math.Sqrt(norm)
		for i := range dst {
			dst[i] *= inv
		}
	}
	return dst
}

// Simhash returns the simhash of a document given its distinct features in
// the order TermCounts produces, and the per-bit sums W (algorithm 1): each
// feature adds its weight to W[j] where bit j of FeatureHash is 1 and
// subtracts it where it is 0; bit j of the hash is W[j] >= 0. A document
// without features has hash all ones and W all zero (every bit maximally
// volatile).
func Simhash(features []Feature, idf IDF) (uint64, Weights) {
	var W Weights
	var buf [256]float64
	ws := tfidf(features, idf, buf[:0])
	for i, f := range features {
		phi, w := FeatureHash(f.Term), ws[i]
		// Branch-free: the bits of phi are random, so an if/else here
		// mispredicts half the time (measured: 2/3 of the hashing time).
		// Adding w·(±1) gives bit-identical sums to adding or subtracting w.
		sign := [2]float64{-w, w}
		for j := range Bits {
			W[j] += sign[phi>>j&1]
		}
	}
	return HashOf(&W), W
}

// HashOf is the simhash the weights W stand for.
func HashOf(W *Weights) uint64 {
	var h uint64
	for j, w := range W {
		if w >= 0 {
			h |= 1 << j
		}
	}
	return h
}

// Cosine is the cosine similarity of two documents' TF-IDF vectors (features
// sorted as TermCounts gives them): the ground truth simhash approximates,
// for measuring precision and recall at each h (the paper's figure 6).
func Cosine(a, b []Feature, idf IDF) float64 {
	var dot, na, nb float64
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i].Term < b[j].Term:
			w := float64(a[i].Count) * idf.IDF(a[i].Term)
			na += w * w
			i++
		case i == len(a) || b[j].Term < a[i].Term:
			w := float64(b[j].Count) * idf.IDF(b[j].Term)
			nb += w * w
			j++
		default:
			x := idf.IDF(a[i].Term)
			wa, wb := float64(a[i].Count)*x, float64(b[j].Count)*x
			dot += wa * wb
			na += wa * wa
			nb += wb * wb
			i++
			j++
		}
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
