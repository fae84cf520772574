package sandbox

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/plagd/plagd/extract"
)

// call runs a registered handler in a child of p, as Text runs "extract".
func call(ctx context.Context, p *Pool, op string) (string, error) {
	r, err := callResult(ctx, p, op)
	return r.Text, err
}

// callResult is call with the flags.
func callResult(ctx context.Context, p *Pool, op string) (extract.Result, error) {
	if err := p.acquire(ctx); err != nil {
		return extract.Result{}, err
	}
	defer p.release()
	return p.isolated(ctx, &request{Op: op, Content: []byte(op), Filename: op + ".pdf",
		Options: extract.Options{Timeout: p.cfg.Timeout}})
}

func testPool(t *testing.T, cfg Config) *Pool {
	t.Helper()
	cfg.Isolate = true
	p := New(cfg, zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.WarnLevel))
	if !p.Isolated() {
		t.Skip("child processes are not available on this platform")
	}
	t.Cleanup(func() {
		p.Close()
		waitNoProcess(t, 5*time.Second, "a child of the test", func(q proc) bool { return q.ppid == currentPID })
	})
	return p
}

var currentPID = func() int { pid := 0; pid = osGetpid(); return pid }()

func kindOf(err error) extract.Kind {
	var xe *extract.Error
	if errors.As(err, &xe) {
		return xe.Kind
	}
	return 0
}

// TestMisbehaviourFailsOnlyItsRequest: each way a reader can go wrong
// fails that one request with the right kind, within the timeout plus a
// bound, and the pool serves the next request.
func TestMisbehaviourFailsOnlyItsRequest(t *testing.T) {
	const timeout = 2 * time.Second
	p := testPool(t, Config{Workers: 1, MemoryLimit: 256 << 20, Timeout: timeout})
	ctx := context.Background()
	for _, c := range []struct {
		op     string
		kind   extract.Kind
		reason string
	}{
		{"bigalloc", extract.ErrTooComplex, "256 MiB of memory"},
		{"spin", extract.ErrTimeout, "extract.timeout"},
		{"sleep", extract.ErrTimeout, "took longer than 2s"},
		{"panic", extract.ErrCorrupt, "boom in the handler"},
		{"gopanic", extract.ErrCorrupt, "the reader crashed"},
		{"exit", extract.ErrCorrupt, "the reader crashed"},
		{"garbage", extract.ErrCorrupt, "the reader crashed"},
	} {
		start := time.Now()
		_, err := call(ctx, p, c.op)
		took := time.Since(start)
		if kindOf(err) != c.kind || !strings.Contains(err.Error(), c.reason) {
			t.Errorf("%s: got %v (kind %v), want kind %v with %q", c.op, err, kindOf(err), c.kind, c.reason)
		}
		if took > timeout+3*time.Second {
			t.Errorf("%s: answered after %s, more than the %s timeout plus 3s", c.op, took, timeout)
		}
		if got, err := call(ctx, p, "echo"); err != nil || got != "echo" {
			t.Fatalf("after %s: the next request got %q, %v; want the echo", c.op, got, err)
		}
	}
	st := p.Stats()
	for _, why := range []string{"memory", "timeout", "crash", "protocol"} {
		if st.Killed[why] == 0 {
			t.Errorf("no child counted as stopped for %s: %+v", why, st)
		}
	}
}

// TestMemoryGrowthIsStopped: a reader that keeps allocating is stopped at
// the memory limit, not at the timeout. The Go memory limit makes the
// collector fight the growth first, so this takes seconds, not
// milliseconds; the bound asserted is the resident memory.
func TestMemoryGrowthIsStopped(t *testing.T) {
	const limit = 256 << 20
	p := testPool(t, Config{Workers: 1, MemoryLimit: limit, Timeout: 60 * time.Second})
	start := time.Now()
	_, err := call(context.Background(), p, "alloc")
	if kindOf(err) != extract.ErrTooComplex || !strings.Contains(err.Error(), "extract.memory_limit") {
		t.Fatalf("got %v, want too_complex naming extract.memory_limit", err)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("stopped after %s", took)
	}
	if got, err := call(context.Background(), p, "echo"); err != nil || got != "echo" {
		t.Fatalf("the next request got %q, %v", got, err)
	}
}

// TestStdoutCannotCorruptTheProtocol: a library printing to standard output
// in a child writes to its standard error, not into the answers.
func TestStdoutCannotCorruptTheProtocol(t *testing.T) {
	p := testPool(t, Config{Workers: 1, Timeout: 10 * time.Second})
	for range 3 {
		if got, err := call(context.Background(), p, "stdout"); err != nil || got != "clean answer" {
			t.Fatalf("got %q, %v; want the clean answer", got, err)
		}
	}
	if st := p.Stats(); st.Started != 1 {
		t.Errorf("%d children started for three clean answers, want 1 (reused)", st.Started)
	}
}

// TestReasonFromChildIsSafe: a reason quoting a file's raw bytes comes
// back as one bounded line of valid UTF-8 (issue 14, item 1b).
func TestReasonFromChildIsSafe(t *testing.T) {
	p := testPool(t, Config{Workers: 1, Timeout: 10 * time.Second})
	_, err := call(context.Background(), p, "badreason")
	if err == nil {
		t.Fatal("no error")
	}
	r := err.Error()
	if !utf8Valid(r) || strings.ContainsAny(r, "\x00\x10\x1f\n") || len(r) > maxReason {
		t.Fatalf("reason not made safe (%d bytes): %q", len(r), r[:min(len(r), 80)])
	}
}

