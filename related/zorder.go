package related

// The Z-order view of a TF-IDF vector (Alewiwi et al., section 3.2). Every
// coordinate is written in binary with as many integer bits as the largest
// value μ of the data set needs (bitLength(μ), "Normalize" in algorithm 1);
// the l-th iteration of the Z-order curve looks at the l most significant of
// those bits of every coordinate, interleaved. With real-valued weights that
// is exact arithmetic on exponents: with e_max the binary exponent of μ
// (μ < 2^e_max), the l most significant bits of c are nonzero iff
// c >= 2^(e_max-l), and they are the integer floor(c · 2^(l-e_max)).
//
//   - The λ-bit Z-order prefix of a document (its ZOLIP key, algorithm 1) is
//     the interleaving of the top λ bits of all its coordinates. Two documents
//     have the same prefix iff every coordinate agrees in its top λ bits; as a
//     sparse vector that is the set of (term, top λ bits) with nonzero bits.
//   - The l-th iteration projection (definition 6) keeps the coordinates whose
//     top l bits are nonzero, i.e. the terms of level <= l, where the level
//     of c is the first iteration at which it shows: e_max - exponent(c) + 1.

import "math"

// zorder holds the data set's scale.
type zorder struct {
	emax int
	raw  bool // coordinates are raw tf-idf (w·norm); else unit weights
}

// coord is coordinate i of v as the Z-order sees it. The raw value is
// rebuilt in float32 arithmetic, rounding to nearest: a weight stored as
// float32(c/n) times float32(n) gives back c itself in the usual case, where
// the float64 product could land just below a power of two and change the
// value's level.
func (z *zorder) coord(v *sparse, i int) float64 {
	if z.raw {
		return float64(v.w[i] * v.norm)
	}
	return float64(v.w[i])
}

// newZorder finds μ, the largest coordinate of the queries and the data.
func newZorder(s *Set, raw bool) zorder {
	z := zorder{raw: raw}
	var mu float64
	for _, vs := range [][]sparse{s.q, s.d} {
		for i := range vs {
			for j := range vs[i].t {
				mu = max(mu, z.coord(&vs[i], j))
			}
		}
	}
	_, z.emax = math.Frexp(mu) // mu = f·2^emax, f in [0.5, 1): mu < 2^emax
	return z
}

// level is the first iteration whose prefix bits of c are nonzero.
func (z *zorder) level(c float64) int {
	if c <= 0 {
		return math.MaxInt
	}
	_, e := math.Frexp(c)
	return z.emax - e + 1
}

// key is the hash of the λ-bit Z-order prefix of v, and whether it is
// nonzero. Documents whose every coordinate is below 2^(e_max-λ) have the
// all-zero prefix: they are not near-duplicates of each other, just
// unrepresented (the paper's type-1 error), so they get no key. The hash is
// over the term hashes (not Set IDs) and the top bits; two different
// prefixes collide with probability 2^-64, and a collision only costs
// comparisons.
func (z *zorder) key(s *Set, v *sparse, lambda int) (uint64, bool) {
	h := uint64(14695981039346656037)
	any := false
	for i, t := range v.t {
		c := z.coord(v, i)
		if z.level(c) > lambda {
			continue
		}
		bits := uint64(math.Ldexp(c, lambda-z.emax))
		any = true
		h = (h ^ s.terms[t]) * 1099511628211
		h = (h ^ bits) * 1099511628211
		h ^= h >> 29
	}
	return h, any
}

// project finds the projection of algorithm 2 (MAP1): the smallest
// l in 1..λ with S_c(d, d̄^l) >= σ, or λ, and appends the terms of d̄^l to
// dst. S_c(d, d̄^l) = ‖d̄^l‖/‖d‖, which needs no dot product: the projection
// keeps whole coordinates. It returns l; an empty projection means the
// document has no important term at all.
func (z *zorder) project(v *sparse, lambda int, sigma float64, dst []uint32) ([]uint32, int) {
	var total float64
	for i := range v.t {
		c := z.coord(v, i)
		total += c * c
	}
	if total == 0 {
		return dst, lambda
	}
	l := lambda
	// Squared norm by level, then the first l reaching σ.
	var byLevel [64]float64 // lambda <= 63
	for i := range v.t {
		c := z.coord(v, i)
		if lv := z.level(c); lv <= lambda {
			byLevel[lv] += c * c
		}
	}
	var part float64
	for lv := 1; lv <= lambda; lv++ {
		part += byLevel[lv]
		if part > 0 && math.Sqrt(part)/math.Sqrt(total) >= sigma {
			l = lv
			break
		}
	}
	for i, t := range v.t {
		if z.level(z.coord(v, i)) <= l {
			dst = append(dst, t)
		}
	}
	return dst, l
}
