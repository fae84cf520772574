package related

import (
	"cmp"
	"slices"
)

// Dict numbers terms for joins that outlive one run: a term keeps its
// number, and a term not seen before is numbered after all the others. An
// incremental run's join of its batch with the archive then converts only
// the batch's vectors; the archive's stay converted from the run before
// (Prepare numbers the terms anew for every join, by document frequency,
// and sorts every vector's terms again: 1.2-4.2 s of an incremental run on
// 100,000 realistic documents).
//
// The numbers differ from Prepare's, so a pair's products are summed in
// another order than in a Prepare'd join; the similarities are rounded to 6
// decimals (simOf) so that any join gives a pair the same figure. The
// exact joins (Exact, ExactSelf, ExactOf) take any numbering; ZOLIP and
// PrefixJoin need Prepare's.
type Dict struct {
	ids   *termTable
	terms []uint64 // term hash by number
}

// NewDict returns an empty Dict.
func NewDict() *Dict { return &Dict{ids: newTermTable(1 << 16)} }

// Doc is a vector converted to a Dict's numbers, ready for a self join of
// that Dict (SelfSet).
type Doc struct{ s sparse }

// Docs converts vs, numbering their new terms in order of appearance, on
// r's goroutines.
func (d *Dict) Docs(vs []Vector, r Runner) []Doc {
	for _, v := range vs {
		for _, t := range v.Terms {
			if i, added := d.ids.slot(t); added {
				d.ids.vals[i] = int32(len(d.terms))
				d.terms = append(d.terms, t)
			}
		}
	}
	out := make([]Doc, len(vs))
	cs := chunks(len(vs), 64)
	r.Run(len(cs), func(c int) {
		var keys []uint64
		for i := cs[c][0]; i < cs[c][1]; i++ {
			out[i] = Doc{convert(vs[i], d.ids.get, &keys)}
		}
	})
	return out
}

// Vector is the vector doc was converted from (Docs), bit for bit: its
// terms' hashes ascending, each with its weight, and its norm. A caller that
// keeps an archive numbered between runs can drop the hashed vectors and
// rebuild the few it needs from here (the engine's vectors of 1M documents
// are 2.2 GB hashed, 1.5 GB numbered).
func (d *Dict) Vector(doc Doc) Vector {
	sp := doc.s
	if len(sp.t) == 0 {
		return Vector{Norm: sp.norm}
	}
	v := Vector{Terms: make([]uint64, len(sp.t)), W: make([]float32, len(sp.t)), Norm: sp.norm}
	// Sort (hash, position) pairs by hash: hashes are distinct within a
	// vector, so the order is the hashed vector's.
	type pair struct {
		h uint64
		j int32
	}
	ps := make([]pair, len(sp.t))
	for j, t := range sp.t {
		ps[j] = pair{d.terms[t], int32(j)}
	}
	slices.SortFunc(ps, func(a, b pair) int { return cmp.Compare(a.h, b.h) })
	for i, p := range ps {
		v.Terms[i], v.W[i] = p.h, sp.w[p.j]
	}
	return v
}

// SelfSet is the self join of docs, all converted by d.
func SelfSet(d *Dict, docs []Doc) *Set {
	s := &Set{Self: true, terms: d.terms, d: make([]sparse, len(docs))}
	for i, doc := range docs {
		s.d[i] = doc.s
	}
	s.q = s.d
	return s
}

// convert is v with its terms numbered by id, sorted by number; keys is
// scratch.
func convert(v Vector, id func(uint64) int32, keys *[]uint64) sparse {
	sp := sparse{t: make([]uint32, len(v.Terms)), w: make([]float32, len(v.Terms)), norm: v.Norm}
	// Sort (number, position) as one uint64: pdqsort on integers, no
	// comparison callback (3-4 times faster).
	k := (*keys)[:0]
	for j, t := range v.Terms {
		k = append(k, uint64(id(t))<<32|uint64(j))
	}
	slices.Sort(k)
	for j, key := range k {
		sp.t[j] = uint32(key >> 32)
		sp.w[j] = v.W[uint32(key)]
	}
	*keys = k
	return sp
}
