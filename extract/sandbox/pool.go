package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/plagd/plagd/extract"
	"github.com/plagd/plagd/internal/safetext"
)

// Config sizes a Pool. Zero values take the defaults.
type Config struct {
	// Workers caps concurrent extractions (isolated or not) and so the
	// children alive at once. Default: runtime.NumCPU().
	Workers int
	// MemoryLimit is the most memory one child may use, in bytes. Default:
	// DefaultMemoryLimit.
	MemoryLimit int64
	// Timeout bounds one document; 0: the Options.Timeout of each call.
	Timeout time.Duration
	// Recycle is how many documents a child reads before it is replaced.
	// Default: DefaultRecycle.
	Recycle int
	// Isolate runs extraction in child processes; false extracts in the
	// calling process (debugging, platforms without the limits).
	Isolate bool
	// noAddressLimit leaves RLIMIT_AS unset in children: tests of the RSS
	// watch alone.
	noAddressLimit bool
}

// Defaults of Config's zero values.
const (
	DefaultMemoryLimit = 1 << 30
	DefaultRecycle     = 1000
)

const (
	// rssEvery is how often the parent reads a busy child's resident memory.
	rssEvery = 50 * time.Millisecond
	// idleAfter retires children unused for this long.
	idleAfter = time.Minute
	// reapWait bounds the wait for a killed child to be reaped.
	reapWait = 5 * time.Second
	// stderrKeep bytes of the head and of the tail of a child's standard
	// error are kept for the log.
	stderrKeep = 4 << 10
	// maxReason bounds a failure reason that came from a child.
	maxReason = 1000
	// cpuGrace is the CPU time a child has beyond the document's timeout
	// before RLIMIT_CPU stops it, should the parent not have.
	cpuGrace = 10 * time.Second
)

// ErrClosed is returned by a Pool after Close.
var ErrClosed = errors.New("the extraction pool is closed (plagd is stopping)")

// ErrUnavailable wraps the reason no child could be started: not the
// document's fault, so a run fails (and is retried) rather than marking it.
var ErrUnavailable = errors.New("no extraction process could be started")

// Pool extracts text in child processes, at most Config.Workers at a time.
// It is safe for concurrent use. Close kills the children.
type Pool struct {
	cfg     Config
	log     zerolog.Logger
	exe     string
	isolate bool
	sem     chan struct{}
	seq     atomic.Uint64

	mu     sync.Mutex
	idle   []*child
	live   map[*child]struct{}
	closed bool
	quit   chan struct{} // closed by Close: stops the idle janitor
	// janitorOnce starts the janitor with the first child, so that a pool
	// that never needs one costs nothing.
	janitorOnce sync.Once

	started atomic.Int64
	statsMu sync.Mutex
	killed  map[string]int64
}

// New makes a pool. No child starts before the first document that needs one.
func New(cfg Config, log zerolog.Logger) *Pool {
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.NumCPU()
	}
	if cfg.MemoryLimit <= 0 {
		cfg.MemoryLimit = DefaultMemoryLimit
	}
	if cfg.Recycle <= 0 {
		cfg.Recycle = DefaultRecycle
	}
	p := &Pool{cfg: cfg, log: log.With().Str("component", "extract-sandbox").Logger(),
		sem: make(chan struct{}, cfg.Workers), live: map[*child]struct{}{}, killed: map[string]int64{},
		quit: make(chan struct{})}
	if cfg.Isolate {
		exe, err := os.Executable()
		switch {
		case !supported:
			p.log.Warn().Msg("extract.isolate: child processes need Linux here; extracting in-process, without memory and time limits that can stop a runaway parser")
		case err != nil:
			p.log.Warn().Err(err).Msg("extract.isolate: cannot find this program's executable; extracting in-process")
		default:
			p.exe, p.isolate = exe, true
		}
	}
	return p
}

// Isolated reports whether documents are read in child processes.
func (p *Pool) Isolated() bool { return p.isolate }

// Text is Read without the flags: the text of a file.
func (p *Pool) Text(ctx context.Context, content []byte, filename, contentType string, opt extract.Options) (string, error) {
	r, err := p.Read(ctx, content, filename, contentType, opt)
	return r.Text, err
}

