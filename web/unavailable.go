package web

import (
	"context"
	"html"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/plagd/plagd/daemon"
)

// While PostgreSQL is unreachable, nothing but static files can be served:
// every page and API call needs the database, at least to know who is
// asking. Instead of each handler failing with a 500 that quotes a driver
// error, the server answers 503 Service Unavailable with Retry-After: JSON
// for the API, a short self-contained page for browsers (no template, no
// database), plain text otherwise. It learns of an outage two ways: the
// daemon's health state (daemon.Health), which a monitor keeps current,
// and any request whose handler fails with a 500 while a ping of the
// database fails too, which it reports to that state so the next request
// is answered at once. Nothing is lost meanwhile: a request answered 503
// did not change anything, and clients are told to retry.

// Availability is the daemon's view of its database (daemon.Health).
type Availability interface {
	DatabaseDown() (reason string, since time.Time, down bool)
	ReportError(err error) bool
}

// unavailable answers 503 while the database is down, and turns a handler's
// 500 into a 503 when the database turns out to be unreachable.
func (s *Server) unavailable(next http.Handler) http.Handler {
	if s.health == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/static/") {
			next.ServeHTTP(w, r)
			return
		}
		if _, _, down := s.health.DatabaseDown(); down {
			writeUnavailable(w, r)
			return
		}
		next.ServeHTTP(&outageWriter{ResponseWriter: w, s: s, r: r}, r)
	})
}

// outageWriter watches a handler's status: a 500 is checked against the
// database, and a 503 gets its Retry-After.
type outageWriter struct {
	http.ResponseWriter
	s       *Server
	r       *http.Request
	wrote   bool
	swallow bool // the handler's own body is replaced by the 503
}

func (o *outageWriter) WriteHeader(code int) {
	if o.wrote {
		return
	}
	o.wrote = true
	switch code {
	case http.StatusInternalServerError:
		if o.s.databaseGone(o.r.Context()) {
			o.swallow = true
			for k := range o.Header() { // the handler's headers were for its own body
				o.Header().Del(k)
			}
			writeUnavailable(o.ResponseWriter, o.r)
			return
		}
	case http.StatusServiceUnavailable:
		if o.Header().Get("Retry-After") == "" {
			o.Header().Set("Retry-After", retryAfter())
		}
	}
	o.ResponseWriter.WriteHeader(code)
}

func (o *outageWriter) Write(b []byte) (int, error) {
	if !o.wrote {
		o.WriteHeader(http.StatusOK)
	}
	if o.swallow {
		return len(b), nil
	}
	return o.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (o *outageWriter) Unwrap() http.ResponseWriter { return o.ResponseWriter }

// databaseGone pings the database briefly; a failure is reported to the
// health state.
func (s *Server) databaseGone(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	err := s.db.Ping(ctx)
	if err == nil {
		return false
	}
	s.health.ReportError(err)
	return true
}

func retryAfter() string { return strconv.Itoa(int(daemon.RetryAfter / time.Second)) }

const unavailableMessage = "The archive's database cannot be reached at the moment. plagd keeps trying and " +
	"works again as soon as it is back; nothing was changed by this request. Try again in a few seconds."

// writeUnavailable answers 503 in the form the caller reads.
func writeUnavailable(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Retry-After", retryAfter())
	w.Header().Set("Cache-Control", "no-store")
	switch {
	case strings.HasPrefix(r.URL.Path, "/api/"):
		apiError(w, http.StatusServiceUnavailable, "unavailable", unavailableMessage)
	case strings.Contains(r.Header.Get("Accept"), "text/html"):
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>plagd is unavailable</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 4em auto; line-height: 1.5">
<h1>plagd is temporarily unavailable</h1>
<p>` + html.EscapeString(unavailableMessage) + `</p>
<p><a href="">Try again</a></p>
</body></html>
`))
	default:
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("plagd is temporarily unavailable: " + unavailableMessage + "\n"))
	}
}
