package related

import (
	"testing"

	"github.com/plagd/plagd/internal/testseed"
)

// The incremental run the daemon does: the archive's stored lists, the new
// batch joined with archive ∪ batch (SameAs keeps a new document from being
// its own neighbour), the archive joined with the batch, and Merge, give the
// lists of a full self join over archive ∪ batch.
func TestIncrementalJoinEqualsFull(t *testing.T) {
	r := testseed.Rand(t)
	all := randomVectors(r, 500, 300, 20)
	old, batch := all[:430], all[430:]
	const k = 5
	s := Prepare(nil, old, true, Pool(2))
	stored, _ := Exact(s, NewIndex(s), k, Pool(2))

	// New documents against everything.
	same := make([]int32, len(batch))
	for i := range same {
		same[i] = int32(len(old) + i)
	}
	sq := Prepare(batch, all, false, Pool(2))
	sq.SameAs(same)
	fresh, _ := Exact(sq, NewIndex(sq), k, Pool(2))
	// ZOLIP honours SameAs too.
	zres, _ := ZOLIP(sq, Params{K: k, Lambda: 63, Sigma: 1}, Pool(2))
	sameLists(t, "ZOLIP with SameAs", zres, fresh)

	// Old documents against the batch: batch index j is document len(old)+j.
	sr := Prepare(old, batch, false, Pool(2))
	back, _ := Exact(sr, NewIndex(sr), k, Pool(2))
	got := make([][]Neighbor, len(all))
	for i := range old {
		shifted := make([]Neighbor, len(back[i]))
		for j, n := range back[i] {
			shifted[j] = Neighbor{n.Doc + int32(len(old)), n.Sim}
		}
		got[i] = Merge(stored[i], shifted, k)
	}
	copy(got[len(old):], fresh)
	sameLists(t, "incremental", got, brute(nil, all, true, k, 0))
}
