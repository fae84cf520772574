package related

import "sync"

// taskStates hands each running task of a join a state of its own (an
// accumulator, heaps), one per task running at once (at most the runner's
// workers), reused by the tasks that follow, and keeps every state made so
// that the join can merge what they gathered at its end.
type taskStates[T any] struct {
	make func() T
	mu   sync.Mutex
	free []T
	all  []T
}

// get takes a free state, or makes one.
func (ts *taskStates[T]) get() T {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if n := len(ts.free); n > 0 {
		s := ts.free[n-1]
		ts.free = ts.free[:n-1]
		return s
	}
	s := ts.make()
	ts.all = append(ts.all, s)
	return s
}

// put gives a state back for the next task.
func (ts *taskStates[T]) put(s T) {
	ts.mu.Lock()
	ts.free = append(ts.free, s)
	ts.mu.Unlock()
}
