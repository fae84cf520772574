package related

import (
	"fmt"
	"slices"
	"testing"

	"github.com/plagd/plagd/internal/testseed"
)

// TestExactScanEqualsExactOf: scanning the archive's documents against an
// index of the queries gives the lists and above-floor hits of ExactOf,
// bit for bit: for any batch of queries (none, one, some, all), floors
// drawn at random, at the lists' own similarities (ties) or none, k
// smaller and larger than the lists, sets numbered by Prepare and by a
// Dict, each way of reading the accumulator (whole for small batches or not), and
// more workers than one.
func TestExactScanEqualsExactOf(t *testing.T) {
	r := testseed.Rand(t)
	for _, n := range []int{1, 2, 60, 500} {
		d := randomVectors(r, n, 300, 20)
		dict := NewDict()
		sets := map[string]*Set{"Prepare": Prepare(nil, d, true, Pool(3)), "Dict": SelfSet(dict, dict.Docs(d, Pool(3)))}
		for name, s := range sets {
			x := NewIndex(s)
			all, _ := Exact(s, x, 30, Pool(3))
			floors := map[string][]float32{"none": nil, "random": make([]float32, n), "ties": make([]float32, n)}
			for i := range n {
				floors["random"][i] = r.Float32() / 2
				if l := all[i]; len(l) > 0 {
					floors["ties"][i] = l[r.IntN(len(l))].Sim
				}
			}
			batches := [][]int32{{}, {int32(r.IntN(n))}, nil, make([]int32, n)}
			for i := range n {
				if r.IntN(4) == 0 {
					batches[2] = append(batches[2], int32(i))
				}
				batches[3][i] = int32(i)
			}
			for fname, floor := range floors {
				for _, qs := range batches {
					for _, k := range []int{1, 5, 40} {
						for _, mode := range []int{0, 1, -1} {
							for _, wholeUpTo := range []int{1024, 0} {
								how := fmt.Sprintf("n=%d %s, floors %s, %d queries, k=%d, mode %d, read whole up to %d queries",
									n, name, fname, len(qs), k, mode, wholeUpTo)
								denseAcc, denseScanQueries = mode, wholeUpTo
								wantTop, wantAbove, _ := ExactOf(s, x, k, qs, floor, Pool(3))
								gotTop, gotAbove := ExactScan(s, k, qs, floor, Pool(3))
								denseAcc, denseScanQueries = 0, 1024
								sameNeighborLists(t, how+": lists", gotTop, wantTop)
								sameNeighborLists(t, how+": above", gotAbove, wantAbove)
							}
						}
					}
				}
			}
		}
	}
}

// sameNeighborLists fails t unless got and want hold the same lists (an
// empty list and none are the same).
func sameNeighborLists(t *testing.T, how string, got, want [][]Neighbor) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d lists, want %d", how, len(got), len(want))
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Fatalf("%s: list %d: %v, want %v", how, i, got[i], want[i])
		}
	}
}
