package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/plagd/plagd/auth"
	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/daemon"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/store"
)

// TestUnavailable_DatabaseOutage stops PostgreSQL (immediate shutdown)
// under a running server: pages and the API answer 503 with Retry-After
// (a plain page for browsers, JSON for the API), never a 500 quoting the
// driver, whether the health monitor or the failing request notices first;
// and they work again once the database is back.
func TestUnavailable_DatabaseOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("stops and starts PostgreSQL; skipped in -short")
	}
	pc := pgtest.NewCluster(t)
	pool := pgtest.Pool(t, pc.URL)
	cfg := config.Default()
	cfg.DatabaseURL, cfg.DataDir, cfg.Engine.Nodes = pc.URL, t.TempDir(), 1
	health := daemon.NewHealth()
	srv, err := New(Options{Config: cfg, DB: store.NewDB(pool), Health: health, Log: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	users := auth.NewStore(pool)
	ctx := context.Background()
	if _, err := users.AddUser(ctx, "t", auth.RoleTeacher, "a long password t"); err != nil {
		t.Fatal(err)
	}
	tok, _, err := users.CreateToken(ctx, "t", "test", 0)
	if err != nil {
		t.Fatal(err)
	}
	get := func(path, accept string, auth bool) (*http.Response, string) {
		req, _ := http.NewRequest("GET", hs.URL+path, nil)
		req.Header.Set("Accept", accept)
		if auth {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		return resp, b.String()
	}
	if resp, body := get("/api/v1/me", "application/json", true); resp.StatusCode != 200 {
		t.Fatalf("before the outage: %d %s", resp.StatusCode, body)
	}
	pc.Stop()
	// First request: no monitor runs, so the failing request itself must
	// find out (its 500 becomes a 503) and tell the health state.
	resp, body := get("/api/v1/me", "application/json", true)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
		!strings.Contains(body, `"unavailable"`) {
		t.Fatalf("API during the outage: %d, Retry-After %q: %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	if _, _, down := health.DatabaseDown(); !down {
		t.Fatal("the failing request did not report the outage")
	}
	resp, body = get("/documents", "text/html,application/xhtml+xml", false)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
		!strings.Contains(resp.Header.Get("Content-Type"), "text/html") || !strings.Contains(body, "temporarily unavailable") ||
		strings.Contains(body, "dial") || strings.Contains(body, "SQLSTATE") {
		t.Fatalf("page during the outage: %d, %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	pc.Start()
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go health.Watch(wctx, pool, 50*time.Millisecond, zerolog.Nop(), nil)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if resp, _ := get("/api/v1/me", "application/json", true); resp.StatusCode == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the API did not come back after the database did")
		}
	}
}
