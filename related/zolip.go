package related

// ZOLIP (Alewiwi et al., section 4): top-k by cosine in three phases over one
// Set, each a map → shuffle → reduce the caller runs (and times) separately.
//
//   - NDD (algorithm 1): every document is keyed by its λ-bit Z-order prefix;
//     the reducer of a key compares the queries and data documents in it.
//     A query that finds k neighbours there is done ("yes").
//   - CIT (algorithm 2): a query not done is projected to the smallest
//     iteration l whose projection keeps cosine >= σ with the document; so is
//     every data document. Their projected terms are the important terms; a
//     query is compared with every data document sharing one.
//   - JP (algorithm 3): per query, the NDD and CIT lists are merged and the
//     top k kept.
//
// Similarities are always computed on the full vectors: ZOLIP filters which
// pairs are compared, never approximates a cosine, so every returned
// neighbour carries its true similarity.

// Params are ZOLIP's parameters.
type Params struct {
	K      int     // neighbours per query
	Lambda int     // λ: bits of the Z-order prefix and deepest projection (1..63)
	Sigma  float64 // σ: minimum cosine between a document and its projection
	// Unit runs the Z-order on the unit-normalised weights instead of the raw
	// tf-idf values the paper uses (a document's weights then no longer grow
	// with its length, so long documents do not monopolise the high bits).
	Unit bool
	// Tasks and Parts are the map tasks and reduce partitions of a shuffle
	// (0: 64 each).
	Tasks, Parts int
}

func (p Params) tasks() int {
	if p.Tasks <= 0 {
		return 64
	}
	return p.Tasks
}

func (p Params) parts() int {
	if p.Parts <= 0 {
		return 64
	}
	return p.Parts
}

// Stats describe one ZOLIP run.
type Stats struct {
	Queries    int
	Keyed      int   // queries with a nonzero λ-bit prefix
	NDDOnly    int   // queries answered by NDD alone (k neighbours in their Z-shape)
	NDDPairs   int64 // cosines computed by NDD
	CITQueries int   // queries passed to CIT
	Type1      int   // CIT queries without any important term: nothing to compare
	CITEmitted int64 // pairs the paper's per-term CIT reducers would compare
	CITDots    int64 // distinct pairs compared by CIT
	// Levels[l] counts CIT queries projected to iteration l.
	Levels [64]int
}

// Zolip is one run of ZOLIP over a Set.
type Zolip struct {
	s     *Set
	p     Params
	z     zorder
	Stats Stats
}

// NewZolip prepares a run: it scans the Set for μ, the largest coordinate.
func NewZolip(s *Set, p Params) *Zolip {
	p.Lambda = min(max(p.Lambda, 1), 63)
	return &Zolip{s: s, p: p, z: newZorder(s, !p.Unit), Stats: Stats{Queries: len(s.q)}}
}

// NDDResult is the output of NDD per query: its neighbours in its Z-shape
// (best first, at most k) and whether that is k of them.
type NDDResult struct {
	Lists [][]Neighbor
	Done  []bool
}

// nddRef names a document in an NDD group: data document i as i, query i
// as -(i+1). In a self join every document is both and appears once.
type nddRef = int32

// NDD runs phase 1.
func (z *Zolip) NDD(r Runner) *NDDResult {
	s, lambda := z.s, z.p.Lambda
	nq, nd := len(s.q), len(s.d)
	n := nd
	if !s.Self {
		n += nq
	}
	recs := Shuffle(r, n, z.p.tasks(), z.p.parts(), func(i int, emit func(uint64, nddRef)) {
		v, ref := z.doc(i)
		if h, ok := z.z.key(s, v, lambda); ok {
			emit(h, ref)
		}
	})
	res := &NDDResult{Lists: make([][]Neighbor, nq), Done: make([]bool, nq)}
	pairs := make([]int64, len(recs))
	keyed := make([]int, len(recs))
	r.Run(len(recs), func(p int) {
		var tops []topK
		Groups(recs[p], func(_ uint64, g []Record[nddRef]) {
			if s.Self {
				// Every member is a query and a data document: compare each
				// pair once and offer it to both.
				tops = tops[:0]
				for range g {
					tops = append(tops, topK{k: z.p.K})
				}
				for a := range g {
					for b := a + 1; b < len(g); b++ {
						da, db := g[a].Val, g[b].Val
						v := s.dot(&s.d[da], &s.d[db])
						pairs[p]++
						if sim := simOf(v); sim > 0 {
							tops[a].push(Neighbor{db, sim})
							tops[b].push(Neighbor{da, sim})
						}
					}
				}
				for a := range g {
					q := g[a].Val
					res.Lists[q] = tops[a].sorted()
					res.Done[q] = len(res.Lists[q]) >= z.p.K
					keyed[p]++
				}
				return
			}
			var top topK
			for _, qr := range g {
				if qr.Val >= 0 {
					continue
				}
				q := -qr.Val - 1
				keyed[p]++
				top.reset(z.p.K)
				for _, dr := range g {
					if dr.Val < 0 {
						continue
					}
					if s.isSelf(int(q), dr.Val) {
						continue
					}
					v := s.dot(&s.q[q], &s.d[dr.Val])
					pairs[p]++
					if sim := simOf(v); sim > 0 {
						top.push(Neighbor{dr.Val, sim})
					}
				}
				res.Lists[q] = top.sorted()
				res.Done[q] = len(res.Lists[q]) >= z.p.K
			}
		})
	})
	for p := range recs {
		z.Stats.NDDPairs += pairs[p]
		z.Stats.Keyed += keyed[p]
	}
	for _, d := range res.Done {
		if d {
			z.Stats.NDDOnly++
		}
	}
	return res
}