// TestRSSWatchAlone: with RLIMIT_AS not in force, the parent's watch of
// resident memory still stops a child that grows past the limit.
func TestRSSWatchAlone(t *testing.T) {
	p := testPool(t, Config{Workers: 1, MemoryLimit: 200 << 20, Timeout: 30 * time.Second, noAddressLimit: true})
	_, err := call(context.Background(), p, "alloc")
	if kindOf(err) != extract.ErrTooComplex {
		t.Fatalf("got %v, want too_complex", err)
	}
	if p.Stats().Killed["memory"] != 1 {
		t.Fatalf("stats %+v: want one child killed for memory", p.Stats())
	}
}

// TestNoProcessLeftAfterTimeout: a reader that started a program of its
// own (as OCR starts pdftoppm and tesseract) and then hangs is killed with
// that program, and nothing of it is left once the answer is given.
func TestNoProcessLeftAfterTimeout(t *testing.T) {
	p := testPool(t, Config{Workers: 1, Timeout: time.Second})
	_, err := call(context.Background(), p, "grandchild")
	if kindOf(err) != extract.ErrTimeout {
		t.Fatalf("got %v, want timeout", err)
	}
	// The answer comes after the child was reaped: no child may remain.
	if left := children(t); len(left) != 0 {
		t.Fatalf("children alive after the timeout's answer: %+v", left)
	}
	waitNoProcess(t, 2*time.Second, "the grandchild", func(q proc) bool {
		return strings.Contains(q.cmdline, "sleep "+grandchildArg)
	})
}

// TestContextCancelKills: a caller that gives up (a closed connection,
// SIGTERM) gets its context's error, and the child is killed at once.
func TestContextCancelKills(t *testing.T) {
	p := testPool(t, Config{Workers: 1, Timeout: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	_, err := call(ctx, p, "spin")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("cancel took %s to stop the child", took)
	}
	if left := children(t); len(left) != 0 {
		t.Fatalf("children alive after cancel: %+v", left)
	}
}

// TestCloseKillsBusyChildren: Close stops children in the middle of a
// document; the callers get ErrClosed and no process is left.
func TestCloseKillsBusyChildren(t *testing.T) {
	p := testPool(t, Config{Workers: 2, Timeout: time.Hour})
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Go(func() { _, errs[i] = call(context.Background(), p, "spin") })
	}
	for deadline := time.Now().Add(10 * time.Second); len(children(t)) < 2; {
		if time.Now().After(deadline) {
			t.Fatal("the children never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	p.Close()
	wg.Wait()
	for _, err := range errs {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("got %v, want ErrClosed", err)
		}
	}
	if left := children(t); len(left) != 0 {
		t.Fatalf("children alive after Close: %+v", left)
	}
}

// TestSemaphoreCapsConcurrency: ten spinning requests at once never have
// more than Workers children alive, and each fails with a timeout.
func TestSemaphoreCapsConcurrency(t *testing.T) {
	const workers = 2
	p := testPool(t, Config{Workers: workers, Timeout: 500 * time.Millisecond})
	var most atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-stop:
				return
			default:
			}
			n := 0
			for _, c := range children(t) {
				if c.state != "Z" {
					n++
				}
			}
			if int64(n) > most.Load() {
				most.Store(int64(n))
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	var wg sync.WaitGroup
	var timeouts atomic.Int64
	for range 10 {
		wg.Go(func() {
			if _, err := call(context.Background(), p, "spin"); kindOf(err) == extract.ErrTimeout {
				timeouts.Add(1)
			}
		})
	}
	wg.Wait()
	close(stop)
	<-sampled
	if timeouts.Load() != 10 {
		t.Errorf("%d of 10 spinning requests timed out", timeouts.Load())
	}
	if most.Load() > workers {
		t.Errorf("%d children alive at once, more than Workers=%d", most.Load(), workers)
	}
	if most.Load() == 0 {
		t.Error("no child was ever seen: the sampling proves nothing")
	}
}

// TestParentMemoryStaysFlat: crashing children, garbage answers and
// timeouts cost the parent nothing that accumulates.
func TestParentMemoryStaysFlat(t *testing.T) {
	p := testPool(t, Config{Workers: 1, Timeout: 300 * time.Millisecond})
	ctx := context.Background()
	round := func() {
		for _, op := range []string{"exit", "garbage", "gopanic", "spin", "echo"} {
			call(ctx, p, op)
		}
	}
	round() // warm up
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	for range 10 {
		round()
	}
	after := heap()
	if after > before+8<<20 {
		t.Fatalf("parent heap grew from %d to %d bytes over 50 failed requests", before, after)
	}
	if st := p.Stats(); st.Started < 40 {
		t.Fatalf("only %d children started: the rounds did not crash them", st.Started)
	}
}

// TestRecycle: a child is replaced after Recycle documents.
func TestRecycle(t *testing.T) {
	p := testPool(t, Config{Workers: 1, Recycle: 3, Timeout: 10 * time.Second})
	for range 7 {
		if _, err := call(context.Background(), p, "echo"); err != nil {
			t.Fatal(err)
		}
	}
	if st := p.Stats(); st.Started != 3 || st.Killed["recycle"] != 2 {
		t.Fatalf("stats %+v: want 3 children for 7 documents at 3 each", st)
	}
}

// TestInProcess: without isolation the pool reads documents in-process.
func TestInProcess(t *testing.T) {
	p := New(Config{Workers: 1}, zerolog.Nop())
	if p.Isolated() {
		t.Fatal("isolated without Isolate")
	}
	text, err := p.Text(context.Background(), []byte("some plain text"), "a.txt", "", extract.Options{})
	if err != nil || text != "some plain text" {
		t.Fatalf("got %q, %v", text, err)
	}
	if len(children(t)) != 0 || p.Stats().Started != 0 {
		t.Fatal("a child was started")
	}
}
