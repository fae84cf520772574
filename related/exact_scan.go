package related

import (
	"math"
	"slices"
)

// ExactScan is ExactOf computed the other way round: instead of reading,
// for each query, the archive's postings of its terms into an accumulator
// of one sum per archive document, it indexes the queries (a small
// inverted index of the batch) and reads each archive document's own
// terms once, summing into an accumulator of one sum per query. The pairs,
// their products and the order of each pair's sum (ascending term number:
// both documents' terms are sorted by it) are the same, so are the lists
// and the above-floor hits, bit for bit (TestExactScanEqualsExactOf).
//
// It needs no inverted index of the archive, only its documents, and its
// accumulator fits a core's first-level cache (8 bytes per query). For an
// incremental run's batch of new documents against an archive without
// topics, where nearly every pair shares a term, ExactOf read and cleared
// an accumulator of 8 MB per query at 1M documents, and the run kept the
// archive's inverted index between runs and renumbered it into each run's
// numbering (1.3 s of CPU at 1M): together most of the incremental run's
// related phase (docs/RELATED.md, "The batch joined by scanning the
// archive").
//
// Most archive documents enter no list: their best sum with any query is
// below their own floor (nothing of the batch enters their list) and
// below the worst member of every query's full list. Once its sums are
// added, a document whose largest sum is below both bounds (its floor,
// and the least of the queries' worst members, refreshed every 256
// documents: it only rises) is done without reading its sums against each
// query's floor (9 in 10 documents in the 1M measurement, counted by a
// temporary counter).
func ExactScan(s *Set, k int, qs []int32, floor []float32, r Runner) (top, above [][]Neighbor) {
	if !s.Self {
		panic("related: ExactScan needs a self join")
	}
	if floor != nil && len(floor) != len(s.d) {
		panic("related: ExactScan needs one floor per data document")
	}
	whole := len(qs) <= denseScanQueries && denseAcc >= 0
	bx := indexQueries(s, qs)
	cs := chunks(len(s.d), 64)
	hits := make([][]aboveHit, len(cs))
	states := newScanStates(k, len(qs))
	if len(qs) == 0 {
		cs = nil // nothing to join
	}
	r.Run(len(cs), func(c int) {
		ss := states.get()
		defer states.put(ss)
		acc, touched := ss.acc, ss.touched[:0]
		for d := cs[c][0]; d < cs[c][1]; d++ {
			doc := &s.d[d]
			// A batch of at most denseScanQueries queries reads its
			// accumulator whole, without counting the postings first to
			// choose (8 KB at most to clear; part of the change measured
			// together in docs/RELATED.md, not timed apart). Otherwise, as
			// in the other joins: with postings at least half as many as
			// the queries, the accumulator is read whole, else only the
			// queries touched are visited.
			dense := whole
			if !dense {
				var reads int32
				for _, t := range doc.t {
					reads += bx.off[t+1] - bx.off[t]
				}
				dense = 2*int(reads) >= len(qs)
				if denseAcc != 0 {
					dense = denseAcc > 0
				}
			}
			var most float64 // the largest sum of d's
			if dense {
				for i, t := range doc.t {
					dw := float64(doc.w[i])
					ps := bx.p[bx.off[t]:bx.off[t+1]]
					for _, e := range ps {
						acc[e.q] += float64(e.w) * dw
					}
				}
				for _, a := range acc {
					if a > most {
						most = a
					}
				}
			} else {
				for i, t := range doc.t {
					dw := float64(doc.w[i])
					ps := bx.p[bx.off[t]:bx.off[t+1]]
					for _, e := range ps {
						if acc[e.q] == 0 {
							touched = append(touched, e.q)
						}
						acc[e.q] += float64(e.w) * dw
					}
				}
				for _, j := range touched {
					most = max(most, acc[j])
				}
			}
			above := math.Inf(1) // no floor: no pair is above it
			if floor != nil {
				above = float64(floor[d])
			}
			if d&255 == 0 {
				ss.lowest = slices.Min(ss.worst)
			}
			if belowBoth(most, ss.lowest, above) {
				if dense {
					clear(acc)
				} else {
					for _, j := range touched {
						acc[j] = 0
					}
					touched = touched[:0]
				}
				continue
			}
			offer := func(j int32, a float64) {
				if belowBoth(a, ss.worst[j], above) {
					return
				}
				sim := simOf(a)
				if sim <= 0 || int(qs[j]) == d {
					return
				}
				if ss.top[j].push(Neighbor{int32(d), sim}) {
					ss.worst[j] = float64(ss.top[j].h[0].Sim)
				}
				if floor != nil && sim >= floor[d] {
					hits[c] = append(hits[c], aboveHit{int32(d), j, sim})
				}
			}
			if dense {
				worst := ss.worst[:len(acc)]
				for j, a := range acc {
					// offer, with the test that skips nearly every pair
					// inline. No test for an untouched query: whether a
					// sum is 0 is a branch the processor cannot predict
					// (about half of them are, on an archive without
					// topics), and a 0 is below both floors once the
					// query's list is full, or dropped by offer (sim 0).
					if belowBoth(a, worst[j], above) {
						continue
					}
					offer(int32(j), a)
				}
				clear(acc)
			} else {
				slices.Sort(touched) // the hits of d in query order
				offerTouched(acc, touched, offer)
				touched = touched[:0]
			}
		}
		ss.touched = touched
	})
	top = states.merge(k)
	if floor == nil {
		return top, nil
	}
	above = make([][]Neighbor, len(s.d))
	for _, hs := range hits { // chunks in document order, each document's hits in query order
		for _, h := range hs {
			above[h.d] = append(above[h.d], Neighbor{Doc: h.q, Sim: h.sim})
		}
	}
	return top, above
}

