package related

// The join on shared key terms, common to ZOLIP's CIT phase and the
// prefix-filtering baseline: each document names some of its terms as join
// keys (its important terms, its prefix); a query is compared with every data
// document that shares a key term with it. In MapReduce form (Alewiwi et al.,
// algorithm 2) the map emits (term, Q:doc) and (term, D:doc), the shuffle
// groups by term, and the reducer of a term compares its Q list with its D
// list. Here the data side goes through Shuffle and its reducers build the
// D list of each term; the query side probes those lists, query by query, so
// that a pair sharing several key terms is compared once rather than once per
// term (the paper's reducer computes it once per shared term; Emitted counts
// those, Dots the comparisons actually made).

import "sync/atomic"

type termJoinStats struct {
	Emitted int64 // Σ over key terms of |Q_t|·|D_t|: pairs the per-term reducers see
	Dots    int64 // distinct pairs whose cosine was computed
}

// termLists is the reduce side: the data documents keyed by each term.
type termLists [][]int32

// buildTermLists shuffles the data documents' key terms and reduces each
// term's group into its D list (ascending document order).
func buildTermLists(s *Set, r Runner, tasks, parts int, dKeys func(i int, emit func(t uint32))) termLists {
	recs := Shuffle(r, len(s.d), tasks, parts, func(i int, emit func(uint64, int32)) {
		dKeys(i, func(t uint32) { emit(uint64(t), int32(i)) })
	})
	lists := make(termLists, len(s.terms))
	r.Run(len(recs), func(p int) {
		Groups(recs[p], func(key uint64, rs []Record[int32]) {
			l := make([]int32, len(rs))
			for i, x := range rs {
				l[i] = x.Val
			}
			lists[key] = l // one partition per key: no two tasks write one slot
		})
	})
	return lists
}

// probe compares each query with the data documents sharing a key term and
// keeps, per query, the k best with similarity >= minSim (and > 0). qKeys
// returns the key terms of query i, or nil to skip it. out[i] is set for the
// queries probed only.
func probe(s *Set, r Runner, lists termLists, k int, minSim float64, qKeys func(i int) []uint32, out [][]Neighbor) termJoinStats {
	var st termJoinStats
	var emitted, dots atomic.Int64
	cs := chunks(len(s.q), 16*max(1, len(s.q)/4096+1))
	r.Run(len(cs), func(c int) {
		stamp := make([]int32, len(s.d))
		sc := newScatter(len(s.terms))
		var top topK
		var em, dt int64
		for qi := cs[c][0]; qi < cs[c][1]; qi++ {
			keys := qKeys(qi)
			if keys == nil {
				continue
			}
			mark := int32(qi + 1)
			q := &s.q[qi]
			sc.set(q)
			top.reset(k)
			for _, t := range keys {
				l := lists[t]
				em += int64(len(l))
				for _, d := range l {
					if stamp[d] == mark || s.isSelf(qi, d) {
						continue
					}
					stamp[d] = mark
					dt++
					v := sc.dot(&s.d[d])
					if sim := simOf(v); sim > 0 && v >= minSim {
						top.push(Neighbor{d, sim})
					}
				}
			}
			sc.clear()
			out[qi] = top.sorted()
		}
		emitted.Add(em)
		dots.Add(dt)
	})
	st.Emitted, st.Dots = emitted.Load(), dots.Load()
	return st
}
