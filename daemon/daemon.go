package daemon

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/store"
	"github.com/robfig/cron/v3"
	"github.com/rs/zerolog"
)

// Daemon is `plagd serve`: the master that runs on a cron schedule and shortly
// after changes, plus the HTTP endpoints. One master per database is enforced
// by a PostgreSQL advisory lock.
//
// The daemon outlives its database: when PostgreSQL goes away, the HTTP
// server stays up (/healthz answers, /readyz says why it is not ready, the
// pages and the API answer 503 with Retry-After), runs pause, and the master
// lock, lost with its session, is taken again when PostgreSQL is back; the
// next run then consumes every change made meanwhile.
type Daemon struct {
	cfg     config.Config
	pool    *pgxpool.Pool
	log     zerolog.Logger
	engine  *engine.Engine
	metrics *Metrics
	health  *Health
	cron    *cron.Cron
	cronID  cron.EntryID

	trigger chan string  // coalesced run requests, with the reason
	ui      http.Handler // pages and JSON API (SetUI); nil: health and metrics only

	mu      sync.Mutex
	running bool
	// prompt is when the debounced run for the changes waited out is due
	// (zero: none is waited for); the web pages show it as "about N s".
	prompt  time.Time
	last    *engine.RunReport
	lastErr error
	ready   bool
}

// NewDaemon prepares a daemon; Serve runs it.
func NewDaemon(cfg config.Config, pool *pgxpool.Pool, log zerolog.Logger) *Daemon {
	m := NewMetrics()
	e := engine.NewEngine(cfg, pool, log)
	e.Observer = m
	m.WatchExtract(e.Extractor())
	e.SaveInBackground = true
	return &Daemon{cfg: cfg, pool: pool, log: log, engine: e, metrics: m, health: NewHealth(), trigger: make(chan string, 1)}
}

// Health is the daemon's view of its database, for the web layer's 503s.
func (d *Daemon) Health() *Health { return d.health }

// Timing of the outage handling; variables so tests can shorten them.
var (
	healthInterval = time.Second      // database pings of the monitor
	relockMin      = time.Second      // first wait before retaking a lost master lock
	relockMax      = 15 * time.Second // longest wait between attempts
	listenMax      = 15 * time.Second // longest wait before the change listener reconnects
)

// Serve takes the master lock, starts the HTTP server, the schedule and the
// change listener, and runs until ctx ends (SIGTERM): the run in progress is
// then aborted cleanly (nothing of it is committed) and Serve returns. When
// the lock is lost (its database session died: PostgreSQL stopped or
// restarted, network cut), the run in progress is abandoned uncommitted and
// Serve takes the lock again, with backoff, before any new run.
func (d *Daemon) Serve(ctx context.Context) error {
	lock, err := AcquireMaster(ctx, d.pool, d.cfg.Schedule.LockWait)
	if err != nil {
		return err
	}
	defer func() { lock.Release() }()
	defer d.engine.WaitSaved() // index files of the last run are complete before exit
	defer d.engine.Close()

	// The schedule is set up before the HTTP server starts, so that pages
	// reading NextRun never race with it.
	if d.cfg.Schedule.Cron != "" {
		d.cron = cron.New()
		if d.cronID, err = d.cron.AddFunc(d.cfg.Schedule.Cron, func() { d.request("schedule") }); err != nil {
			return fmt.Errorf("schedule.cron %q: %w", d.cfg.Schedule.Cron, err)
		}
		d.cron.Start()
		defer d.cron.Stop()
	}
	srv, err := d.startHTTP(ctx)
	if err != nil {
		return err
	}
	defer func() {
		sctx, c := context.WithTimeout(context.Background(), 5*time.Second)
		defer c()
		_ = srv.Shutdown(sctx)
	}()

	go d.health.Watch(ctx, d.pool, healthInterval, d.log, func(time.Duration) { d.request("database back") })
	if d.cfg.Schedule.Prompt {
		go d.watchChanges(ctx)
	}
	d.request("startup")
	d.mu.Lock()
	d.ready = true
	d.mu.Unlock()
	d.log.Info().Str("listen", d.cfg.HTTP.Listen).Str("cron", d.cfg.Schedule.Cron).Msg("plagd serving")

	for {
		d.master(ctx, lock)
		lock.Release()
		if ctx.Err() != nil {
			d.log.Info().Msg("stopping")
			return nil
		}
		next, err := d.relock(ctx)
		if err != nil {
			d.log.Info().Msg("stopping")
			return nil
		}
		lock = next
		d.request("master lock retaken")
	}
}