// denseScanQueries is the batch size up to which ExactScan reads the
// accumulator whole for every archive document (tests set it to 0 to take
// the other way).
var denseScanQueries = 1024

// queryIndex is an inverted index of a batch of queries: the postings of
// term t are p[off[t]:off[t+1]] (positions in the batch, ascending, with
// the queries' weights), for every term of the set (most empty).
type queryIndex struct {
	off []int32
	p   []queryPosting
}

// queryPosting is a query's place in the batch and its weight on a term:
// side by side, one cache line read for both.
type queryPosting struct {
	q int32
	w float32
}

// indexQueries indexes the documents qs of s.
func indexQueries(s *Set, qs []int32) queryIndex {
	terms := len(s.terms)
	x := queryIndex{off: make([]int32, terms+1)}
	for _, d := range qs {
		for _, t := range s.d[d].t {
			x.off[t+1]++
		}
	}
	for t := range terms {
		x.off[t+1] += x.off[t]
	}
	x.p = make([]queryPosting, x.off[terms])
	next := append([]int32(nil), x.off[:terms]...)
	for j, d := range qs {
		doc := &s.d[d]
		for i, t := range doc.t {
			p := next[t]
			x.p[p] = queryPosting{int32(j), doc.w[i]}
			next[t]++
		}
	}
	return x
}

// scanState is one worker's share of ExactScan: its accumulator, and the
// top k of each query among the archive documents it read.
type scanState struct {
	acc     []float64
	touched []int32
	top     []topK
	worst   []float64 // of top[j] once full
	lowest  float64   // at most the least of worst
}

// scanStates are ExactScan's task states; merge combines their lists.
type scanStates struct {
	n int
	taskStates[*scanState]
}

func newScanStates(k, n int) *scanStates {
	ss := &scanStates{n: n}
	ss.make = func() *scanState {
		s := &scanState{acc: make([]float64, n), top: make([]topK, n), worst: make([]float64, n)}
		for j := range s.top {
			s.top[j].reset(k)
			s.worst[j] = math.Inf(-1)
		}
		s.lowest = math.Inf(-1)
		return s
	}
	return ss
}

// merge is each query's k best over every state, best first.
func (ss *scanStates) merge(k int) [][]Neighbor {
	out := make([][]Neighbor, ss.n)
	for j := range out {
		var l []Neighbor // a document is in one state's lists at most
		for _, s := range ss.all {
			l = append(l, s.top[j].h...)
		}
		sortNeighbors(l)
		out[j] = l[:min(k, len(l))]
	}
	return out
}
