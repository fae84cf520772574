package daemon

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/plagd/plagd/engine"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// routes wires the daemon's own HTTP endpoints. /healthz says the process
// lives (it answers even while PostgreSQL is down); /readyz that it holds
// the master lock and reaches PostgreSQL, or, with 503, why not;
// /metrics is for Prometheus. Everything else (pages, JSON API) is the UI
// handler set with SetUI: the web package, which imports this one, so the
// daemon does not know about pages or users.
func (d *Daemon) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", d.readyz)
	mux.Handle("GET /metrics", promhttp.HandlerFor(d.metrics.Registry, promhttp.HandlerOpts{}))
	if d.ui != nil {
		mux.Handle("/", d.ui)
	} else {
		mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintln(w, "plagd: no web interface configured; see /healthz, /readyz, /metrics")
		})
	}
	return mux
}

// SetUI mounts the web interface and JSON API under every path the daemon
// does not serve itself. Call it before Serve.
func (d *Daemon) SetUI(h http.Handler) { d.ui = h }

// Engine is the daemon's engine, shared with the web interface so that a
// "check this file" query uses the index the runs keep loaded.
func (d *Daemon) Engine() *engine.Engine { return d.engine }

// Running tells whether a run is in progress.
func (d *Daemon) Running() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.running
}

func (d *Daemon) readyz(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	ready := d.ready
	d.mu.Unlock()
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := d.pool.Ping(ctx); err != nil {
		d.health.ReportError(err)
		notReady(w, "database unreachable: "+oneLine(err.Error()))
		return
	}
	if why := d.health.NotReady(); why != "" {
		notReady(w, why)
		return
	}
	if !ready {
		notReady(w, "starting")
		return
	}
	fmt.Fprintln(w, "ready")
}

// notReady answers /readyz with 503 and the reason.
func notReady(w http.ResponseWriter, why string) {
	w.Header().Set("Retry-After", strconv.Itoa(int(RetryAfter/time.Second)))
	http.Error(w, "not ready: "+why, http.StatusServiceUnavailable)
}
