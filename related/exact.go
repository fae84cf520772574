package related

// Exact top-k: the ground truth every approximate join is measured against,
// and the fallback when exactness matters more than time. An inverted index
// of the data documents (term → postings with weights) is probed by each
// query; a dense accumulator sums the products of every document sharing a
// term, so a query costs the total length of its terms' posting lists. That
// is the best exact method for short queries over a static index and the
// honest baseline for a filter: it computes only pairs that share a term,
// and each shared term once.

import (
	"math"
	"runtime"
	"sync"

	"github.com/plagd/plagd/internal/hugepage"
)

// Index is an inverted index of a Set's data documents in CSR layout.
type Index struct {
	off  []int64 // postings of term t: doc[off[t]:off[t+1]]
	doc  []int32
	w    []float32
	docs int
}

// NewIndex builds the inverted index of s's data documents. Postings are in
// ascending document order. The documents are split in one range per
// core: each counts its range's postings per term, the counts give every
// range its place in each term's list, and each fills its places (the same
// index as one pass in document order).
func NewIndex(s *Set) *Index {
	n := len(s.d)
	terms := len(s.terms)
	x := &Index{off: make([]int64, terms+1), docs: len(s.d)}
	ranges := chunks(n, min(runtime.GOMAXPROCS(0), max(1, n/2048)))
	// at[r][t]: the next place of range r's postings of term t.
	at := make([][]int64, len(ranges))
	var wg sync.WaitGroup
	for r, rg := range ranges {
		wg.Go(func() {
			c := make([]int64, terms)
			for i := rg[0]; i < rg[1]; i++ {
				for _, t := range s.d[i].t {
					c[t]++
				}
			}
			at[r] = c
		})
	}
	wg.Wait()
	var total int64
	for t := range terms {
		x.off[t] = total
		for _, c := range at {
			c[t], total = total, total+c[t]
		}
	}
	x.off[terms] = total
	x.doc = hugepage.Make[int32](int(total))
	x.w = hugepage.Make[float32](int(total))
	for r, rg := range ranges {
		wg.Go(func() {
			fill := at[r]
			for i := rg[0]; i < rg[1]; i++ {
				d := &s.d[i]
				for j, t := range d.t {
					p := fill[t]
					x.doc[p], x.w[p] = int32(i), d.w[j]
					fill[t] = p + 1
				}
			}
		})
	}
	wg.Wait()
	return x
}

// ExactStats counts the work of an exact join.
type ExactStats struct {
	Postings int64 // posting entries read (multiply-adds)
}

// Exact returns the top k neighbours of every query of s by cosine, exact,
// best first, only documents with a positive similarity. The queries are
// split into tasks run by r.
func Exact(s *Set, x *Index, k int, r Runner) ([][]Neighbor, ExactStats) {
	top, _, st := exact(s, x, k, nil, nil, r)
	return top, st
}

// ExactAbove is Exact that also returns, for every data document d, the
// queries whose cosine with d is positive and at least floor[d]: above[d]
// lists them as Neighbor{Doc: query index, Sim}, in query order. When the
// queries are an incremental run's new documents and floor[d] the k-th
// cosine of d's stored list, these are the only new documents that can
// enter d's list, found in the same pass that computes the new documents'
// own lists (instead of a second join of the whole archive with them).
func ExactAbove(s *Set, x *Index, k int, floor []float32, r Runner) (top, above [][]Neighbor, st ExactStats) {
	if len(floor) != len(s.d) {
		panic("related: ExactAbove needs one floor per data document")
	}
	return exact(s, x, k, nil, floor, r)
}

// ExactOf is ExactAbove for some documents of a self join s: the queries
// are the data documents qs (top[j] and the Doc of above's entries are
// positions in qs), and floor may be nil (no above). It is the reference
// ExactScan, which an incremental run uses, is tested against: the same
// join read from the archive's inverted index.
func ExactOf(s *Set, x *Index, k int, qs []int32, floor []float32, r Runner) (top, above [][]Neighbor, st ExactStats) {
	if !s.Self {
		panic("related: ExactOf needs a self join")
	}
	if floor != nil && len(floor) != len(s.d) {
		panic("related: ExactOf needs one floor per data document")
	}
	if qs == nil {
		qs = []int32{} // no queries, not all
	}
	return exact(s, x, k, qs, floor, r)
}

// aboveHit is one (data document, query) pair of ExactAbove.
type aboveHit struct {
	d, q int32
	sim  float32
}

// exact joins the queries qs of s (nil: all, in order) with its data
// documents; out[j] and above's Doc are positions in qs.
func exact(s *Set, x *Index, k int, qs []int32, floor []float32, r Runner) ([][]Neighbor, [][]Neighbor, ExactStats) {
	nq := len(s.q)
	if qs != nil {
		nq = len(qs)
	}
	out := make([][]Neighbor, nq)
	cs := chunks(nq, 16*max(1, nq/4096+1))
	posts := make([]int64, len(cs))
	hits := make([][]aboveHit, len(cs))
	accs := newAccumulators(x.docs)
	r.Run(len(cs), func(c int) {
		acc := accs.get()
		var touched []int32
		var top topK
		var n int64
		for j := cs[c][0]; j < cs[c][1]; j++ {
			qi := j
			if qs != nil {
				qi = int(qs[j])
			}
			q := &s.q[qi]
			// As in ExactSelf: with postings at least half as many as the
			// documents, the accumulator is read whole, in order.
			var reads int64
			for _, t := range q.t {
				reads += x.off[t+1] - x.off[t]
			}
			n += reads
			dense := 2*reads >= int64(x.docs)
			if denseAcc != 0 {
				dense = denseAcc > 0
			}
			touched = touched[:0]
			for i, t := range q.t {
				qw := float64(q.w[i])
				lo, hi := x.off[t], x.off[t+1]
				docs, ws := x.doc[lo:hi], x.w[lo:hi]
				ws = ws[:len(docs)]
				if dense {
					for j, d := range docs {
						acc[d] += qw * float64(ws[j])
					}
					continue
				}
				for j, d := range docs {
					if acc[d] == 0 {
						touched = append(touched, d)
					}
					acc[d] += qw * float64(ws[j])
				}
			}
			top.reset(k)
			worst := math.Inf(-1) // of q's list once full
			offer := func(d int32, a float64) {
				above := math.Inf(1) // no floor: no pair is above it
				if floor != nil {
					above = float64(floor[d])
				}
				if belowBoth(a, worst, above) {
					return
				}
				sim := simOf(a)
				if sim <= 0 || s.isSelf(qi, d) {
					return
				}
				if top.push(Neighbor{d, sim}) {
					worst = float64(top.h[0].Sim)
				}
				if floor != nil && sim >= floor[d] {
					hits[c] = append(hits[c], aboveHit{d, int32(j), sim})
				}
			}
			if dense {
				for d, a := range acc {
					if a == 0 {
						continue // untouched
					}
					offer(int32(d), a)
				}
				clear(acc)
			} else {
				offerTouched(acc, touched, offer)
			}
			out[j] = top.sorted()
		}
		posts[c] = n
		accs.put(acc)
	})
	var st ExactStats
	for _, n := range posts {
		st.Postings += n
	}
	if floor == nil {
		return out, nil, st
	}
	above := make([][]Neighbor, len(s.d))
	for _, hs := range hits { // chunks in query order: each list stays in query order
		for _, h := range hs {
			above[h.d] = append(above[h.d], Neighbor{Doc: h.q, Sim: h.sim})
		}
	}
	return out, above, st
}