// Read extracts the plain text of a file and its flags, as extract.Read
// does: the result, or an *extract.Error saying why there is none. A file
// that kills its reader fails alone (extract.ErrTooComplex for memory,
// ErrTimeout for time, ErrCorrupt for other crashes). Other errors are not
// the file's fault: ctx ended (its error), ErrClosed, or ErrUnavailable.
// The flags are bounded whatever the child sent (boundFlags).
func (p *Pool) Read(ctx context.Context, content []byte, filename, contentType string, opt extract.Options) (extract.Result, error) {
	if opt.MaxBytes > 0 && int64(len(content)) > opt.MaxBytes {
		return extract.Result{}, extract.TooLarge(int64(len(content)), opt.MaxBytes)
	}
	if p.cfg.Timeout > 0 {
		opt.Timeout = p.cfg.Timeout
	}
	if err := p.acquire(ctx); err != nil {
		return extract.Result{}, err
	}
	defer p.release()
	if !p.isolate || len(content) == 0 || extract.DetectFormat(content, filename, contentType) == extract.FormatText {
		// Plain text is one linear pass over its bytes: no child needed.
		return inProcess(opExtract, content, filename, contentType, opt)
	}
	return p.isolated(ctx, &request{Op: opExtract, Content: content, Filename: filename, ContentType: contentType, Options: opt})
}

func (p *Pool) acquire(ctx context.Context) error {
	select {
	case p.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (p *Pool) release() { <-p.sem }

// inProcess runs a handler in this process, with its panics (in this
// goroutine) turned into ErrCorrupt and its reason made safe.
func inProcess(op string, content []byte, filename, contentType string, opt extract.Options) (extract.Result, error) {
	resp := runRequest(&request{Op: op, Content: content, Filename: filename, ContentType: contentType, Options: opt})
	return answer(resp)
}

// answer turns a response into Read's results; the reason and the flags
// came from a file's reader, so the reason is made one bounded line of
// valid UTF-8 and the flags are bounded.
func answer(resp response) (extract.Result, error) {
	if resp.Kind == 0 {
		return extract.Result{Text: resp.Text, Flags: boundFlags(resp.Flags, len(resp.Text))}, nil
	}
	return extract.Result{}, &extract.Error{Kind: resp.Kind, Reason: safetext.Line(resp.Reason, maxReason)}
}

// isolated runs req in a child, killing it when it overruns.
func (p *Pool) isolated(ctx context.Context, req *request) (extract.Result, error) {
	c, err := p.take()
	if err != nil {
		return extract.Result{}, err
	}
	req.Seq = p.seq.Add(1)
	timeout := req.Options.Timeout
	if timeout > 0 {
		req.CPUSeconds = int64((timeout + cpuGrace + time.Second - 1) / time.Second)
	}
	start := time.Now()
	resp, res := c.run(ctx, req, timeout, p.cfg.MemoryLimit)
	if res.err == nil {
		switch {
		case resp.Kind == extract.ErrTimeout:
			// The child gave up on its own timer; its parser goroutine may
			// still be running: the child goes.
			p.retire(c, "timeout")
		case c.served >= p.cfg.Recycle:
			p.retire(c, "recycle")
		default:
			p.put(c)
		}
		return answer(resp)
	}
	return extract.Result{}, p.failed(ctx, c, req, res, time.Since(start))
}

// failed reaps a child that did not answer and says why, as the document's
// failure or as the caller's.
func (p *Pool) failed(ctx context.Context, c *child, req *request, res runResult, took time.Duration) error {
	killGroup(c.pid)
	reaped := c.reap(reapWait)
	p.forget(c)
	stderr := c.stderr.String()
	why := res.why
	if why == "" {
		switch {
		case p.isClosed():
			why = "close"
		case outOfMemory(stderr):
			why = "memory"
		case c.exitCode() == exitCPU:
			why = "timeout"
		case res.protocol:
			why = "protocol"
		default:
			why = "crash"
		}
	}
	p.count(why)
	format := extract.DetectFormat(req.Content, req.Filename, req.ContentType).Name()
	ev := p.log.Warn()
	if why == "canceled" || why == "close" {
		ev = p.log.Debug()
	}
	ev = ev.Int("pid", c.pid).Str("reason", why).Str("file", safetext.Line(req.Filename, 200)).
		Str("format", format).Int("bytes", len(req.Content)).Dur("took_ms", took).Err(res.err)
	if res.rss > 0 {
		ev = ev.Int64("rss_bytes", res.rss)
	}
	if reaped {
		ev = ev.Str("exit", c.exitStatus())
	}
	if why == "crash" || why == "protocol" || why == "memory" {
		ev = ev.Str("stderr", safetext.Text(stderr))
	}
	ev.Msg("extraction process stopped")

	switch why {
	case "canceled":
		if err := context.Cause(ctx); err != nil {
			return err
		}
		return ctx.Err()
	case "close":
		return ErrClosed
	case "memory":
		return &extract.Error{Kind: extract.ErrTooComplex, Reason: fmt.Sprintf(
			"reading the %s file needed more than %s of memory (extract.memory_limit in the configuration)",
			format, humanBytes(p.cfg.MemoryLimit))}
	case "timeout":
		return &extract.Error{Kind: extract.ErrTimeout, Reason: fmt.Sprintf(
			"reading the %s file took longer than %s (extract.timeout in the configuration)", format, req.Options.Timeout)}
	}
	return &extract.Error{Kind: extract.ErrCorrupt, Reason: fmt.Sprintf("the reader crashed on this %s file", format)}
}

// outOfMemory: the Go runtime's last words when an allocation fails
// (RLIMIT_AS, or the system out of memory).
func outOfMemory(stderr string) bool {
	for _, s := range []string{"runtime: out of memory", "cannot allocate memory", "fatal error: out of memory"} {
		if containsFold(stderr, s) {
			return true
		}
	}
	return false
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// take returns an idle child, or starts one.
func (p *Pool) take() (*child, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrClosed
	}
	for len(p.idle) > 0 {
		c := p.idle[len(p.idle)-1]
		p.idle = p.idle[:len(p.idle)-1]
		select {
		case <-c.exited: // died while idle (killed from outside)
			delete(p.live, c)
			p.countLocked("crash")
			continue
		default:
		}
		p.mu.Unlock()
		return c, nil
	}
	p.mu.Unlock()
	c, err := startChild(p.exe, p.cfg)
	if err != nil {
		p.log.Error().Err(err).Msg("cannot start an extraction process")
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	p.started.Add(1)
	p.janitorOnce.Do(func() { go p.janitor() })
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		killGroup(c.pid)
		go c.reap(reapWait)
		return nil, ErrClosed
	}
	p.live[c] = struct{}{}
	return c, nil
}

// put makes a child that answered available again.
func (p *Pool) put(c *child) {
	c.lastUsed = time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		killGroup(c.pid)
		return
	}
	p.idle = append(p.idle, c)
}

// retire kills a healthy child that is not to be used again.
func (p *Pool) retire(c *child, why string) {
	killGroup(c.pid)
	p.forget(c)
	p.count(why)
	go c.reap(reapWait)
}

func (p *Pool) forget(c *child) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.live, c)
}

