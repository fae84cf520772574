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
	"github.com/robfig/cron/v3"
	"github.com/rs/zerolog"
)

// Daemon is `plagd serve`: the master that runs on a cron schedule and shortly
// after changes, plus the HTTP endpoints. One master per database is enforced
// by a PostgreSQL advisory lock.
type Daemon struct {
	cfg     Config
	pool    *pgxpool.Pool
	log     zerolog.Logger
	engine  *Engine
	metrics *Metrics
	cron    *cron.Cron
	cronID  cron.EntryID

	trigger chan string  // coalesced run requests, with the reason
	ui      http.Handler // pages and JSON API (SetUI); nil: health and metrics only

	mu      sync.Mutex
	running bool
	last    *RunReport
	lastErr error
	ready   bool
}

// NewDaemon prepares a daemon; Serve runs it.
func NewDaemon(cfg Config, pool *pgxpool.Pool, log zerolog.Logger) *Daemon {
	m := NewMetrics()
	e := NewEngine(cfg, pool, log)
	e.Metrics = m
	m.WatchExtract(e.Extractor())
	e.SaveInBackground = true
	return &Daemon{cfg: cfg, pool: pool, log: log, engine: e, metrics: m, trigger: make(chan string, 1)}
}

// Serve takes the master lock, starts the HTTP server, the schedule and the
// change listener, and runs until ctx ends (SIGTERM): the run in progress is
// then aborted cleanly (nothing of it is committed) and Serve returns.
func (d *Daemon) Serve(ctx context.Context) error {
	lock, err := AcquireMaster(ctx, d.pool, d.cfg.Schedule.LockWait)
	if err != nil {
		return err
	}
	defer lock.Release()
	defer d.engine.WaitSaved() // index files of the last run are complete before exit
	defer d.engine.Close()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		select {
		case <-lock.Lost():
			cancel(errors.New("lost the master lock (database connection dropped); stopping so that no two masters run"))
		case <-ctx.Done():
		}
	}()

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

	if d.cfg.Schedule.Prompt {
		go d.watchChanges(ctx)
	}
	d.request("startup")
	d.mu.Lock()
	d.ready = true
	d.mu.Unlock()
	d.log.Info().Str("listen", d.cfg.HTTP.Listen).Str("cron", d.cfg.Schedule.Cron).Msg("plagd serving")

	for {
		select {
		case <-ctx.Done():
			if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
				return cause
			}
			d.log.Info().Msg("stopping")
			return nil
		case reason := <-d.trigger:
			d.runOnce(ctx, reason, false)
		}
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
	if err != nil {
		d.metrics.observeFailure(rep.Kind)
		d.log.Error().Err(err).Msg("run failed; pending changes stay for the next run")
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
	for {
		select {
		case <-ctx.Done():
			return
		case <-notified:
			debounce = time.After(d.cfg.Schedule.Debounce)
		case <-poll.C:
			d.refreshGauges(ctx)
			if n, err := pendingChanges(ctx, d.pool); err == nil && n > 0 && debounce == nil {
				debounce = time.After(d.cfg.Schedule.Debounce)
			}
		case <-debounce:
			debounce = nil
			d.request("changes")
		}
	}
}

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
		d.log.Warn().Err(err).Dur("retry_in", backoff).Msg("change listener disconnected")
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
		}
		backoff = min(2*backoff, time.Minute)
	}
}

// refreshGauges updates gauges read from the database.
func (d *Daemon) refreshGauges(ctx context.Context) {
	if n, err := pendingChanges(ctx, d.pool); err == nil {
		d.metrics.pending.Set(float64(n))
	}
	rows, err := d.pool.Query(ctx, `
		select coalesce(s.status, case when d.deleted_at is null then 'pending' else 'deleted' end), count(*)
		from documents d left join document_status s on s.doc_id = d.id group by 1`)
	if err != nil {
		return
	}
	defer rows.Close()
	d.metrics.documents.Reset()
	for rows.Next() {
		var status string
		var n int
		if rows.Scan(&status, &n) == nil {
			d.metrics.documents.WithLabelValues(status).Set(float64(n))
		}
	}
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
