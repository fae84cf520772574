package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/plagd/plagd/internal/pgtest"
)

func TestMasterLockExclusive(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Pool(t, pgtest.NewDB(t))

	if h, err := MasterHolder(ctx, pool); h != nil || err != nil {
		t.Fatalf("MasterHolder with no master = %v, %v; want nil, nil", h, err)
	}
	first, err := AcquireMaster(ctx, pool, false)
	if err != nil {
		t.Fatal(err)
	}
	_, err = AcquireMaster(ctx, pool, false)
	if !errors.Is(err, ErrOtherMaster) {
		t.Fatalf("second AcquireMaster: %v, want ErrOtherMaster", err)
	}
	t.Log(err)
	host, _ := os.Hostname()
	want := fmt.Sprintf("another plagd master holds the lock on this database (pid %d on host %s since ", os.Getpid(), host)
	if !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("message %q\ndoes not start with %q", err, want)
	}
	var oe *OtherMasterError
	if !errors.As(err, &oe) || oe.Since.IsZero() || time.Since(oe.Since) > time.Minute {
		t.Fatalf("holder details missing: %#v", err)
	}

	first.Release()
	first.Release() // harmless
	if h, err := MasterHolder(ctx, pool); h != nil || err != nil {
		t.Fatalf("MasterHolder after Release = %v, %v; want nil, nil", h, err)
	}
	second, err := AcquireMaster(ctx, pool, false)
	if err != nil {
		t.Fatalf("AcquireMaster right after Release: %v", err)
	}
	second.Release()
}

func TestMasterLockWait(t *testing.T) {
	defer shortenLockTimings(t)()
	ctx := context.Background()
	pool := pgtest.Pool(t, pgtest.NewDB(t))

	first, err := AcquireMaster(ctx, pool, false)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		l, err := AcquireMaster(ctx, pool, true)
		if err == nil {
			l.Release()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("waiting AcquireMaster returned while the lock was held: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	first.Release()
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("waiting AcquireMaster: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("waiting AcquireMaster did not get the lock after Release")
	}

	// Waiting honours the context.
	held, err := AcquireMaster(ctx, pool, false)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if _, err := AcquireMaster(cctx, pool, true); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting with an expiring context: %v, want DeadlineExceeded", err)
	}
}

func TestMasterLockLost(t *testing.T) {
	defer shortenLockTimings(t)()
	ctx := context.Background()
	pool := pgtest.Pool(t, pgtest.NewDB(t))

	l, err := AcquireMaster(ctx, pool, false)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	// An operator (or a server restart) ends the lock session.
	pgtest.Exec(t, pool, `select pg_terminate_backend(pid) from pg_stat_activity where application_name like 'plagd master %' and datname = current_database()`)
	select {
	case <-l.Lost():
	case <-time.After(5 * time.Second):
		t.Fatal("Lost not closed after the lock session was terminated")
	}
	// And the lock is free for another master.
	other, err := AcquireMaster(ctx, pool, false)
	if err != nil {
		t.Fatalf("AcquireMaster after the holder's session died: %v", err)
	}
	other.Release()
}

func TestParseMasterAppName(t *testing.T) {
	for _, c := range []struct {
		in   string
		pid  int
		host string
	}{
		{"plagd master pid=42 host=db1.example.org", 42, "db1.example.org"},
		{"plagd master pid=42 host=", 42, "(unknown)"}, // host truncated away
		{"plagd master pid=42", 42, "(unknown)"},
		{"psql", 0, ""},
		{"plagd master", 0, ""},
	} {
		pid, host := parseMasterAppName(c.in)
		if pid != c.pid || host != c.host {
			t.Errorf("parseMasterAppName(%q) = %d, %q; want %d, %q", c.in, pid, host, c.pid, c.host)
		}
	}
}

// shortenLockTimings makes polling and watching fast for a test; the returned
// function restores them.
func shortenLockTimings(t *testing.T) func() {
	t.Helper()
	pmin, pmax, wi := lockPollMin, lockPollMax, watchInterval
	lockPollMin, lockPollMax, watchInterval = 10*time.Millisecond, 50*time.Millisecond, 50*time.Millisecond
	return func() { lockPollMin, lockPollMax, watchInterval = pmin, pmax, wi }
}
