package related

import (
	"context"
	"fmt"
)

// Stopping a join. The joins are long (a self join of a large archive takes
// minutes) and their phases are sequences of Runner.Run calls whose tasks
// are short (a chunk of queries, one partition). Stoppable wraps a Runner so
// that, once its context ends, no further task starts and Run does not
// return normally: it panics with a stop value, which unwinds the join
// without any partial result reaching its caller. Catch, around the join,
// turns that panic back into the context's error. The algorithms need no
// error paths of their own, and a join that is not stopped runs exactly as
// before.

// stop is the panic value of a Stoppable runner whose context has ended.
type stop struct{ err error }

// Stoppable returns a Runner that runs tasks with r until ctx ends; then the
// tasks not yet started are skipped and Run panics, to be recovered by Catch
// on the goroutine that called the join. A join stops within about one task
// of the cancellation.
func Stoppable(ctx context.Context, r Runner) Runner { return stoppable{ctx, r} }

type stoppable struct {
	ctx context.Context
	r   Runner
}

func (s stoppable) Run(n int, task func(i int)) {
	s.check()
	s.r.Run(n, func(i int) {
		if s.ctx.Err() == nil {
			task(i)
		}
	})
	s.check()
}

func (s stoppable) check() {
	if s.ctx.Err() != nil {
		panic(stop{fmt.Errorf("related join stopped: %w", context.Cause(s.ctx))})
	}
}

// Catch runs f, a join using a Stoppable runner, and returns the reason it
// was stopped, or nil when it ran to the end. Other panics go on.
func Catch(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			s, ok := r.(stop)
			if !ok {
				panic(r)
			}
			err = s.err
		}
	}()
	f()
	return nil
}