// doc maps NDD input i to its vector and reference: data documents first,
// then (R-S join) the queries.
func (z *Zolip) doc(i int) (*sparse, nddRef) {
	if i < len(z.s.d) {
		return &z.s.d[i], nddRef(i)
	}
	q := i - len(z.s.d)
	return &z.s.q[q], -nddRef(q) - 1
}

// CITResult is the output of CIT per query: the k best documents sharing an
// important term (nil for queries NDD answered).
type CITResult struct {
	Lists [][]Neighbor
}

// CITIndex is the data side of CIT: MAP2's emissions shuffled by term and
// reduced into, per term, the data documents holding it as an important
// term. It depends on the data documents, λ, σ and μ only, not on the
// queries: an R-S join of successive batches against one archive can build
// it once.
type CITIndex struct {
	lists termLists
}

// CITIndex runs CIT's MAP2, shuffle and data-side reduce.
func (z *Zolip) CITIndex(r Runner) *CITIndex {
	s, lambda, sigma := z.s, z.p.Lambda, z.p.Sigma
	return &CITIndex{buildTermLists(s, r, z.p.tasks(), z.p.parts(), func(i int, emit func(uint32)) {
		keys, _ := z.z.project(&s.d[i], lambda, sigma, nil)
		for _, t := range keys {
			emit(t)
		}
	})}
}

// CIT runs phase 2 for the queries NDD did not answer: CITIndex, then
// CITProbe.
func (z *Zolip) CIT(r Runner, ndd *NDDResult) *CITResult {
	return z.CITProbe(r, ndd, z.CITIndex(r))
}

// CITProbe runs CIT's MAP1 (the important terms of every query NDD did not
// answer) and the comparisons of the per-term reducers, against x.
func (z *Zolip) CITProbe(r Runner, ndd *NDDResult, x *CITIndex) *CITResult {
	s, lambda, sigma := z.s, z.p.Lambda, z.p.Sigma
	// MAP1: the important terms of every query not done.
	qkeys := make([][]uint32, len(s.q))
	levels := make([]int, len(s.q))
	cs := chunks(len(s.q), z.p.tasks())
	r.Run(len(cs), func(c int) {
		for qi := cs[c][0]; qi < cs[c][1]; qi++ {
			if ndd.Done[qi] {
				continue
			}
			keys, l := z.z.project(&s.q[qi], lambda, sigma, nil)
			if keys == nil {
				keys = []uint32{}
			}
			qkeys[qi], levels[qi] = keys, l
		}
	})
	for qi, k := range qkeys {
		if k == nil {
			continue
		}
		z.Stats.CITQueries++
		if len(k) == 0 {
			z.Stats.Type1++
			continue
		}
		z.Stats.Levels[levels[qi]]++
	}
	res := &CITResult{Lists: make([][]Neighbor, len(s.q))}
	st := probe(s, r, x.lists, z.p.K, 0, func(i int) []uint32 { return qkeys[i] }, res.Lists)
	z.Stats.CITEmitted, z.Stats.CITDots = st.Emitted, st.Dots
	return res
}

// JP runs phase 3: per query, the union of its NDD and CIT lists, top k.
// Both phases compute a pair's cosine identically, so a document found by
// both is the same neighbour twice.
func (z *Zolip) JP(r Runner, ndd *NDDResult, cit *CITResult) [][]Neighbor {
	out := make([][]Neighbor, len(z.s.q))
	cs := chunks(len(out), z.p.tasks())
	r.Run(len(cs), func(c int) {
		for qi := cs[c][0]; qi < cs[c][1]; qi++ {
			out[qi] = Merge(ndd.Lists[qi], cit.Lists[qi], z.p.K)
		}
	})
	return out
}

// ZOLIP runs the three phases.
func ZOLIP(s *Set, p Params, r Runner) ([][]Neighbor, Stats) {
	z := NewZolip(s, p)
	ndd := z.NDD(r)
	cit := z.CIT(r, ndd)
	return z.JP(r, ndd, cit), z.Stats
}
