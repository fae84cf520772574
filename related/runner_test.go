package related

import (
	"sync/atomic"
	"testing"

	"github.com/plagd/plagd/internal/testseed"
)

func TestPoolRunsEachTaskOnce(t *testing.T) {
	for _, w := range []Pool{0, 1, 3, 50} {
		var hits [100]atomic.Int32
		w.Run(len(hits), func(i int) { hits[i].Add(1) })
		for i := range hits {
			if hits[i].Load() != 1 {
				t.Fatalf("pool %d: task %d ran %d times", w, i, hits[i].Load())
			}
		}
	}
}

// Shuffle puts every record in one partition, sorted by key, records of a
// key in input order, whatever the tasks and partitions.
func TestShuffle(t *testing.T) {
	r := testseed.Rand(t)
	keys := make([]uint64, 1000)
	for i := range keys {
		keys[i] = uint64(r.IntN(50))
	}
	for _, tasks := range []int{1, 7, 2000} {
		for _, parts := range []int{1, 5} {
			recs := Shuffle(Pool(3), len(keys), tasks, parts, func(i int, emit func(uint64, int)) {
				emit(keys[i], i)
			})
			n := 0
			where := map[uint64]int{}
			for p, part := range recs {
				Groups(part, func(k uint64, rs []Record[int]) {
					if q, ok := where[k]; ok && q != p {
						t.Fatalf("key %d in partitions %d and %d", k, q, p)
					}
					where[k] = p
					for j, x := range rs {
						if keys[x.Val] != k || j > 0 && rs[j-1].Val >= x.Val {
							t.Fatalf("group %d out of order: %v", k, rs)
						}
					}
					n += len(rs)
				})
			}
			if n != len(keys) {
				t.Fatalf("%d records, want %d", n, len(keys))
			}
		}
	}
}
