package related

// ExactSelf is Exact for a self join that computes each pair once: cosine
// is symmetric, so query q reads only the postings of documents after it
// (d > q) and offers the pair to both lists, q's own and d's. Half the
// postings and half the accumulations of Exact, the same lists bit for bit:
// a pair's cosine sums the same products over the same shared terms in the
// same (ascending term ID) order from either side.

import (
	"math"
	"slices"
	"sync"
)

// ExactSelf returns what Exact returns for a self join s (s.Self): every
// document's top k, best first.
func ExactSelf(s *Set, x *Index, k int, r Runner) ([][]Neighbor, ExactStats) {
	if !s.Self {
		panic("related: ExactSelf needs a self join")
	}
	if x.holes || x.delta != nil {
		panic("related: ExactSelf needs a plain index (NewIndex), not Reuse's")
	}
	out := make([][]Neighbor, len(s.q))
	cs := chunks(len(s.q), 16*max(1, len(s.q)/4096+1))
	posts := make([]int64, len(cs))
	back := &backLists{k: k, docs: len(s.d)}
	r.Run(len(cs), func(c int) {
		acc := make([]float64, x.docs)
		bl := back.get()
		var touched []int32
		var top topK
		var n int64
		for qi := cs[c][0]; qi < cs[c][1]; qi++ {
			q := &s.q[qi]
			touched = touched[:0]
			for i, t := range q.t {
				qw := float64(q.w[i])
				// Postings ascend by document: read those after qi.
				docs, ws := x.doc[x.off[t]:x.off[t+1]], x.w[x.off[t]:x.off[t+1]]
				from, _ := slices.BinarySearch(docs, int32(qi)+1)
				docs, ws = docs[from:], ws[from:len(docs)]
				for j, d := range docs {
					if acc[d] == 0 {
						touched = append(touched, d)
					}
					acc[d] += qw * float64(ws[j])
				}
				n += int64(len(docs))
			}
			top.reset(k)
			floor := math.Inf(-1) // the worst of q's list once full
			for _, d := range touched {
				a := acc[d]
				acc[d] = 0
				// Most pairs enter neither list: known from the raw sum,
				// they are neither rounded nor offered (belowBoth).
				if belowBoth(a, floor, bl.floor(d)) {
					continue
				}
				sim := simOf(a)
				if sim <= 0 {
					continue
				}
				if top.push(Neighbor{d, sim}) {
					floor = float64(top.h[0].Sim)
				}
				bl.push(d, Neighbor{int32(qi), sim})
			}
			out[qi] = top.sorted()
		}
		posts[c] = n
		back.put(bl)
	})
	back.mergeInto(out, k, r)
	var st ExactStats
	for _, n := range posts {
		st.Postings += n
	}
	return out, st
}

// backLists hands each running task a set of per-document heaps for the
// pairs it finds for documents after its queries: one set per task running
// at once (at most the runner's workers), reused by the tasks that follow.
type backLists struct {
	k, docs int
	mu      sync.Mutex
	free    []*heaps
	all     []*heaps
}

func (b *backLists) get() *heaps {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n := len(b.free); n > 0 {
		l := b.free[n-1]
		b.free = b.free[:n-1]
		return l
	}
	l := newHeaps(b.docs, b.k)
	b.all = append(b.all, l)
	return l
}

func (b *backLists) put(l *heaps) {
	b.mu.Lock()
	b.free = append(b.free, l)
	b.mu.Unlock()
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
	n     []int32    // members of heap d
	h     []Neighbor // heap d is h[d*k : d*k+n[d]]
	worst []Neighbor // heap d's worst member once full; below every offer before
}

func newHeaps(docs, k int) *heaps {
	l := &heaps{k: k, n: make([]int32, docs), h: make([]Neighbor, docs*k), worst: make([]Neighbor, docs)}
	for d := range l.worst {
		l.worst[d] = Neighbor{Doc: math.MaxInt32, Sim: float32(math.Inf(-1))}
	}
	return l
}

// floor is the similarity of the worst member of document d's heap once
// full, -Inf before.
func (l *heaps) floor(d int32) float64 { return float64(l.worst[d].Sim) }

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
	}
}

// of is document d's heap, in no order.
func (l *heaps) of(d int) []Neighbor {
	base := d * l.k
	return l.h[base : base+int(l.n[d])]
}