// master runs what is requested while lock is held, until ctx ends or the
// lock is lost. A run in progress when the lock is lost is cancelled, and
// its commit would be refused anyway (engine.Engine.SetFence).
func (d *Daemon) master(ctx context.Context, lock *MasterLock) {
	d.engine.SetFence(lock)
	d.health.setLock("")
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() { // a run in progress stops at once
		select {
		case <-lock.Lost():
			cancel(ErrLockLost)
		case <-ctx.Done():
		}
	}()
	for {
		select {
		case <-ctx.Done():
			if errors.Is(context.Cause(ctx), ErrLockLost) {
				d.health.setLock("master lock lost; retaking it")
				d.log.Error().Msg("lost the master lock (its database session died): runs stop until it is retaken")
			}
			return
		case reason := <-d.trigger:
			if why, _, down := d.health.DatabaseDown(); down {
				// The monitor requests a run when the database is back.
				d.log.Warn().Str("reason", reason).Str("database", why).Msg("run postponed: database unreachable")
				continue
			}
			d.runOnce(ctx, reason, false)
		}
	}
}

// relock takes the master lock again after it was lost, retrying with
// backoff while the database is unreachable or another master holds it.
// It fails only when ctx ends.
func (d *Daemon) relock(ctx context.Context) (*MasterLock, error) {
	delay := relockMin
	for attempt := 1; ; attempt++ {
		lock, err := AcquireMaster(ctx, d.pool, false)
		if err == nil {
			d.health.setLock("")
			d.log.Info().Int("attempt", attempt).Msg("master lock retaken")
			return lock, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		reason := "master lock lost; retaking it: " + oneLine(err.Error())
		var other *OtherMasterError
		if errors.As(err, &other) {
			reason = "another master holds the lock (" + other.Holder() + "); waiting for it"
		}
		d.health.setLock(reason)
		d.log.Warn().Err(err).Int("attempt", attempt).Dur("retry_in_ms", delay).Msg("could not retake the master lock")
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, relockMax)
	}
}

// request asks for a run; requests made while one is pending coalesce.
func (d *Daemon) request(reason string) {
	select {
	case d.trigger <- reason:
	default:
	}
}

// RequestRun asks for a run now (the HTTP "run now" action).
func (d *Daemon) RequestRun() { d.request("requested") }

func (d *Daemon) runOnce(ctx context.Context, reason string, full bool) {
	d.mu.Lock()
	d.running = true
	d.mu.Unlock()
	d.log.Info().Str("reason", reason).Msg("run starting")
	rep, err := d.engine.Run(ctx, full)
	d.mu.Lock()
	d.running = false
	if err == nil {
		d.last = &rep
	}
	d.lastErr = err
	d.mu.Unlock()
	switch {
	case err != nil:
		d.metrics.observeFailure(rep.Kind)
		d.log.Error().Err(err).Msg("run failed; pending changes stay for the next run")
	case rep.Kind == "none":
		// The engine logs "run committed" only for a run that did something.
		d.log.Info().Str("reason", reason).Int64("current_run", rep.ID).Msg("run finished: nothing pending")
	}
	d.refreshGauges(ctx)
}