func (p *Pool) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// janitor retires children idle for idleAfter, so that a quiet server
// does not keep processes (and whatever heap they kept) around.
func (p *Pool) janitor() {
	t := time.NewTicker(idleAfter / 4)
	defer t.Stop()
	for {
		select {
		case <-p.quit:
			return
		case <-t.C:
		}
		p.mu.Lock()
		var old []*child
		keep := p.idle[:0]
		for _, c := range p.idle {
			if time.Since(c.lastUsed) > idleAfter {
				old = append(old, c)
			} else {
				keep = append(keep, c)
			}
		}
		p.idle = keep
		p.mu.Unlock()
		for _, c := range old {
			p.retire(c, "idle")
		}
	}
}

// Close kills every child, busy or idle, and waits until they are reaped.
// Calls in progress fail with ErrClosed; so do later ones that need a child.
func (p *Pool) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	close(p.quit)
	all := make([]*child, 0, len(p.live))
	for c := range p.live {
		all = append(all, c)
	}
	idle := len(p.idle)
	p.idle = nil
	p.mu.Unlock()
	for _, c := range all {
		killGroup(c.pid)
	}
	for _, c := range all {
		c.reap(reapWait)
	}
	for range idle {
		p.count("close")
	}
}

// Stats counts the pool's children.
type Stats struct {
	Started int64            // children started
	Killed  map[string]int64 // children stopped, by reason: timeout, memory, crash, protocol, canceled, recycle, idle, close
	Live    int              // children alive now, busy or idle
}

// Stats returns the counts so far.
func (p *Pool) Stats() Stats {
	p.mu.Lock()
	live := len(p.live)
	p.mu.Unlock()
	p.statsMu.Lock()
	defer p.statsMu.Unlock()
	k := make(map[string]int64, len(p.killed))
	for r, n := range p.killed {
		k[r] = n
	}
	return Stats{Started: p.started.Load(), Killed: k, Live: live}
}

func (p *Pool) count(why string) {
	p.statsMu.Lock()
	defer p.statsMu.Unlock()
	p.killed[why]++
}

// countLocked is count for callers holding p.mu (statsMu is separate).
func (p *Pool) countLocked(why string) { p.count(why) }
