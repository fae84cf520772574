package neardup

import (
	"reflect"
	"slices"
	"testing"
)

// TestComponentsEqualsReference compares union-find with a breadth-first
// search over the same random graphs.
func TestComponentsEqualsReference(t *testing.T) {
	r := testRand(t)
	for range 200 {
		n := 1 + r.IntN(60)
		var pairs [][2]uint32
		for range r.IntN(2 * n) {
			pairs = append(pairs, [2]uint32{uint32(r.IntN(n)), uint32(r.IntN(n))})
		}
		got := Components(n, pairs)
		want := bfsComponents(n, pairs)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("n=%d pairs=%v:\n got %v\nwant %v", n, pairs, got, want)
		}
	}
}

func bfsComponents(n int, pairs [][2]uint32) [][]uint32 {
	adj := make([][]uint32, n)
	for _, p := range pairs {
		adj[p[0]] = append(adj[p[0]], p[1])
		adj[p[1]] = append(adj[p[1]], p[0])
	}
	seen := make([]bool, n)
	var out [][]uint32
	for s := range n {
		if seen[s] {
			continue
		}
		seen[s] = true
		comp := []uint32{uint32(s)}
		for i := 0; i < len(comp); i++ {
			for _, y := range adj[comp[i]] {
				if !seen[y] {
					seen[y] = true
					comp = append(comp, y)
				}
			}
		}
		if len(comp) > 1 {
			slices.Sort(comp)
			out = append(out, comp)
		}
	}
	slices.SortStableFunc(out, func(a, b []uint32) int { return len(b) - len(a) })
	return out
}
