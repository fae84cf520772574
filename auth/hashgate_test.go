package auth

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// countHashes replaces argon2id with a wrapper that counts the hashes
// running at once and records the peak.
func countHashes(t *testing.T) (peak func() int64) {
	var running, top atomic.Int64
	orig := deriveKey
	deriveKey = func(password, salt []byte, time, memory uint32, threads uint8, keyLen uint32) []byte {
		n := running.Add(1)
		for old := top.Load(); n > old && !top.CompareAndSwap(old, n); old = top.Load() {
		}
		defer running.Add(-1)
		return orig(password, salt, time, memory, threads, keyLen)
	}
	t.Cleanup(func() { deriveKey = orig })
	return top.Load
}

// TestAuthenticate_ConcurrentHashesAreBounded: fifty concurrent sign-ins
// with wrong passwords (for a real user and for unknown names, which hash a
// dummy) never run more than the configured number of argon2id hashes at
// once, and each still gets its answer; with a short queue the surplus is
// refused at once with ErrBusy instead of queueing without bound.
func TestAuthenticate_ConcurrentHashesAreBounded(t *testing.T) {
	s, _, _ := newStore(t)
	mustAdd(t, s, "alice", RoleTeacher)
	dummyHash() // computed once, outside the measurement
	peak := countHashes(t)

	const callers = 50
	run := func(limit, queue int) (bad, busy int) {
		s.LimitHashes(limit, queue)
		var mu sync.Mutex
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				name := "alice"
				if i%2 == 1 {
					name = "nobody"
				}
				_, err := s.Authenticate(context.Background(), name, "wrong password")
				mu.Lock()
				defer mu.Unlock()
				switch {
				case errors.Is(err, ErrBadCredentials):
					bad++
				case errors.Is(err, ErrBusy):
					busy++
				default:
					t.Errorf("Authenticate: %v", err)
				}
			}()
		}
		close(start)
		wg.Wait()
		return bad, busy
	}

	if bad, busy := run(2, callers); bad != callers || busy != 0 {
		t.Fatalf("queue of %d: %d wrong-password answers and %d busy, want %d and 0", callers, bad, busy, callers)
	}
	if p := peak(); p > 2 {
		t.Fatalf("%d argon2id hashes ran at once, want at most 2 (each holds 19 MiB)", p)
	}
	bad, busy := run(2, 3)
	if busy == 0 || bad+busy != callers || bad < 2 {
		t.Fatalf("queue of 3: %d evaluated, %d busy; want the surplus refused with ErrBusy", bad, busy)
	}
	if p := peak(); p > 2 {
		t.Fatalf("%d argon2id hashes ran at once, want at most 2", p)
	}
}

// TestAuthenticate_WaitHonoursContext: a sign-in waiting for a hash slot
// gives up when its request ends.
func TestAuthenticate_WaitHonoursContext(t *testing.T) {
	s, _, _ := newStore(t)
	s.LimitHashes(1, 10)
	release, err := s.hashes.enter(context.Background()) // the one slot, taken
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	startedAt := time.Now()
	_, err = s.Authenticate(ctx, "nobody", "whatever password")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Authenticate with the slot taken: %v, want the context's deadline", err)
	}
	if d := time.Since(startedAt); d > 10*time.Second {
		t.Fatalf("waited %s after the context ended", d)
	}
}
