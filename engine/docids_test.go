package engine

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/plagd/plagd/internal/enginetest"
)

// TestIDSet_AsMap: an idSet answers as a map of its ids, for dense ids,
// ids far apart (the map), the extremes of int64, and none.
func TestIDSet_AsMap(t *testing.T) {
	r := rand.New(rand.NewPCG(enginetest.Seed(t), 29))
	for round := range 300 {
		var lists [][]int64
		want := map[int64]bool{}
		base := r.Int64N(1 << 40)
		spread := []int64{10, 1000, 1 << 20, maxIDSetSpan - 1, maxIDSetSpan, 1 << 40}[round%6]
		for range r.IntN(3) + 1 {
			var ids []int64
			for range r.IntN(40) {
				id := base + r.Int64N(spread)
				switch r.IntN(50) {
				case 0:
					id = math.MaxInt64
				case 1:
					id = math.MinInt64
				case 2:
					id = -id
				}
				ids = append(ids, id)
				want[id] = true
			}
			lists = append(lists, ids)
		}
		s := newIDSet(lists...)
		probe := func(id int64) {
			if s.has(id) != want[id] {
				t.Fatalf("round %d: has(%d) = %v, want %v", round, id, s.has(id), want[id])
			}
		}
		for id := range want {
			probe(id)
			probe(id + 1)
			probe(id - 1)
			probe(id + 64)
		}
		for range 200 {
			probe(base + r.Int64N(spread+100) - 50)
		}
		probe(math.MaxInt64)
		probe(math.MinInt64)
		probe(0)
	}
}

// BenchmarkIDSet: the incremental run's question of every held list's
// members at 1M documents (30 members a list), 1,000 ids in the set, as a
// map and as an idSet.
func BenchmarkIDSet(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	const docs = 1000000
	members := make([]int64, 30*docs)
	for i := range members {
		members[i] = 1 + r.Int64N(docs)
	}
	ids := make([]int64, 1000)
	m := map[int64]bool{}
	for i := range ids {
		ids[i] = 1 + r.Int64N(docs)
		m[ids[i]] = true
	}
	s := newIDSet(ids)
	b.Run("map", func(b *testing.B) {
		for b.Loop() {
			n := 0
			for _, id := range members {
				if m[id] {
					n++
				}
			}
		}
	})
	b.Run("idSet", func(b *testing.B) {
		for b.Loop() {
			n := 0
			for _, id := range members {
				if s.has(id) {
					n++
				}
			}
		}
	})
}
