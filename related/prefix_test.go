package related

import (
	"testing"

	"github.com/plagd/plagd/internal/testseed"
)

// One threshold: the join must find exactly the brute-force top k among the
// pairs at or above it.
func TestPrefixExactAboveThreshold(t *testing.T) {
	r := testseed.Rand(t)
	d := randomVectors(r, 300, 200, 15)
	q := randomVectors(r, 40, 200, 15)
	for _, th := range []float64{0.9, 0.6, 0.3, 0.1} {
		for _, k := range []int{2, 10} {
			s := Prepare(nil, d, true, Pool(2))
			got, _ := PrefixJoin(s, k, []float64{th}, Pool(2), 8, 8)
			sameLists(t, "self", got, brute(nil, d, true, k, th))
			s = Prepare(q, d, false, Pool(2))
			got, _ = PrefixJoin(s, k, []float64{th}, Pool(2), 8, 8)
			sameLists(t, "R-S", got, brute(q, d, false, k, th))
		}
	}
}

// Rounds down to 0 give the exact top k, and the prefixes actually prune.
func TestPrefixRoundsExact(t *testing.T) {
	r := testseed.Rand(t)
	d := randomVectors(r, 400, 200, 15)
	s := Prepare(nil, d, true, Pool(2))
	want, est := Exact(s, NewIndex(s), 5, Pool(2))
	got, st := PrefixJoin(s, 5, []float64{0.8, 0.5, 0.2, 0}, Pool(2), 8, 8)
	sameLists(t, "rounds", got, want)
	if st.Unsatisfied != 0 && st.Rounds != 4 {
		t.Fatalf("stats %+v", st)
	}
	_, st1 := PrefixJoin(s, 5, []float64{0.8}, Pool(2), 8, 8)
	if st1.Emitted >= est.Postings {
		t.Errorf("prefix at 0.8 emitted %d pairs, exact reads %d postings: no pruning", st1.Emitted, est.Postings)
	}
}
