package invindex

import (
	"slices"
	"testing"
)

func TestTopK_MatchesSortAll(t *testing.T) {
	rng := testRand(t)
	for range 2000 {
		n := rng.IntN(300)
		ms := make([]Match, n)
		for i := range ms {
			// Few distinct Shared values: ties are the common case.
			ms[i] = Match{Other: int64(rng.IntN(1000)) + 1, Shared: uint32(rng.IntN(8))}
		}
		k := []int{0, -1, 1, 2, 10, 100, n, n + 5}[rng.IntN(8)]
		want := slices.Clone(ms)
		slices.SortFunc(want, compareMatch)
		want = want[:max(0, min(k, n))]
		got := TopK(slices.Clone(ms), k)
		if !slices.Equal(got, want) {
			t.Fatalf("n %d k %d:\n got %v\nwant %v", n, k, got, want)
		}
	}
}

func TestTopK_Order(t *testing.T) {
	ms := []Match{{5, 3}, {2, 7}, {9, 3}, {1, 3}, {4, 1}}
	got := TopK(ms, 3)
	if !slices.Equal(got, []Match{{2, 7}, {1, 3}, {5, 3}}) {
		t.Fatalf("%v", got)
	}
	if allocs := testing.AllocsPerRun(10, func() { TopK(ms, 2) }); allocs != 0 {
		t.Fatalf("%v allocations", allocs)
	}
}
