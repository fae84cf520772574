package engine

import (
	"maps"
	"slices"
	"testing"

	"github.com/plagd/plagd/internal/testseed"
)

// TestPlanOf: every queued document once; the documents lists connect
// (sources outside the queue included) one after the other, in the order
// of their first document and breadth first from it; a Doc's uses are its
// own report's (when it has sources) and one per list naming it.
func TestPlanOf(t *testing.T) {
	queued := []int64{1, 2, 3, 5, 7, 8, 9}
	edges := [][2]int64{{1, 8}, {8, 1}, {3, 100}, {9, 100}, {5, 7}, {7, 5}, {7, 100}}
	p := planOf(queued, edges)
	if want := []int64{1, 8, 2, 3, 7, 9, 5}; !slices.Equal(p.order, want) {
		t.Errorf("order %v, want %v", p.order, want)
	}
	want := map[int64]int32{1: 2, 8: 2, 3: 1, 9: 1, 100: 3, 5: 2, 7: 2}
	if !maps.Equal(p.uses, want) {
		t.Errorf("uses %v, want %v", p.uses, want)
	}
}

// TestPlanOf_Random: on random lists the order is a permutation of the
// queue, each group of connected documents is contiguous, and the uses
// add up to the reports' (own Doc plus sources).
func TestPlanOf_Random(t *testing.T) {
	r := testseed.Rand(t)
	for range 50 {
		n := 1 + r.IntN(300)
		var queued []int64
		for i := int64(1); i <= int64(n); i++ {
			if r.IntN(4) > 0 {
				queued = append(queued, i)
			}
		}
		var edges [][2]int64
		wantUses := 0
		for _, d := range queued {
			k := r.IntN(4)
			if k > 0 {
				wantUses++
			}
			for range k {
				edges = append(edges, [2]int64{d, 1 + r.Int64N(int64(n)+20)})
				wantUses++
			}
		}
		p := planOf(queued, edges)
		if got := slices.Sorted(slices.Values(p.order)); !slices.Equal(got, queued) {
			t.Fatalf("order %v is no permutation of the queue %v", p.order, queued)
		}
		total := 0
		for _, u := range p.uses {
			total += int(u)
		}
		if total != wantUses {
			t.Fatalf("uses add up to %d, the reports make %d", total, wantUses)
		}
		// Groups by a plain flood fill over the edges, undirected.
		adj := map[int64][]int64{}
		for _, e := range edges {
			adj[e[0]] = append(adj[e[0]], e[1])
			adj[e[1]] = append(adj[e[1]], e[0])
		}
		group := map[int64]int{}
		for g, d := range queued {
			if _, ok := group[d]; ok {
				continue
			}
			stack := []int64{d}
			group[d] = g
			for len(stack) > 0 {
				x := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				for _, y := range adj[x] {
					if _, ok := group[y]; !ok {
						group[y] = g
						stack = append(stack, y)
					}
				}
			}
		}
		seen := map[int]bool{}
		for i, d := range p.order {
			g := group[d]
			if seen[g] && group[p.order[i-1]] != g {
				t.Fatalf("group of %d comes back after another: order %v", d, p.order)
			}
			seen[g] = true
		}
	}
}
