package progress

import (
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
)

// every is how often a phase logs how far it is (a test shortens it).
var every = 5 * time.Second

// Log logs done against total every 5 s, as phase, until the returned
// stop is called. The estimate of the time left assumes the rest goes at
// the pace so far.
func Log(log zerolog.Logger, phase string, total int64, done *atomic.Int64) (stop func()) {
	start := time.Now()
	quit, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				n := done.Load()
				ev := log.Info().Str("phase", phase).Int64("done", n).Int64("total", total)
				if n > 0 {
					eta := time.Duration(float64(time.Since(start)) * float64(total-n) / float64(n))
					ev = ev.Dur("eta_ms", eta.Round(time.Millisecond))
				}
				ev.Msg("progress")
			}
		}
	}()
	return func() {
		close(quit)
		<-ended // no line after stop
	}
}