// watchChanges LISTENs for the change-log trigger's notifications and requests
// a run once changes have been quiet for the debounce time, so that a bulk
// upload makes one run, not thousands. A periodic poll covers notifications
// lost while the connection was down.
func (d *Daemon) watchChanges(ctx context.Context) {
	notified := make(chan struct{}, 1)
	go d.listen(ctx, notified)
	poll := time.NewTicker(max(d.cfg.Schedule.Poll, time.Second))
	defer poll.Stop()
	var debounce <-chan time.Time
	var burst time.Time // when the first change of the writes being waited out came
	wait := func() <-chan time.Time {
		if debounce == nil {
			burst = time.Now()
		}
		// Writes quiet for the debounce interval, but never more than
		// maxDebounces intervals after the burst began: a steady stream of
		// uploads must not postpone runs for ever.
		limit := time.Until(burst.Add(maxDebounces * d.cfg.Schedule.Debounce))
		wait := max(0, min(d.cfg.Schedule.Debounce, limit))
		d.setPrompt(time.Now().Add(wait))
		return time.After(wait)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-notified:
			debounce = wait()
		case <-poll.C:
			d.refreshGauges(ctx)
			if n, err := engine.PendingChanges(ctx, d.pool); err == nil && n+engine.QueuedIndexes(ctx, d.pool) > 0 && debounce == nil {
				debounce = wait()
			}
		case <-debounce:
			debounce = nil
			d.setPrompt(time.Time{})
			d.request("changes")
		}
	}
}

// maxDebounces bounds how long writes that never pause can postpone a
// prompt run: that many debounce intervals after the first of them.
const maxDebounces = 6

// listen keeps a LISTEN connection open, reconnecting with backoff.
func (d *Daemon) listen(ctx context.Context, notified chan<- struct{}) {
	backoff := time.Second
	for ctx.Err() == nil {
		err := func() error {
			conn, err := d.pool.Acquire(ctx)
			if err != nil {
				return err
			}
			defer conn.Release()
			if _, err := conn.Exec(ctx, "listen plagd_changes"); err != nil {
				return err
			}
			backoff = time.Second
			for {
				if _, err := conn.Conn().WaitForNotification(ctx); err != nil {
					conn.Conn().Close(context.Background()) // never return a LISTENing connection to the pool
					return err
				}
				select {
				case notified <- struct{}{}:
				default:
				}
			}
		}()
		if ctx.Err() != nil {
			return
		}
		d.log.Warn().Err(err).Dur("retry_in_ms", backoff).Msg("change listener disconnected")
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
		}
		backoff = min(2*backoff, listenMax)
	}
}

// refreshGauges updates gauges read from the database.
func (d *Daemon) refreshGauges(ctx context.Context) {
	if n, err := engine.PendingChanges(ctx, d.pool); err == nil {
		d.metrics.pending.Set(float64(n))
	}
	c, err := store.CountDocuments(ctx, d.pool)
	if err != nil {
		return
	}
	for status, n := range map[string]int{"indexed": c.Indexed, "failed": c.Failed, "pending": c.Pending, "deleted": c.Deleted} {
		d.metrics.documents.WithLabelValues(status).Set(float64(n))
	}
}

func (d *Daemon) setPrompt(t time.Time) {
	d.mu.Lock()
	d.prompt = t
	d.mu.Unlock()
}

// PromptRun is when the run for changes written recently is due (the
// debounce: schedule.debounce after the last write, at most
// maxDebounces intervals after the first), zero when none is waited for.
// A run already in progress delays it further.
func (d *Daemon) PromptRun() time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.prompt
}

// NextRun is the next scheduled run, zero if none.
func (d *Daemon) NextRun() time.Time {
	if d.cron == nil {
		return time.Time{}
	}
	return d.cron.Entry(d.cronID).Next
}

// startHTTP serves the web pages, health and metrics endpoints.
func (d *Daemon) startHTTP(ctx context.Context) (*http.Server, error) {
	ln, err := net.Listen("tcp", d.cfg.HTTP.Listen)
	if err != nil {
		return nil, fmt.Errorf("listen on %s (http.listen): %w", d.cfg.HTTP.Listen, err)
	}
	srv := NewHTTPServer(d.cfg.HTTP, d.routes())
	srv.BaseContext = func(net.Listener) context.Context { return ctx }
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			d.log.Error().Err(err).Msg("http server")
		}
	}()
	return srv, nil
}
