package related

// The prefix-filtering baseline, in the spirit of Vernica et al. (SIGMOD
// 2010), the method Alewiwi et al. compares ZOLIP with. Vernica's join is a
// threshold join: order terms globally by frequency (rarest first); a
// record's prefix is the part of it two records above the threshold must
// share; the map emits (prefix term, record), the reducers compare records
// meeting under a term. For weighted cosine the prefix is the one of Bayardo
// et al.'s all-pairs: the shortest head of the rare-first term list whose
// tail can no longer contribute t to any dot product, bounding the tail by
// the smaller of its L2 norm (Cauchy-Schwarz with a unit partner) and
// Σ w_i·maxw_i (maxw_i the largest weight of term i on the other side). If
// x·y >= t, the tails of x and y cannot hold all their common terms, so they
// share a prefix term: the join is exact for every pair at or above t.
//
// Top-k is reached the way a threshold join can reach it: in rounds of
// decreasing threshold, a query is settled in the first round in which it
// finds k neighbours at or above the threshold (those are then its exact
// top k); the others go on to the next round. A last threshold of 0 makes
// the join exact for every query.

// PrefixStats count the work of a prefix join.
type PrefixStats struct {
	Rounds      int
	Emitted     int64 // pairs the per-term reducers see, all rounds
	Dots        int64 // distinct pairs compared, all rounds
	Unsatisfied int   // queries with fewer than k neighbours at the last threshold
}

// PrefixJoin returns, for every query of s, the k best neighbours with
// similarity at or above the threshold of the round that settled it. The
// thresholds are tried in the order given (decreasing).
func PrefixJoin(s *Set, k int, thresholds []float64, r Runner, tasks, parts int) ([][]Neighbor, PrefixStats) {
	tasks, parts = max(tasks, 1), max(parts, 1)
	var st PrefixStats
	maxD := maxWeights(s.d, len(s.terms))
	maxQ := maxD
	if !s.Self {
		maxQ = maxWeights(s.q, len(s.terms))
	}
	out := make([][]Neighbor, len(s.q))
	open := make([]bool, len(s.q))
	for i := range open {
		open[i] = true
	}
	for _, t := range thresholds {
		st.Rounds++
		lists := buildTermLists(s, r, tasks, parts, func(i int, emit func(uint32)) {
			for _, term := range prefixOf(&s.d[i], t, maxQ) {
				emit(term)
			}
		})
		res := make([][]Neighbor, len(s.q))
		js := probe(s, r, lists, k, t, func(i int) []uint32 {
			if !open[i] {
				return nil
			}
			return prefixOf(&s.q[i], t, maxD)
		}, res)
		st.Emitted += js.Emitted
		st.Dots += js.Dots
		for i := range res {
			if !open[i] {
				continue
			}
			out[i] = res[i]
			if len(res[i]) >= k {
				open[i] = false
			}
		}
	}
	for _, o := range open {
		if o {
			st.Unsatisfied++
		}
	}
	return out, st
}

// maxWeights is the largest weight of each term over vs.
func maxWeights(vs []sparse, terms int) []float32 {
	m := make([]float32, terms)
	for i := range vs {
		for j, t := range vs[i].t {
			m[t] = max(m[t], vs[i].w[j])
		}
	}
	return m
}

// prefixOf is the prefix of v at threshold t: its terms in ascending ID
// (rarest first) up to the first position after which the tail's bound on
// any dot product is below t. At t <= 0 it is all of v.
func prefixOf(v *sparse, t float64, maxOther []float32) []uint32 {
	if t <= 0 {
		return v.t
	}
	// A hair of slack so that float rounding in the bound never drops a pair
	// sitting exactly at t.
	t *= 1 - 1e-9
	var ss, sm float64
	p := len(v.t)
	// Walk from the end while the tail v[p:] stays below t.
	for p > 0 {
		w := float64(v.w[p-1])
		nss := ss + w*w
		nsm := sm + w*float64(maxOther[v.t[p-1]])
		if min(nss, nsm*nsm) >= t*t {
			break
		}
		ss, sm = nss, nsm
		p--
	}
	// The tail v[p:] has bound < t; the prefix is v[:p].
	return v.t[:p]
}
