package bench

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"time"
)

// memProbe measures one phase's memory peak two ways: the kernel's
// high-water mark of resident memory (VmHWM, reset at the start of the phase
// through /proc/self/clear_refs, so it is this phase's peak and not the
// process's), and the Go heap sampled every 10 ms (live objects plus garbage
// not yet collected; with GOGC=100 the heap may reach twice the live data).
type memProbe struct {
	stop     chan struct{}
	done     sync.WaitGroup
	heapPeak uint64
	hwmReset bool
	start    time.Time
	// profile, when the probe was asked for one, is the heap profile
	// taken when the sampled heap last grew by a tenth over the peak
	// before: what was live near the phase's peak.
	profile bytes.Buffer
}

// MemFigures is what a phase cost in memory.
type MemFigures struct {
	PeakRSS  uint64 `json:"peak_rss_bytes"`  // VmHWM during the phase
	PeakHeap uint64 `json:"peak_heap_bytes"` // largest sampled Go heap (objects)
	// HWMPhase is false when the kernel refused to reset VmHWM: PeakRSS is
	// then the process's peak so far, an upper bound.
	HWMPhase bool `json:"hwm_reset"`
}

// startMem settles the heap (so the phase starts from live data only),
// resets VmHWM and starts sampling. With profile set it also keeps a heap
// profile taken near the peak (see memProbe.profile), written by end.
//
// With trace set it also writes the heap and the resident memory to trace
// every two seconds, with the wall clock, to be read next to the engine's
// log: which phase the peak is in.
func startMem(profile bool, trace io.Writer) *memProbe {
	runtime.GC()
	debug.FreeOSMemory()
	p := &memProbe{stop: make(chan struct{}), start: time.Now()}
	p.hwmReset = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		var profiled uint64
		var traced time.Duration
		for {
			metrics.Read(samples)
			heap := samples[0].Value.Uint64()
			p.heapPeak = max(p.heapPeak, heap)
			if el := time.Since(p.start); trace != nil && el >= traced {
				traced += 2 * time.Second
				fmt.Fprintf(trace, "  memory %s (+%.0fs): heap %d MiB, RSS %d MiB\n",
					time.Now().UTC().Format("15:04:05"), el.Seconds(), heap>>20, procStatus("VmRSS")>>20)
			}
			if profile && heap > profiled+profiled/10 {
				profiled = heap
				p.profile.Reset()
				_ = pprof.Lookup("heap").WriteTo(&p.profile, 0)
			}
			select {
			case <-p.stop:
				return
			case <-t.C:
			}
		}
	}()
	return p
}

func (p *memProbe) end() MemFigures {
	close(p.stop)
	p.done.Wait()
	return MemFigures{PeakRSS: procStatus("VmHWM"), PeakHeap: p.heapPeak, HWMPhase: p.hwmReset}
}

// writeProfile writes the heap profile kept near the peak to path.
func (p *memProbe) writeProfile(path string) error {
	if err := os.WriteFile(path, p.profile.Bytes(), 0o644); err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	return nil
}

// procStatus reads a "kB" field of /proc/self/status, in bytes (0 if absent).
func procStatus(field string) uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n << 10
		}
	}
	return 0
}
