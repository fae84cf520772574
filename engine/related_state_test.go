package engine

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/plagd/plagd/internal/enginetest"
)

// TestRelatedState_IndexAsBinarySearch: relatedState.index answers as a
// binary search over its ids, whether the ids are dense (the dense index
// answers) or spread out (it does not), for ids in the list, between its
// ids and outside it.
func TestRelatedState_IndexAsBinarySearch(t *testing.T) {
	seed := enginetest.Seed(t)
	rng := rand.New(rand.NewPCG(seed, 21))
	for round := range 200 {
		n := rng.IntN(300)
		gap := []int64{1, 2, 5, 1 << 40}[rng.IntN(4)]
		base := rng.Int64N(1<<50) - 1<<49
		var vs []relatedVector
		id := base
		for range n {
			id += 1 + rng.Int64N(gap)
			vs = append(vs, relatedVector{id: id})
		}
		rng.Shuffle(len(vs), func(i, j int) { vs[i], vs[j] = vs[j], vs[i] })
		st := newRelatedState(1, vs)
		dense := st.at.pos != nil
		for range 500 {
			q := base - 3 + rng.Int64N(max(id-base, 1)+6)
			if n > 0 && rng.IntN(2) == 0 {
				q = st.ids[rng.IntN(n)]
			}
			want := -1
			if i, ok := slices.BinarySearch(st.ids, q); ok {
				want = i
			}
			if got := st.index(q); got != want {
				t.Fatalf("round %d (%d ids, gap %d, dense %v): index(%d) = %d, want %d", round, n, gap, dense, q, got, want)
			}
		}
	}
}
