package related

// TF-IDF: document frequencies kept up to date document by document
// (termstat.DocFreq), frozen into a versioned Model whose IDF weighs the
// vectors.
//
// IDF drift: a vector depends on the document frequencies of all its terms,
// which change with every document added. Recomputing every vector on every
// run would make an incremental run cost as much as a full one, so the IDF is
// frozen per model version, as neardup freezes its simhash model: the daemon
// keeps the document frequencies current (in the database), builds vectors
// of new and changed documents with the current Model, and builds a new
// Model, recomputing all vectors from their stored term counts, when the
// archive has doubled or halved since the model was built (NeedsRebuild). Between rebuilds an IDF
// is off by at most ln 2 ≈ 0.69 for a term whose share of documents stayed
// put, and vectors of one version are all weighed alike, so cosines stay
// comparable. Terms the model has not seen weigh as much as the rarest ones.

import (
	"cmp"
	"math"
	"slices"

	"github.com/plagd/plagd/termstat"
)

// NeedsRebuild reports whether a model built over modelDocs documents should
// be replaced now that the archive holds docs: when it has doubled or halved
// (the rule of neardup's model), or when there is no model yet.
func NeedsRebuild(modelDocs, docs int) bool {
	return modelDocs == 0 || docs >= 2*modelDocs || 2*docs < modelDocs
}

// Model is a frozen IDF. Vectors built with different models are not
// comparable; the daemon stores the version with every vector.
type Model struct {
	Version int64
	// MaxDFShare drops terms in more than this share of the documents (0:
	// keep all): the corpus' own stop words, for texts whose language has no
	// stop list. A term in nearly every document says nothing about topic.
	MaxDFShare float64
	// MaxTerms keeps only the MaxTerms heaviest terms of each vector (0:
	// every term), ties to the lower term hash, and scales those to unit
	// length. A document's heaviest terms are its topic; the many light
	// ones (a long thesis has thousands) each match a few of every other
	// document's and make the exact join nearly all-pairs on archives
	// whose lists are weak (docs/RELATED.md, "Vectors of the heaviest
	// terms"). Vectors of models with different MaxTerms are not
	// comparable.
	MaxTerms int
	// Table holds the documents counted (Docs) and the frequencies of the
	// terms seen in two of them or more: a term seen once weighs as much as
	// one never seen.
	termstat.Table
}

// NewModel freezes d.
func NewModel(version int64, d *termstat.DocFreq, maxDFShare float64) *Model {
	return &Model{Version: version, MaxDFShare: maxDFShare, Table: d.Freeze()}
}

// ModelFrom is a model over stored frequencies (termstat.Decode).
func ModelFrom(version int64, t termstat.Table, maxDFShare float64) *Model {
	return &Model{Version: version, MaxDFShare: maxDFShare, Table: t}
}

// IDF is termstat's smoothed IDF, or 0 for a term above MaxDFShare.
func (m *Model) IDF(term uint64) float64 {
	df := m.DF(term)
	if m.MaxDFShare > 0 && float64(df) > m.MaxDFShare*float64(m.Docs) {
		return 0
	}
	return termstat.IDF(m.Docs, df)
}

// Vector is a document's TF-IDF vector: its terms ascending, their weights
// tf·idf scaled to unit L2 norm, and that norm. W[i]·Norm is the raw tf-idf
// value, the coordinate the paper's Z-order works on; cosines use W.
type Vector struct {
	Terms []uint64
	W     []float32
	Norm  float32
}

// Vector weighs a document's term counts (Count's output, sorted by term).
// A document without weighted terms gets the empty vector: similar to none.
func (m *Model) Vector(terms []TermCount) Vector {
	// The weights first, in a scratch slice: the terms too common to weigh
	// anything (MaxDFShare) are often a third of a document's, and the
	// vector, kept for the archive between runs, is allocated to fit.
	raw := make([]float64, len(terms))
	var ss float64
	kept := 0
	for i, t := range terms {
		if w := float64(t.Count) * m.IDF(t.Term); w > 0 {
			raw[i] = w
			ss += w * w
			kept++
		}
	}
	if ss == 0 {
		return Vector{}
	}
	if m.MaxTerms > 0 && kept > m.MaxTerms {
		ss = keepHeaviest(raw, terms, m.MaxTerms)
		kept = m.MaxTerms
	}
	n := math.Sqrt(ss)
	v := Vector{Terms: make([]uint64, 0, kept), W: make([]float32, 0, kept), Norm: float32(n)}
	for i, w := range raw {
		if w > 0 {
			v.Terms = append(v.Terms, terms[i].Term)
			v.W = append(v.W, float32(w/n))
		}
	}
	return v
}

// keepHeaviest zeroes every weight of raw but the n heaviest (ties: the
// lower term hash stays) and returns the sum of the squares kept. raw has
// more than n positive weights.
func keepHeaviest(raw []float64, terms []TermCount, n int) float64 {
	idx := make([]int32, 0, len(raw))
	for i, w := range raw {
		if w > 0 {
			idx = append(idx, int32(i))
		}
	}
	slices.SortFunc(idx, func(a, b int32) int {
		if c := cmp.Compare(raw[b], raw[a]); c != 0 {
			return c
		}
		return cmp.Compare(terms[a].Term, terms[b].Term)
	})
	for _, i := range idx[n:] {
		raw[i] = 0
	}
	var ss float64
	for _, w := range raw {
		ss += w * w
	}
	return ss
}

// Cosine is the dot product of two vectors (both unit), merging their
// sorted terms.
func Cosine(a, b Vector) float64 {
	var s float64
	i, j := 0, 0
	for i < len(a.Terms) && j < len(b.Terms) {
		switch {
		case a.Terms[i] < b.Terms[j]:
			i++
		case a.Terms[i] > b.Terms[j]:
			j++
		default:
			s += float64(a.W[i]) * float64(b.W[j])
			i++
			j++
		}
	}
	return s
}
