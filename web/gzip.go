package web

import (
	"compress/gzip"
	"net/http"
	"strings"
	"sync"
)

// gzipped compresses responses for clients that accept it. A report page
// of an essay with 100 sources is about 200 KB of HTML (the text, its
// highlights and the sources table) and compresses roughly tenfold, which
// is what a school laptop on a slow network notices. Bodies under 1 KB and
// already compressed types are sent as they are.
func gzipped(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Vary", "Accept-Encoding")
		if !acceptsGzip(r.Header.Get("Accept-Encoding")) || r.Method == http.MethodHead {
			next.ServeHTTP(w, r)
			return
		}
		gw := &gzipWriter{ResponseWriter: w}
		defer gw.close()
		next.ServeHTTP(gw, r)
	})
}

func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		enc, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(enc), "gzip") && !strings.Contains(strings.ReplaceAll(params, " ", ""), "q=0") {
			return true
		}
	}
	return false
}

var gzipPool = sync.Pool{New: func() any { w, _ := gzip.NewWriterLevel(nil, gzip.DefaultCompression); return w }}

// gzipMinBytes: smaller bodies are not worth a gzip header and a CPU pass.
const gzipMinBytes = 1024

// gzipWriter decides at the first write whether to compress: only text
// types, only without a Content-Encoding of their own, and only when the
// first write is large enough or no length is announced.
type gzipWriter struct {
	http.ResponseWriter
	gz      *gzip.Writer
	decided bool
	status  int
}

// Unwrap lets http.ResponseController reach the connection (deadlines).
func (g *gzipWriter) Unwrap() http.ResponseWriter { return g.ResponseWriter }

func (g *gzipWriter) WriteHeader(status int) {
	if g.decided {
		g.ResponseWriter.WriteHeader(status)
		return
	}
	g.status = status
}

func (g *gzipWriter) Write(p []byte) (int, error) {
	if !g.decided {
		g.decide(len(p))
	}
	if g.gz != nil {
		return g.gz.Write(p)
	}
	return g.ResponseWriter.Write(p)
}

func (g *gzipWriter) decide(firstWrite int) {
	g.decided = true
	h := g.Header()
	ct := h.Get("Content-Type")
	compressible := strings.HasPrefix(ct, "text/") || strings.HasPrefix(ct, "application/json") ||
		strings.HasPrefix(ct, "application/javascript") || strings.HasPrefix(ct, "image/svg+xml")
	if compressible && h.Get("Content-Encoding") == "" && firstWrite >= gzipMinBytes &&
		g.status != http.StatusNoContent && g.status != http.StatusNotModified {
		h.Del("Content-Length")
		h.Set("Content-Encoding", "gzip")
		g.gz = gzipPool.Get().(*gzip.Writer)
		g.gz.Reset(g.ResponseWriter)
	}
	if g.status != 0 {
		g.ResponseWriter.WriteHeader(g.status)
	}
}

func (g *gzipWriter) close() {
	if !g.decided {
		g.decide(0)
	}
	if g.gz != nil {
		_ = g.gz.Close()
		gzipPool.Put(g.gz)
		g.gz = nil
	}
}
