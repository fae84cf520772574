package daemon

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/store"
)

// stopExitCode is how TestStopChild says the signal stopped its run.
const stopExitCode = 3

// TestStopChild is the process TestEngine_StopsOnSIGTERM signals: it runs
// once under the master lock, as `plagd run` does, and stops on SIGTERM.
// Skipped otherwise.
func TestStopChild(t *testing.T) {
	url := os.Getenv("PLAGD_STOP_DB")
	if url == "" {
		t.Skip("helper process of TestEngine_StopsOnSIGTERM")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	cfg := enginetest.Config(t, url, 2)
	cfg.DataDir = os.Getenv("PLAGD_STOP_DATA")
	pool := pgtest.Pool(t, url)
	stopped := func() {
		if ctx.Err() != nil {
			pool.Close()
			os.Exit(stopExitCode)
		}
	}
	lock, err := AcquireMaster(ctx, pool, true)
	stopped()
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	e := engine.NewEngine(cfg, pool, enginetest.Logger(t))
	e.SetFence(lock)
	_, err = e.Run(ctx, os.Getenv("PLAGD_STOP_FULL") == "1")
	if ctx.Err() != nil {
		lock.Release()
	}
	stopped()
	if err != nil {
		t.Fatal(err)
	}
}

// TestEngine_StopsOnSIGTERM sends SIGTERM to a process in the middle of
// runs, at random moments across all phases: it must exit within
// stopBound, the last committed run must stay intact, and the next run
// must converge to the exact result. PLAGD_STOP_DOCS sets the archive size
// (default 600 documents; 20000 makes runs of tens of seconds).
func TestEngine_StopsOnSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("signals processes; skipped in -short")
	}
	const stopBound = 5 * time.Second // the bound the issue asks for; normal stops take well under a second
	seed := enginetest.Seed(t)
	docs := 600
	if n, err := strconv.Atoi(os.Getenv("PLAGD_STOP_DOCS")); err == nil && n > 0 {
		docs = n
	}
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 2)
	m := &enginetest.Mutator{T: t, Pool: pool, C: enginetest.NewCorpus(seed), Rng: rand.New(rand.NewPCG(seed, 13))}
	rows := make([][]any, docs)
	for i := range rows {
		rows[i] = []any{fmt.Sprint("bulk-", i), m.C.Text()}
	}
	if _, err := pool.CopyFrom(context.Background(), pgx.Identifier{"documents"}, []string{"external_id", "text"}, pgx.CopyFromRows(rows)); err != nil {
		t.Fatal(err)
	}
	// The children's temporary directories go inside this test's: a child
	// that exits on the signal (os.Exit) never removes its own.
	tmp := t.TempDir()
	const childApp = "plagd-stop-child" // the children's sessions, by application_name
	child := func(full bool, signalAfter time.Duration) (took, stop time.Duration, stopped bool) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestStopChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "PLAGD_STOP_DB="+url, "PLAGD_STOP_DATA="+cfg.DataDir, "TMPDIR="+tmp,
			"PGAPPNAME="+childApp, "PLAGD_TEST_DATABASE_URL="+pgtest.ServerURL(), "PLAGD_STOP_FULL="+map[bool]string{true: "1"}[full])
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var sent time.Time
		if signalAfter > 0 {
			timer := time.AfterFunc(signalAfter, func() {
				sent = time.Now()
				_ = cmd.Process.Signal(syscall.SIGTERM)
			})
			defer timer.Stop()
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		var err error
		select {
		case err = <-exited:
		case <-time.After(10 * time.Minute):
			_ = cmd.Process.Kill()
			t.Fatal("child run did not end in 10 minutes")
		}
		end := time.Now()
		pgtest.WaitSessionsGone(t, pool, childApp)
		var ee *exec.ExitError
		switch {
		case err == nil:
		case errors.As(err, &ee) && ee.ExitCode() == stopExitCode:
			stopped = true
		case errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signal() == syscall.SIGTERM && !sent.IsZero():
			stopped = true // signalled before it installed its handler: the default action stopped it
		default:
			t.Fatalf("child run failed: %v\n%s", err, out.Bytes())
		}
		if !sent.IsZero() && end.After(sent) {
			stop = end.Sub(sent)
		}
		return end.Sub(start), stop, stopped
	}
	// Calibrate: how long does a whole child run take?
	full, _, _ := child(true, 0)
	enginetest.CheckSimilarities(t, pool, cfg, "after the first run")
	const rounds = 12
	var worst time.Duration
	stops := 0
	for i := range rounds {
		for j := m.Rng.IntN(4); j >= 0; j-- {
			m.Step()
		}
		before := enginetest.Stored(t, pool)
		gen, _ := store.LastCommittedRun(context.Background(), pool)
		at := time.Duration(m.Rng.Int64N(int64(full*5/4))) + time.Millisecond
		_, stop, stopped := child(m.Rng.IntN(3) == 0, at)
		if stopped {
			stops++
			worst = max(worst, stop)
			t.Logf("round %d: SIGTERM at %s of a %s run: exited %s later", i, at.Round(time.Millisecond), full.Round(time.Millisecond), stop.Round(time.Millisecond))
			if stop > stopBound {
				t.Errorf("round %d: the run took %s to stop after SIGTERM (bound %s)", i, stop, stopBound)
			}
		}
		after, _ := store.LastCommittedRun(context.Background(), pool)
		if after == gen {
			if d := enginetest.DiffRows(enginetest.Stored(t, pool), before); d != "" {
				t.Fatalf("round %d: no run committed, yet the similarities changed:\n%s", i, d)
			}
		} else {
			enginetest.CheckSimilarities(t, pool, cfg, "round "+strconv.Itoa(i)+": the committed run")
		}
	}
	t.Logf("%d of %d runs stopped by SIGTERM, slowest stop %s (a whole run takes about %s)", stops, rounds, worst, full)
	e := engine.NewEngine(cfg, pool, enginetest.Logger(t))
	enginetest.MustRun(t, e.Run, false)
	enginetest.CheckSimilarities(t, pool, cfg, "after the stops")
	var running int
	pool.QueryRow(context.Background(), `select count(*) from runs where status = 'running'`).Scan(&running)
	if running != 0 {
		t.Fatalf("%d runs still marked running", running)
	}
}
