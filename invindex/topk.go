package invindex

import (
	"cmp"
	"slices"
)

// Match is a similarity candidate with the other document's external
// (PostgreSQL) id, so that ties break identically whatever internal ids a
// run happened to assign: incremental and full runs must agree row for row.
type Match struct {
	Other  int64
	Shared uint32
}

// better is the ranking order: more shared chunks first, then lower id.
func better(a, b Match) bool {
	if a.Shared != b.Shared {
		return a.Shared > b.Shared
	}
	return a.Other < b.Other
}

func compareMatch(a, b Match) int {
	if a.Shared != b.Shared {
		return cmp.Compare(b.Shared, a.Shared)
	}
	return cmp.Compare(a.Other, b.Other)
}

// TopK keeps the k best of ms ordered by Shared desc, then Other asc, and
// returns them sorted in that order, reusing ms's storage (ms is reordered).
// When len(ms) > k it selects with a heap of size k kept in ms[:k], whose
// root is the worst kept match: most candidates fail the one comparison with
// the root, so selection is O(n) in practice and O(n log k) at worst, with
// no allocation.
func TopK(ms []Match, k int) []Match {
	if k <= 0 {
		return ms[:0]
	}
	if len(ms) > k {
		h := ms[:k]
		for i := k/2 - 1; i >= 0; i-- {
			siftDown(h, i)
		}
		for _, m := range ms[k:] {
			if better(m, h[0]) {
				h[0] = m
				siftDown(h, 0)
			}
		}
		ms = h
	}
	slices.SortFunc(ms, compareMatch)
	return ms
}

// siftDown restores the heap property below i: every parent is worse than
// its children.
func siftDown(h []Match, i int) {
	for {
		w := i
		if l := 2*i + 1; l < len(h) && better(h[w], h[l]) {
			w = l
		}
		if r := 2*i + 2; r < len(h) && better(h[w], h[r]) {
			w = r
		}
		if w == i {
			return
		}
		h[i], h[w] = h[w], h[i]
		i = w
	}
}
