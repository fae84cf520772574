package auth

import (
	"context"
	"runtime"
	"sync/atomic"
)

// hashGate bounds the argon2id hashes computed at once. Each hash holds
// argonMemory (19 MiB) while it runs, so fifty concurrent sign-ins once
// took the server to 950 MB; through the gate they cost at most
// concurrent × 19 MiB, however many arrive. Callers beyond the running
// ones wait (honouring their context) in a queue of bounded length; when
// the queue is full too, enter fails at once with ErrBusy, which the web
// layer answers 503 with Retry-After.
type hashGate struct {
	slots   chan struct{}
	queue   int64
	waiting atomic.Int64
}

// defaultHashSlots is the number of CPUs, at most 4: more concurrent
// hashes than cores only add memory, not throughput.
func defaultHashSlots() int { return min(runtime.GOMAXPROCS(0), 4) }

// newHashGate lets concurrent hashes run at once (0: defaultHashSlots) and
// queue more wait for one.
func newHashGate(concurrent, queue int) *hashGate {
	if concurrent <= 0 {
		concurrent = defaultHashSlots()
	}
	return &hashGate{slots: make(chan struct{}, concurrent), queue: int64(max(queue, 0))}
}

// enter waits for a slot; the caller must call the returned release. It
// fails with ErrBusy when the queue is full and with ctx's error when ctx
// ends first.
func (g *hashGate) enter(ctx context.Context) (release func(), err error) {
	select {
	case g.slots <- struct{}{}:
		return g.release, nil
	default:
	}
	if g.waiting.Add(1) > g.queue {
		g.waiting.Add(-1)
		return nil, ErrBusy
	}
	defer g.waiting.Add(-1)
	select {
	case g.slots <- struct{}{}:
		return g.release, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (g *hashGate) release() { <-g.slots }

// LimitHashes sets how many password hashes the store computes at once
// (0: the number of CPUs, at most 4) and how many more callers may wait
// for one (auth.max_concurrent_hashes, auth.hash_queue). Call it before
// the store is used.
func (s *Store) LimitHashes(concurrent, queue int) { s.hashes = newHashGate(concurrent, queue) }
