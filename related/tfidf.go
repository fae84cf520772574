package related

// TF-IDF: document frequencies kept up to date document by document
// (DocFreq), frozen into a versioned Model whose IDF weighs the vectors.
//
// IDF drift: a vector depends on the document frequencies of all its terms,
// which change with every document added. Recomputing every vector on every
// run would make an incremental run cost as much as a full one, so the IDF is
// frozen per model version, as neardup freezes its simhash model: the daemon
// keeps DocFreq current (in the database), builds vectors of new and changed
// documents with the current Model, and builds a new Model, recomputing all
// vectors from their stored term counts, when the archive has doubled or
// halved since the model was built (NeedsRebuild). Between rebuilds an IDF
// is off by at most ln 2 ≈ 0.69 for a term whose share of documents stayed
// put, and vectors of one version are all weighed alike, so cosines stay
// comparable. Terms the model has not seen weigh as much as the rarest ones.

import (
	"math"
	"slices"
)

// DocFreq counts, for each term, the documents it occurs in. It is updated
// incrementally (Add, Remove) and can be merged with a Delta computed
// elsewhere (a node process, an incremental run). Not safe for concurrent
// use.
type DocFreq struct {
	Docs int
	DF   map[uint64]uint32
}

// NewDocFreq returns an empty DocFreq.
func NewDocFreq() *DocFreq { return &DocFreq{DF: make(map[uint64]uint32)} }

// Add counts one document given its distinct terms (Count's output).
func (d *DocFreq) Add(terms []TermCount) {
	d.Docs++
	for _, t := range terms {
		d.DF[t.Term]++
	}
}

// Remove undoes Add for a deleted or changed document.
func (d *DocFreq) Remove(terms []TermCount) {
	d.Docs--
	for _, t := range terms {
		if c := d.DF[t.Term]; c <= 1 {
			delete(d.DF, t.Term)
		} else {
			d.DF[t.Term] = c - 1
		}
	}
}

// Apply adds a Delta: what the daemon does with the changes of one run
// (upserting Delta.DF into its table does the same in SQL).
func (d *DocFreq) Apply(x *Delta) {
	d.Docs += x.Docs
	for t, n := range x.DF {
		if c := int64(d.DF[t]) + int64(n); c <= 0 {
			delete(d.DF, t)
		} else {
			d.DF[t] = uint32(c)
		}
	}
}

// Delta is a signed change of document frequencies: the documents added and
// removed by one incremental run.
type Delta struct {
	Docs int
	DF   map[uint64]int32
}

// NewDelta returns an empty Delta.
func NewDelta() *Delta { return &Delta{DF: make(map[uint64]int32)} }

// Add records an added document.
func (x *Delta) Add(terms []TermCount) { x.add(terms, 1) }

// Remove records a removed document (for a changed one: Remove the old
// terms, Add the new).
func (x *Delta) Remove(terms []TermCount) { x.add(terms, -1) }

func (x *Delta) add(terms []TermCount, s int32) {
	x.Docs += int(s)
	for _, t := range terms {
		if c := x.DF[t.Term] + s; c == 0 {
			delete(x.DF, t.Term)
		} else {
			x.DF[t.Term] = c
		}
	}
}

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
	Docs    int
	// MaxDFShare drops terms in more than this share of the documents (0:
	// keep all): the corpus' own stop words, for texts whose language has no
	// stop list. A term in nearly every document says nothing about topic.
	MaxDFShare float64
	terms      []uint64 // ascending; only terms with df >= 2
	df         []uint32
}

// NewModel freezes d. Terms seen in one document only are not stored: they
// weigh the same as terms never seen, which is what a rare term should weigh
// (and it keeps the model to the terms that can make two documents similar).
func NewModel(version int64, d *DocFreq, maxDFShare float64) *Model {
	m := &Model{Version: version, Docs: d.Docs, MaxDFShare: maxDFShare}
	for t, n := range d.DF {
		if n >= 2 {
			m.terms = append(m.terms, t)
		}
	}
	slices.Sort(m.terms)
	m.df = make([]uint32, len(m.terms))
	for i, t := range m.terms {
		m.df[i] = d.DF[t]
	}
	return m
}

// ModelFrom rebuilds a model from stored (term, df) pairs, terms ascending.
func ModelFrom(version int64, docs int, maxDFShare float64, terms []uint64, df []uint32) *Model {
	return &Model{Version: version, Docs: docs, MaxDFShare: maxDFShare, terms: terms, df: df}
}

// Terms returns the stored terms (ascending) and their document frequencies,
// what ModelFrom reads back. The slices are the model's own: do not modify.
func (m *Model) Terms() ([]uint64, []uint32) { return m.terms, m.df }

// DF is the document frequency of term as the model knows it (1 if unseen).
func (m *Model) DF(term uint64) int {
	if i, ok := slices.BinarySearch(m.terms, term); ok {
		return int(m.df[i])
	}
	return 1
}

// IDF is the smoothed ln((1+N)/(1+df)) + 1, or 0 for a term above
// MaxDFShare.
func (m *Model) IDF(term uint64) float64 {
	df := m.DF(term)
	if m.MaxDFShare > 0 && float64(df) > m.MaxDFShare*float64(m.Docs) {
		return 0
	}
	return math.Log(float64(1+m.Docs)/float64(1+df)) + 1
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
	v := Vector{Terms: make([]uint64, 0, len(terms)), W: make([]float32, 0, len(terms))}
	raw := make([]float64, 0, len(terms))
	var ss float64
	for _, t := range terms {
		w := float64(t.Count) * m.IDF(t.Term)
		if w <= 0 {
			continue
		}
		v.Terms = append(v.Terms, t.Term)
		raw = append(raw, w)
		ss += w * w
	}
	if ss == 0 {
		return Vector{}
	}
	n := math.Sqrt(ss)
	for _, w := range raw {
		v.W = append(v.W, float32(w/n))
	}
	v.Norm = float32(n)
	return v
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
