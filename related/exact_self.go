package related

// ExactSelf is Exact for a self join that computes each pair once: cosine
// is symmetric, so query q reads only the postings of documents after it
// (d > q) and offers the pair to both lists, q's own and d's. Half the
// postings and half the accumulations of Exact, the same lists bit for bit:
// a pair's cosine sums the same products over the same shared terms in the
// same (ascending term ID) order from either side.

import (
	"math"
	"sync"
	"sync/atomic"

	"github.com/plagd/plagd/internal/hugepage"
)

// ExactSelf returns what Exact returns for a self join s (s.Self): every
// document's top k, best first.
func ExactSelf(s *Set, x *Index, k int, r Runner) ([][]Neighbor, ExactStats) {
	return ExactSelfCounted(s, x, k, r, nil)
}

// SelfWork is the postings ExactSelf reads over x in all: every document
// reads, in each of its terms' lists, the postings after its own, so a
// term in df documents costs df(df-1)/2.
func (x *Index) SelfWork() int64 {
	var n int64
	for t := range len(x.off) - 1 {
		df := x.off[t+1] - x.off[t]
		n += df * (df - 1) / 2
	}
	return n
}

// ExactSelfCounted is ExactSelf adding to done, as it goes, the postings
// read, of SelfWork in all (the caller's measure of how far the join is; a
// chunk of queries adds its own when it ends).
func ExactSelfCounted(s *Set, x *Index, k int, r Runner, done *atomic.Int64) ([][]Neighbor, ExactStats) {
	if !s.Self {
		panic("related: ExactSelf needs a self join")
	}
	out := make([][]Neighbor, len(s.q))
	after := postingsAfter(s, x)
	cs := chunks(len(s.q), 16*max(1, len(s.q)/4096+1))
	posts := make([]int64, len(cs))
	back := newBackLists(len(s.d), k)
	accs := newAccumulators(x.docs)
	r.Run(len(cs), func(c int) {
		acc := accs.get()
		bl := back.get()
		var touched []int32
		var top topK
		var n int64
		for qi := cs[c][0]; qi < cs[c][1]; qi++ {
			q := &s.q[qi]
			from := after.at[after.base[qi]:after.base[qi+1]]
			// The postings of the documents after qi, per term of qi.
			var reads int64
			for i, t := range q.t {
				reads += x.off[t+1] - x.off[t] - int64(from[i])
			}
			n += reads
			// When the postings are at least half as many as the documents
			// after qi (on a large archive without topics, nearly every
			// query), the accumulator is read whole, in document order:
			// the postings' loop needs no test for a first touch, and the
			// back heaps' floors are read in order instead of at random
			// (with postingsAfter, the realistic 100,000 documents' join
			// went from 34 s to 16 s). Otherwise only the documents
			// touched are visited.
			dense := 2*reads >= int64(len(s.d)-qi-1)
			if denseAcc != 0 {
				dense = denseAcc > 0
			}
			touched = touched[:0]
			for i, t := range q.t {
				qw := float64(q.w[i])
				// Postings ascend by document: read those after qi.
				lo, hi := x.off[t]+int64(from[i]), x.off[t+1]
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
			// The worst of q's list once full: no lower pair enters it.
			// It starts at q's shared floor (the worst of a full back heap
			// of q, the pairs of q found by earlier queries): q's final
			// list is the best k of a superset of that heap's pairs.
			floor := back.floor(int32(qi))
			offer := func(d int32, a float64) {
				// Most pairs enter neither list: known from the raw sum,
				// they are neither rounded nor offered (belowBoth). An
				// untouched document's sum is 0, below both once full.
				dFloor := back.floor(d)
				if belowBoth(a, floor, dFloor) {
					return
				}
				sim := simOf(a)
				if sim <= 0 {
					return
				}
				if !below(a, floor) && top.push(Neighbor{d, sim}) {
					floor = max(floor, float64(top.h[0].Sim))
				}
				if !below(a, dFloor) {
					bl.push(d, Neighbor{int32(qi), sim})
				}
			}
			if dense {
				rest := acc[qi+1:]
				floors := back.floors[qi+1:]
				for j, a := range rest {
					// offer, with the back floors read in order (the test
					// that skips nearly every pair inline).
					if belowBoth(a, floor, float64(math.Float32frombits(floors[j].Load()))) {
						continue
					}
					offer(int32(qi+1+j), a)
				}
				clear(rest)
			} else {
				offerTouched(acc, touched, offer)
			}
			out[qi] = top.sorted()
		}
		posts[c] = n
		if done != nil {
			done.Add(n)
		}
		back.put(bl)
		accs.put(acc)
	})
	back.mergeInto(out, k, r)
	var st ExactStats
	for _, n := range posts {
		st.Postings += n
	}
	return out, st
}

// offerTouched offers each touched document's sum to offer and clears it
// from the accumulator.
func offerTouched(acc []float64, touched []int32, offer func(d int32, sum float64)) {
	for _, d := range touched {
		a := acc[d]
		acc[d] = 0
		offer(d, a)
	}
}

// accumulators hands out the exact joins' accumulators, a sum per data
// document. Every query clears what it added (offerTouched, or the dense
// reading's clear), so an accumulator is all zero again when a chunk of
// queries is done with it, and the next chunk reuses it instead of
// allocating and zeroing another: 8 MB each at 1M documents, about 16
// chunks per 4,096 queries. A chunk stopped midway (a cancelled join
// panics out of it) never puts its accumulator back.
type accumulators struct {
	p sync.Pool
}

func newAccumulators(docs int) *accumulators {
	a := &accumulators{}
	a.p.New = func() any {
		acc := hugepage.Make[float64](docs)
		return &acc
	}
	return a
}

func (a *accumulators) get() []float64    { return *a.p.Get().(*[]float64) }
func (a *accumulators) put(acc []float64) { a.p.Put(&acc) }

// denseAcc forces the exact joins' way of reading the accumulator, for
// tests: 1 the whole of it for every query, -1 only the documents touched,
// 0 (the default) chosen per query.
var denseAcc = 0

// backLists hands each running task a set of per-document heaps for the
// pairs it finds for documents after its queries: one set per task running
// at once (at most the runner's workers), reused by the tasks that follow.
//
// The sets share their floors: floors[d] is the best of the worst members
// of document d's full heaps across the sets (float32 bits, -Inf before any
// is full). Every set's heap of d holds pairs of d, so d's final list, the
// best k of all of them, ranks no pair below that floor: a pair more than
// belowBoth's slack under it enters no set. With each set's own floor a
// pair could enter one set's heap of d while another set already held k
// better pairs; the back heaps' pushes were a quarter of the self join's
// time on the realistic 100,000 documents (CPU profile of the full run).
type backLists struct {
	floors []atomic.Uint32
	taskStates[*heaps]
}

func newBackLists(docs, k int) *backLists {
	b := &backLists{floors: hugepage.Make[atomic.Uint32](docs)}
	inf := math.Float32bits(float32(math.Inf(-1)))
	for d := range b.floors {
		b.floors[d].Store(inf)
	}
	b.make = func() *heaps {
		l := newHeaps(docs, k)
		l.raise = b.raise
		return l
	}
	return b
}

// floor is document d's shared floor.
func (b *backLists) floor(d int32) float64 {
	return float64(math.Float32frombits(b.floors[d].Load()))
}

// raise lifts document d's shared floor to sim if it is lower.
func (b *backLists) raise(d int32, sim float32) {
	f := &b.floors[d]
	for {
		old := f.Load()
		if math.Float32frombits(old) >= sim || f.CompareAndSwap(old, math.Float32bits(sim)) {
			return
		}
	}
}

// mergeInto merges every set's heap of document i into out[i]. Each pair
// was found once, by its lower document, so no document is offered twice.
func (b *backLists) mergeInto(out [][]Neighbor, k int, r Runner) {
	cs := chunks(len(out), 64)
	r.Run(len(cs), func(c int) {
		var top topK
		for i := cs[c][0]; i < cs[c][1]; i++ {
			top.reset(k)
			for _, n := range out[i] {
				top.push(n)
			}
			for _, l := range b.all {
				for _, n := range l.of(i) {
					top.push(n)
				}
			}
			out[i] = top.sorted()
		}
	})
}

// heaps are one top-k heap per document in one flat array, with each full
// heap's worst member copied into a dense array: most offers lose to it,
// and checking it there costs no cache miss on the heap itself (that miss
// was 40 % of the self join).
type heaps struct {
	k     int
	n     []int32                    // members of heap d
	h     []Neighbor                 // heap d is h[d*k : d*k+n[d]]
	worst []Neighbor                 // heap d's worst member once full; below every offer before
	raise func(d int32, sim float32) // told each full heap's new worst similarity
}

func newHeaps(docs, k int) *heaps {
	l := &heaps{k: k, n: make([]int32, docs), h: hugepage.Make[Neighbor](docs * k), worst: make([]Neighbor, docs)}
	for d := range l.worst {
		l.worst[d] = Neighbor{Doc: math.MaxInt32, Sim: float32(math.Inf(-1))}
	}
	return l
}

// push offers n to document d's heap.
func (l *heaps) push(d int32, n Neighbor) {
	if !better(n, l.worst[d]) {
		return
	}
	base := int(d) * l.k
	t := topK{k: l.k, h: l.h[base : base+int(l.n[d]) : base+l.k]}
	t.push(n)
	l.n[d] = int32(len(t.h))
	if len(t.h) == l.k {
		l.worst[d] = t.h[0]
		if l.raise != nil {
			l.raise(d, t.h[0].Sim)
		}
	}
}

// of is document d's heap, in no order.
func (l *heaps) of(d int) []Neighbor {
	base := d * l.k
	return l.h[base : base+int(l.n[d])]
}

// afterTable is, for every document q of a self join and each of its
// terms, where the postings of the documents after q begin in that term's
// list: q's own posting is in it, so the place is found by numbering each
// term's postings in document order once, instead of a binary search per
// query and term (a tenth of the join's time at 100,000 documents).
type afterTable struct {
	base []int64 // document q's places are at[base[q]:base[q+1]]
	at   []int32 // within the term's list, which holds at most one posting per document
}

func postingsAfter(s *Set, x *Index) afterTable {
	tbl := afterTable{base: make([]int64, len(s.q)+1)}
	var n int64
	for q := range s.q {
		tbl.base[q] = n
		n += int64(len(s.q[q].t))
	}
	tbl.base[len(s.q)] = n
	tbl.at = hugepage.Make[int32](int(n))
	next := make([]int32, len(x.off)-1) // postings of each term numbered so far
	for q := range s.q {
		at := tbl.at[tbl.base[q]:tbl.base[q+1]]
		for i, t := range s.q[q].t {
			next[t]++
			at[i] = next[t]
		}
	}
	return tbl
}
