package neardup

import "slices"

// Components groups n items into the connected components of the graph
// whose edges are pairs (single linkage: a chain of near-duplicates is one
// group even if its ends differ by more than h). Components of one item
// are left out; each component is sorted and the components are ordered by
// size, largest first, then by their smallest item.
func Components(n int, pairs [][2]uint32) [][]uint32 {
	parent := make([]uint32, n)
	for i := range parent {
		parent[i] = uint32(i)
	}
	find := func(x uint32) uint32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]] // path halving
			x = parent[x]
		}
		return x
	}
	for _, p := range pairs {
		a, b := find(p[0]), find(p[1])
		if a != b {
			parent[max(a, b)] = min(a, b) // the smallest item is the root
		}
	}
	members := map[uint32][]uint32{}
	for i := range n {
		r := find(uint32(i))
		members[r] = append(members[r], uint32(i))
	}
	var out [][]uint32
	for _, m := range members {
		if len(m) > 1 {
			out = append(out, m) // ascending: items were visited in order
		}
	}
	slices.SortFunc(out, func(a, b []uint32) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return int(a[0]) - int(b[0])
	})
	return out
}
