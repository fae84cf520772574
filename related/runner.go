package related

// The parallel machinery the joins run on. Every phase is a set of
// independent tasks (map over a chunk of documents, reduce over a partition
// of keys); a Runner executes them. Pool runs them on goroutines; the daemon
// can implement Runner with its node processes, shipping each task's input
// (a chunk of vectors, a partition of records) and collecting its output, as
// the phases' tasks share no state but what they return.

import (
	"cmp"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// Runner executes tasks 0..n-1, each exactly once, and returns when all are
// done. Tasks are independent and may run in any order or concurrently.
type Runner interface {
	Run(n int, task func(i int))
}

// Pool is a Runner with that many goroutines (0 or less: GOMAXPROCS).
type Pool int

// Run implements Runner.
func (p Pool) Run(n int, task func(i int)) {
	w := int(p)
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	w = min(w, n)
	if w <= 1 {
		for i := range n {
			task(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range w {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				task(i)
			}
		})
	}
	wg.Wait()
}

// Record is one key-value pair between a map and a reduce.
type Record[V any] struct {
	Key uint64
	Val V
}

// chunks splits [0,n) into about tasks equal ranges.
func chunks(n, tasks int) [][2]int {
	tasks = max(1, min(tasks, n))
	out := make([][2]int, 0, tasks)
	for i := range tasks {
		lo, hi := i*n/tasks, (i+1)*n/tasks
		if hi > lo {
			out = append(out, [2]int{lo, hi})
		}
	}
	return out
}

// partitionOf sends a key to one of parts partitions. The key is mixed first
// (SplitMix64 finaliser): term hashes and document numbers are far from
// uniform in their low bits.
func partitionOf(key uint64, parts int) int {
	z := key + 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return int(z % uint64(parts))
}

// Shuffle is the map and shuffle of one phase: mapf is called for every
// input 0..n-1 (in tasks chunks, run by r) and emits records, which end up in
// parts partitions by key, each sorted by key. Records of one key keep the
// order of their inputs, so the result is deterministic.
func Shuffle[V any](r Runner, n, tasks, parts int, mapf func(i int, emit func(key uint64, v V))) [][]Record[V] {
	cs := chunks(n, tasks)
	out := make([][][]Record[V], len(cs)) // [task][partition]
	r.Run(len(cs), func(c int) {
		buf := make([][]Record[V], parts)
		emit := func(k uint64, v V) {
			p := partitionOf(k, parts)
			buf[p] = append(buf[p], Record[V]{k, v})
		}
		for i := cs[c][0]; i < cs[c][1]; i++ {
			mapf(i, emit)
		}
		out[c] = buf
	})
	res := make([][]Record[V], parts)
	r.Run(parts, func(p int) {
		var m int
		for c := range out {
			m += len(out[c][p])
		}
		rs := make([]Record[V], 0, m)
		for c := range out {
			rs = append(rs, out[c][p]...)
		}
		sortRecords(rs)
		res[p] = rs
	})
	return res
}

// sortRecords sorts by key, stably: records of one key keep their order.
func sortRecords[V any](rs []Record[V]) {
	slices.SortStableFunc(rs, func(a, b Record[V]) int { return cmp.Compare(a.Key, b.Key) })
}

// Groups calls f for every run of equal keys in a sorted partition.
func Groups[V any](part []Record[V], f func(key uint64, recs []Record[V])) {
	for i := 0; i < len(part); {
		j := i + 1
		for j < len(part) && part[j].Key == part[i].Key {
			j++
		}
		f(part[i].Key, part[i:j])
		i = j
	}
}
