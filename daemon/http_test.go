package daemon

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/pgtest"
)

// TestDaemon_OwnEndpoints checks the endpoints the daemon serves itself,
// and that everything else goes to the UI handler set with SetUI.
func TestDaemon_OwnEndpoints(t *testing.T) {
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	d := NewDaemon(enginetest.Config(t, url, 1), pool, enginetest.Logger(t))
	get := func(h http.Handler, path string, status int, want string) {
		t.Helper()
		srv := httptest.NewServer(h)
		defer srv.Close()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != status || !strings.Contains(string(body), want) {
			t.Fatalf("GET %s: %d %.300q, want %d with %q", path, resp.StatusCode, body, status, want)
		}
	}
	get(d.routes(), "/healthz", 200, "ok")
	get(d.routes(), "/metrics", 200, "plagd_pending_changes")
	get(d.routes(), "/readyz", 503, "starting")
	get(d.routes(), "/", 200, "no web interface")
	d.SetUI(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ui:"+r.URL.Path) }))
	get(d.routes(), "/documents/7", 200, "ui:/documents/7")
	get(d.routes(), "/healthz", 200, "ok")
}
