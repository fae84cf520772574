package related

// Set is the input of one join, interned: terms get dense IDs so that the
// joins index arrays instead of hashing. IDs are assigned by ascending
// document frequency (rarest first), the global term order prefix filtering
// needs; sorting a document's IDs lists its rarest terms first.

import (
	"cmp"
	"slices"
)

// Set holds the query and data vectors of one join.
type Set struct {
	// Self is a self join: queries are the data documents, and a document is
	// never its own neighbour.
	Self  bool
	q, d  []sparse
	terms []uint64 // term hash by ID
	same  []int32  // R-S join: the data index of query i, or -1 (SameAs)
}

// sparse is a vector with term IDs, sorted by ID.
type sparse struct {
	t    []uint32
	w    []float32
	norm float32 // L2 norm of the raw tf-idf (Vector.Norm)
}

// Prepare interns the vectors of one join. For a self join pass the archive
// as d and q == nil. Query i's neighbours are indices into d.
func Prepare(q, d []Vector, self bool, r Runner) *Set {
	s := &Set{Self: self}
	all := [][]Vector{d}
	if !self {
		all = append(all, q)
	}
	terms := 0
	for _, vs := range all {
		for _, v := range vs {
			terms = max(terms, len(v.Terms))
		}
	}
	count := newTermTable(4 * terms)
	for _, vs := range all {
		for _, v := range vs {
			for _, t := range v.Terms {
				i, _ := count.slot(t)
				count.vals[i]++
			}
		}
	}
	s.terms = make([]uint64, 0, count.n)
	count.each(func(t uint64, _ int32) { s.terms = append(s.terms, t) })
	slices.SortFunc(s.terms, func(a, b uint64) int {
		if c := cmp.Compare(count.get(a), count.get(b)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	id := count // the counts are no longer needed: the same slots hold the IDs
	for i, t := range s.terms {
		j, _ := id.slot(t)
		id.vals[j] = int32(i)
	}
	conv := func(vs []Vector) []sparse {
		out := make([]sparse, len(vs))
		cs := chunks(len(vs), 64)
		r.Run(len(cs), func(c int) {
			var keys []uint64
			for i := cs[c][0]; i < cs[c][1]; i++ {
				out[i] = convert(vs[i], id.get, &keys)
			}
		})
		return out
	}
	s.d = conv(d)
	if self {
		s.q = s.d
	} else {
		s.q = conv(q)
	}
	return s
}

// SameAs declares, for an R-S join, that query i is data document same[i]
// (-1: none), so that it is not its own neighbour: what an incremental run
// needs when the batch of new documents is both the queries and part of the
// data they are joined with.
func (s *Set) SameAs(same []int32) { s.same = same }

// isSelf reports whether data document d is query q itself.
func (s *Set) isSelf(q int, d int32) bool {
	if s.Self {
		return int(d) == q
	}
	return s.same != nil && s.same[q] == d
}

// Queries is the number of query documents.
func (s *Set) Queries() int { return len(s.q) }

// Docs is the number of data documents.
func (s *Set) Docs() int { return len(s.d) }

// Terms is the number of distinct terms.
func (s *Set) Terms() int { return len(s.terms) }

// dot is the cosine of query q and data doc d (both unit) by merging.
func (s *Set) dot(a, b *sparse) float64 {
	var x float64
	i, j := 0, 0
	for i < len(a.t) && j < len(b.t) {
		switch {
		case a.t[i] < b.t[j]:
			i++
		case a.t[i] > b.t[j]:
			j++
		default:
			x += float64(a.w[i]) * float64(b.w[j])
			i++
			j++
		}
	}
	return x
}

// scatter is a query vector spread over a dense array, for computing its
// cosine with many documents: each costs one array read per term of the
// document. Products of float32s are exact in float64 and terms are summed
// in ascending ID order, the order Exact sums them in, so every join gets
// bit-identical similarities for a pair.
type scatter struct {
	dense []float32 // float32 halves the cache footprint; widening is exact
	q     *sparse
}

func newScatter(terms int) *scatter { return &scatter{dense: make([]float32, terms)} }

func (sc *scatter) set(q *sparse) {
	sc.q = q
	for i, t := range q.t {
		sc.dense[t] = q.w[i]
	}
}

func (sc *scatter) clear() {
	for _, t := range sc.q.t {
		sc.dense[t] = 0
	}
}

func (sc *scatter) dot(d *sparse) float64 {
	// Branch-free: a term the query lacks adds an exact +0, which leaves
	// the sum bit for bit what Exact's accumulation gives.
	var x float64
	w := d.w[:len(d.t)]
	for i, t := range d.t {
		x += float64(sc.dense[t]) * float64(w[i])
	}
	return x
}
