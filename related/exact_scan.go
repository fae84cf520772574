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
func ExactScan(s *Set, k int, qs []int32, floor []float32, r Runner) (top, above [][]Neighbor, st ExactStats) {
	if !s.Self {
		panic("related: ExactScan needs a self join")
	}
	if floor != nil && len(floor) != len(s.d) {
		panic("related: ExactScan needs one floor per data document")
	}
	bx := indexQueries(s, qs)
	cs := chunks(len(s.d), 64)
	hits := make([][]aboveHit, len(cs))
	posts := make([]int64, len(cs))
	states := newScanStates(k, len(qs))
	r.Run(len(cs), func(c int) {
		ss := states.get()
		defer states.put(ss)
		acc, touched := ss.acc, ss.touched[:0]
		var n int64
		for d := cs[c][0]; d < cs[c][1]; d++ {
			doc := &s.d[d]
			// As in the other joins: with postings at least half as many
			// as the queries, the accumulator is read whole; otherwise
			// only the queries touched are visited.
			var reads int32
			for _, t := range doc.t {
				reads += bx.off[t+1] - bx.off[t]
			}
			n += int64(reads)
			if reads == 0 {
				continue
			}
			dense := 2*int(reads) >= len(qs)
			if denseAcc != 0 {
				dense = denseAcc > 0
			}
			for i, t := range doc.t {
				dw := float64(doc.w[i])
				lo, hi := bx.off[t], bx.off[t+1]
				qj, qw := bx.q[lo:hi], bx.w[lo:hi]
				qw = qw[:len(qj)]
				for p, j := range qj {
					if !dense && acc[j] == 0 {
						touched = append(touched, j)
					}
					acc[j] += float64(qw[p]) * dw
				}
			}
			above := math.Inf(1) // no floor: no pair is above it
			if floor != nil {
				above = float64(floor[d])
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
				for j, a := range acc {
					// offer, with the test that skips nearly every pair
					// inline.
					if a == 0 || belowBoth(a, ss.worst[j], above) {
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
		posts[c] = n
	})
	top = states.merge(k)
	for _, n := range posts {
		st.Postings += n
	}
	if floor == nil {
		return top, nil, st
	}
	above = make([][]Neighbor, len(s.d))
	for _, hs := range hits { // chunks in document order, each document's hits in query order
		for _, h := range hs {
			above[h.d] = append(above[h.d], Neighbor{Doc: h.q, Sim: h.sim})
		}
	}
	return top, above, st
}

// queryIndex is an inverted index of a batch of queries: the postings of
// term t are q[off[t]:off[t+1]] (positions in the batch, ascending) with
// the queries' weights w, for every term of the set (most empty).
type queryIndex struct {
	off []int32
	q   []int32
	w   []float32
}

// indexQueries indexes the documents qs of s.
func indexQueries(s *Set, qs []int32) queryIndex {
	terms := len(s.terms)
	postings := 0
	for _, d := range qs {
		postings += len(s.d[d].t)
	}
	x := queryIndex{off: make([]int32, terms+1), q: make([]int32, postings), w: make([]float32, postings)}
	for _, d := range qs {
		for _, t := range s.d[d].t {
			x.off[t+1]++
		}
	}
	for t := range terms {
		x.off[t+1] += x.off[t]
	}
	next := append([]int32(nil), x.off[:terms]...)
	for j, d := range qs {
		doc := &s.d[d]
		for i, t := range doc.t {
			p := next[t]
			x.q[p], x.w[p] = int32(j), doc.w[i]
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
