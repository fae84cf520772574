package daemon

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/pgtest"
)

// TestDaemon_ServeRunsPromptlyAndStopsCleanly starts the daemon, writes a
// document, and expects a run to follow within the debounce time (LISTEN/
// NOTIFY), then cancels (SIGTERM) and expects Serve to return without error.
// A second daemon on the same database must be refused meanwhile.
func TestDaemon_ServeRunsPromptlyAndStopsCleanly(t *testing.T) {
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 2)
	cfg.HTTP.Listen = "127.0.0.1:0"
	cfg.Schedule.Cron = "0 0 1 1 *" // effectively never: the run must come from the notification
	cfg.Schedule.Debounce = 200 * time.Millisecond
	cfg.Schedule.Poll = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	// A failing wait must not leave Serve running: its connections would
	// hold up the database's cleanup, and the test would hang, not fail.
	t.Cleanup(cancel)
	done := make(chan error, 1)
	go func() { done <- NewDaemon(cfg, pool, enginetest.Logger(t)).Serve(ctx) }()

	// Generous: on a loaded CI machine the first run has taken over 15 s.
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if cond() {
				return
			}
		}
		t.Fatalf("timed out waiting for %s", what)
	}
	committed := func() int {
		var n int
		pool.QueryRow(context.Background(), `select count(*) from runs where status = 'committed'`).Scan(&n)
		return n
	}
	waitFor("the daemon to hold the lock", func() bool {
		var held bool
		pool.QueryRow(context.Background(), `select exists (select 1 from pg_locks where locktype = 'advisory' and granted)`).Scan(&held)
		return held
	})
	if err := NewDaemon(cfg, pgtest.Pool(t, url), enginetest.Logger(t)).Serve(context.Background()); !errors.Is(err, ErrOtherMaster) {
		t.Fatalf("second daemon: %v, want ErrOtherMaster", err)
	}
	c := enginetest.NewCorpus(1)
	text := c.Text() + " " + c.Words(60)
	pgtest.Exec(t, pool, `insert into documents (external_id, text) values ('a', $1), ('b', $2)`, text, "prefix words here "+text)
	waitFor("a prompt run after the insert", func() bool {
		var n int
		pool.QueryRow(context.Background(), `select count(*) from similarities`).Scan(&n)
		return n == 2
	})
	before := committed()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve after cancel: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Serve did not stop after cancel")
	}
	if committed() != before {
		t.Fatal("a run committed after the stop")
	}
}

// TestDaemon_SteadyWritesDoNotPostponeRuns: writes that never pause for
// the debounce interval (a bulk import, a busy upload desk) still get a
// prompt run, at most maxDebounces intervals after the first of them.
// Before, every write restarted the wait, and no run started while they
// went on.
func TestDaemon_SteadyWritesDoNotPostponeRuns(t *testing.T) {
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 1)
	cfg.HTTP.Listen = "127.0.0.1:0"
	cfg.Schedule.Cron = "0 0 1 1 *" // effectively never
	cfg.Schedule.Debounce = 300 * time.Millisecond
	cfg.Schedule.Poll = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- NewDaemon(cfg, pool, enginetest.Logger(t)).Serve(ctx) }()
	defer func() { cancel(); <-done }()
	runs := func() int {
		var n int
		pool.QueryRow(context.Background(), `select count(*) from runs`).Scan(&n)
		return n
	}
	// The startup run first, so that only the writes can start the next.
	for deadline := time.Now().Add(15 * time.Second); runs() == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no startup run")
		}
	}
	time.Sleep(2 * cfg.Schedule.Debounce)
	before := runs()
	c := enginetest.NewCorpus(enginetest.Seed(t))
	start := time.Now()
	// Writes every 100 ms (a third of the debounce interval) for ten intervals.
	for i := 0; time.Since(start) < 10*cfg.Schedule.Debounce; i++ {
		pgtest.Exec(t, pool, `insert into documents (external_id, text) values ($1, $2)`, fmt.Sprint("steady-", i), c.Text())
		if runs() > before {
			t.Logf("a run started %s after the first of the steady writes", time.Since(start).Round(time.Millisecond))
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no run started during %s of writes that never paused for %s", time.Since(start).Round(time.Millisecond), cfg.Schedule.Debounce)
}
