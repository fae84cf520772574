package synth

import (
	"context"
	"runtime"
	"sync"
)

// Each generates documents [from, to) on workers goroutines (0: GOMAXPROCS)
// and calls fn with them in index order, from one goroutine. Generation
// runs ahead of fn by a bounded number of documents, so a consumer such as
// a COPY stream or a file writer sees the whole archive without it ever
// being in memory. An error from fn, or ctx ending, stops everything.
func (g *Generator) Each(ctx context.Context, from, to, workers int, fn func(i int, d Doc) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if to <= from {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Worker w generates the documents i with (i-from) % workers == w into
	// its own channel, so the consumer reads the channels round-robin and
	// gets index order without sorting.
	chans := make([]chan Doc, workers)
	var wg sync.WaitGroup
	for w := range chans {
		chans[w] = make(chan Doc, 8)
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			defer close(chans[w])
			for i := from + w; i < to; i += workers {
				select {
				case chans[w] <- g.Doc(i):
				case <-ctx.Done():
					return
				}
			}
		}(w)
	}
	defer wg.Wait()
	defer cancel()
	for i := from; i < to; i++ {
		d, ok := <-chans[(i-from)%workers]
		if !ok {
			return ctx.Err()
		}
		if err := fn(i, d); err != nil {
			return err
		}
	}
	return ctx.Err()
}
