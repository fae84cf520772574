package daemon

import (
	"context"
	"testing"
	"time"

	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/pgtest"
)

// TestDaemon_PromptRunSaysWhenTheRunIsDue: after a write, PromptRun is the
// moment the debounced run is due (what the web pages show as "about N s"),
// within the debounce interval, and zero again once that run was requested.
func TestDaemon_PromptRunSaysWhenTheRunIsDue(t *testing.T) {
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 1)
	cfg.HTTP.Listen = "127.0.0.1:0"
	cfg.Schedule.Cron = "0 0 1 1 *"
	cfg.Schedule.Debounce = 3 * time.Second
	cfg.Schedule.Poll = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	d := NewDaemon(cfg, pool, enginetest.Logger(t))
	done := make(chan error, 1)
	go func() { done <- d.Serve(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	wait := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if cond() {
				return
			}
		}
		t.Fatalf("timed out waiting for %s", what)
	}
	wait("the daemon to listen", func() bool {
		var n int
		pool.QueryRow(context.Background(), `select count(*) from pg_stat_activity where wait_event = 'ClientRead' and query ilike 'listen%'`).Scan(&n)
		return n > 0
	})
	if !d.PromptRun().IsZero() {
		t.Fatalf("PromptRun = %v before any write, want zero", d.PromptRun())
	}
	wrote := time.Now()
	pgtest.Exec(t, pool, `insert into documents (external_id, text) values ('a', 'some words to index for the prompt run')`)
	wait("a prompt run to be due", func() bool { return !d.PromptRun().IsZero() })
	if due := d.PromptRun(); due.Before(wrote) || due.After(wrote.Add(cfg.Schedule.Debounce+time.Second)) {
		t.Errorf("PromptRun = %v, want within %v of the write at %v", due, cfg.Schedule.Debounce, wrote)
	}
	wait("the run to be requested", func() bool { return d.PromptRun().IsZero() })
}
