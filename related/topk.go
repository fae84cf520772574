package related

// Top-k selection, shared by every join so that all of them break ties the
// same way: higher similarity first, then the lower document number. With
// one order, "the same top k" is well defined and tests can compare lists.

import (
	"math"
	"slices"
)

// Neighbor is one related document: its index in the data set and its
// cosine similarity to the query.
type Neighbor struct {
	Doc int32
	Sim float32
}

// better reports whether a ranks before b.
func better(a, b Neighbor) bool {
	return a.Sim > b.Sim || a.Sim == b.Sim && a.Doc < b.Doc
}

// topK keeps the k best neighbours seen: a min-heap on rank, worst at h[0].
type topK struct {
	k int
	h []Neighbor
}

func (t *topK) reset(k int) { t.k, t.h = k, t.h[:0] }

// push offers n and says whether the heap is full after it (h[0] is then
// the worst member).
func (t *topK) push(n Neighbor) (full bool) {
	if t.k <= 0 {
		return false
	}
	if len(t.h) < t.k {
		t.h = append(t.h, n)
		t.up(len(t.h) - 1)
		return len(t.h) == t.k
	}
	if better(n, t.h[0]) {
		t.h[0] = n
		t.down(0)
	}
	return true
}

func (t *topK) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !better(t.h[p], t.h[i]) {
			break
		}
		t.h[p], t.h[i] = t.h[i], t.h[p]
		i = p
	}
}

func (t *topK) down(i int) {
	n := len(t.h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && better(t.h[l], t.h[r]) {
			c = r
		}
		if !better(t.h[i], t.h[c]) {
			return
		}
		t.h[i], t.h[c] = t.h[c], t.h[i]
		i = c
	}
}

// sorted returns a new slice of the held neighbours, best first.
func (t *topK) sorted() []Neighbor {
	out := slices.Clone(t.h)
	sortNeighbors(out)
	return out
}

func sortNeighbors(ns []Neighbor) {
	slices.SortFunc(ns, func(a, b Neighbor) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
}

// Merge returns the k best of two neighbour lists of one query, a document
// listed in both counted once (with the similarity of a). It is how an
// incremental run updates a stored list with the neighbours found among new
// documents.
func Merge(a, b []Neighbor, k int) []Neighbor {
	var t topK
	t.reset(k)
	seen := make(map[int32]bool, len(a)+len(b))
	for _, l := range [][]Neighbor{a, b} {
		for _, n := range l {
			if !seen[n.Doc] {
				seen[n.Doc] = true
				t.push(n)
			}
		}
	}
	return t.sorted()
}

// belowBoth says that a pair whose raw accumulated cosine is a ranks
// below floorA and floorB, the worst members of the two lists it could
// enter (-Inf for a list not yet full), so that it enters neither: simOf moves a by at most
// half a millionth (and float32 by less than a tenth of that below 2), so
// a sum more than a millionth below a floor rounds strictly below it. The
// joins then round and offer only the pairs that can matter (in the self
// join of 20,000 realistic documents, rounding and offering every pair
// was a third of its time).
func belowBoth(a, floorA, floorB float64) bool {
	return below(a, floorA) && below(a, floorB)
}

// below reports whether the raw sum a lies more than a millionth below
// floor, so that it rounds to no figure that could enter a list with that
// floor: always false when tests turn skipping off.
func below(a, floor float64) bool {
	const slack = 1e-6
	return skipBelowFloors && a+slack < floor
}

// skipBelowFloors is belowBoth's switch: tests turn it off to check that
// skipping changes no list.
var skipBelowFloors = true

// simOf is the similarity every join reports for an accumulated cosine:
// rounded to 6 decimals, so that a pair gets the same figure from any join.
// Joins sum a pair's products in different orders (term IDs are interned
// per join), which moves the last bits of the sum; unrounded, two documents
// exactly tied with a third (short texts often are) could rank one way in
// an incremental run and the other in a full one. Found by the node-kill
// test's exact reference check.
func simOf(v float64) float32 { return float32(math.Round(v*1e6) / 1e6) }
