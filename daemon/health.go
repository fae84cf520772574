package daemon

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"
)

// Health is what the daemon knows about its database and its master lock,
// shared with the web layer: while PostgreSQL is unreachable the pages and
// the API answer 503 with Retry-After instead of failing one by one, and
// /readyz says why the daemon is not ready. The daemon's monitor pings the
// database every second and sets it; a request that meets a connection
// error reports it (ReportError), so the very next request knows too. It is
// safe for concurrent use.
type Health struct {
	mu        sync.Mutex
	dbDown    string    // why the database is unreachable; "" when it answers
	downSince time.Time // when dbDown was set
	lock      string    // why the master lock is not held; "" when it is
	wake      chan struct{}
}

// NewHealth is a state that knows of no trouble.
func NewHealth() *Health { return &Health{wake: make(chan struct{}, 1)} }

// RetryAfter is the Retry-After an unavailable answer carries: about the
// time the monitor takes to notice the database is back.
const RetryAfter = 5 * time.Second

// DatabaseDown tells whether the database is known to be unreachable, why,
// and since when.
func (h *Health) DatabaseDown() (reason string, since time.Time, down bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.dbDown, h.downSince, h.dbDown != ""
}

// NotReady is why the daemon is not ready (database unreachable, master
// lock not held), or "".
func (h *Health) NotReady() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.dbDown != "":
		return "database unreachable: " + h.dbDown
	case h.lock != "":
		return h.lock
	}
	return ""
}

// ReportError records err when it says the database connection is gone
// (IsConnectionError), and tells whether it did.
func (h *Health) ReportError(err error) bool {
	if !IsConnectionError(err) {
		return false
	}
	h.setDown(err.Error())
	select { // let the monitor check now
	case h.wake <- struct{}{}:
	default:
	}
	return true
}

// setDown marks the database unreachable; it reports whether it was up.
func (h *Health) setDown(reason string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	was := h.dbDown == ""
	if was {
		h.downSince = time.Now()
	}
	h.dbDown = oneLine(reason)
	return was
}

// setUp marks the database reachable; it returns how long it was not (0:
// it was up).
func (h *Health) setUp() time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.dbDown == "" {
		return 0
	}
	h.dbDown = ""
	return time.Since(h.downSince)
}

// setLock records why the master lock is not held ("" once it is).
func (h *Health) setLock(reason string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.lock = reason
}

// oneLine keeps a reason short and on one line: driver errors may quote
// the server's message.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return strings.ToValidUTF8(s, "?")
}

// IsConnectionError tells whether err means the database could not be
// reached or the connection died (server stopped, restarted, network cut),
// as opposed to an error of the statement itself.
func IsConnectionError(err error) bool {
	if err == nil {
		return false
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// Class 08: connection exception; 57P01-57P03: the server is
		// shutting down, crashed, or not yet accepting connections.
		return strings.HasPrefix(pe.Code, "08") || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false // the caller gave up; that says nothing of the database
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	// pgx reports use of a connection it closed after a failure this way.
	return strings.Contains(err.Error(), "conn closed")
}

// Watch pings the database every interval (and at once when a request
// reported a connection error) until ctx ends, keeps h up to date, logs each
// outage and its end, and calls back when the database is reachable again.
// The daemon runs it; a web server without a daemon may too.
func (h *Health) Watch(ctx context.Context, pool *pgxpool.Pool, interval time.Duration, log zerolog.Logger, back func(outage time.Duration)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		pctx, cancel := context.WithTimeout(ctx, max(interval, 2*time.Second))
		err := pool.Ping(pctx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			if h.setDown(err.Error()) {
				log.Error().Err(err).Msg("database unreachable: pages and API answer 503, runs are paused until it is back")
			}
		} else if outage := h.setUp(); outage > 0 {
			log.Info().Dur("outage_ms", outage).Msg("database reachable again")
			if back != nil {
				back(outage)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-h.wake:
		}
	}
}
