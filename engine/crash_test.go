package engine

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/store"
)

// TestCrashChild is the process TestEngine_CrashSafety kills: it runs once
// against the database and data directory it is given. Skipped otherwise.
func TestCrashChild(t *testing.T) {
	url := os.Getenv("PLAGD_CRASH_DB")
	if url == "" {
		t.Skip("helper process of TestEngine_CrashSafety")
	}
	cfg := enginetest.Config(t, url, 2)
	cfg.DataDir = os.Getenv("PLAGD_CRASH_DATA")
	pool := pgtest.Pool(t, url)
	if _, err := NewEngine(cfg, pool, enginetest.Logger(t)).Run(context.Background(), os.Getenv("PLAGD_CRASH_FULL") == "1"); err != nil {
		t.Fatal(err)
	}
}

// TestEngine_CrashSafety kills -9 a process in the middle of runs, many times
// at random moments: the last committed run must stay intact, and the next run
// must converge to the exact result.
func TestEngine_CrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("kills processes; skipped in -short")
	}
	seed := enginetest.Seed(t)
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 2)
	m := &enginetest.Mutator{T: t, Pool: pool, C: enginetest.NewCorpus(seed), Rng: rand.New(rand.NewPCG(seed, 11))}
	for i := 0; i < 60; i++ {
		m.Step()
	}
	// The children's temporary directories go inside this test's: a child
	// killed with SIGKILL never removes its own.
	tmp := t.TempDir()
	const childApp = "plagd-crash-child" // the children's sessions, by application_name
	child := func(full bool, killAfter time.Duration) (time.Duration, bool) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "PLAGD_CRASH_DB="+url, "PLAGD_CRASH_DATA="+cfg.DataDir, "TMPDIR="+tmp,
			"PGAPPNAME="+childApp, "PLAGD_TEST_DATABASE_URL="+pgtest.ServerURL(), "PLAGD_CRASH_FULL="+map[bool]string{true: "1"}[full])
		start := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var killed atomic.Bool
		if killAfter > 0 {
			timer := time.AfterFunc(killAfter, func() {
				killed.Store(true) // before the signal: Wait may return before this func goes on
				_ = cmd.Process.Signal(syscall.SIGKILL)
			})
			defer timer.Stop()
		}
		err := cmd.Wait()
		if err != nil && !killed.Load() {
			t.Fatalf("child run failed: %v", err)
		}
		took := time.Since(start)
		pgtest.WaitSessionsGone(t, pool, childApp)
		return took, err != nil
	}
	// Calibrate: how long does a whole child run take?
	full, _ := child(true, 0)
	checkAgainstReference(t, pool, cfg, "after the first run")
	kills := 0
	for i := 0; i < 25; i++ {
		for j := m.Rng.IntN(4); j >= 0; j-- {
			m.Step()
		}
		before := enginetest.Stored(t, pool)
		gen, _ := store.LastCommittedRun(context.Background(), pool)
		_, killed := child(m.Rng.IntN(4) == 0, time.Duration(m.Rng.Int64N(int64(full*3/2)))+time.Millisecond)
		if killed {
			kills++
		}
		after, _ := store.LastCommittedRun(context.Background(), pool)
		if after == gen {
			if d := enginetest.DiffRows(enginetest.Stored(t, pool), before); d != "" {
				t.Fatalf("iteration %d: no run committed, yet the similarities changed:\n%s", i, d)
			}
		} else {
			checkAgainstReference(t, pool, cfg, "iteration "+strconv.Itoa(i)+": the committed run")
		}
	}
	t.Logf("%d of 25 runs killed (a whole run takes about %s)", kills, full)
	e := NewEngine(cfg, pool, enginetest.Logger(t))
	mustRun(t, e, false)
	checkAgainstReference(t, pool, cfg, "after recovery")
	var running int
	pool.QueryRow(context.Background(), `select count(*) from runs where status = 'running'`).Scan(&running)
	if running != 0 {
		t.Fatalf("%d runs still marked running after recovery", running)
	}
}
