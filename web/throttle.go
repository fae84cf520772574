package web

import (
	"container/list"
	"sync"
	"time"

	"github.com/plagd/plagd/config"
)

// loginThrottle slows password guessing with three buckets per attempt:
// the user name from this address (auth.login_attempts, 5), all names from
// this address (auth.login_attempts_per_address: a spray of names) and
// this name from all addresses (auth.login_attempts_per_name: a
// distributed guess). Once a bucket has counted its number of failures,
// each further attempt waits twice as long as the last (1 s, 2 s, 4 s ...
// up to auth.login_max_backoff). It lives in memory: a restart forgives,
// which is fine for a brake that only has to make guessing slow.
//
// An attempt is counted (reserved) before its password is hashed, under
// the lock, so fifty concurrent guesses cannot all pass the check before
// the first failure is recorded; a success refunds it. The table holds at
// most auth.throttle_entries buckets: when full, the least recently used
// bucket that is not blocking anyone is dropped (a blocking one only if
// none of the oldest is free), so a flood of new names neither grows the
// table nor empties it of the buckets that stop a guesser.
type loginThrottle struct {
	mu      sync.Mutex
	byKey   map[string]*list.Element // of *bucket
	recency *list.List               // front: most recently used
	limits  config.Auth
}

type bucket struct {
	key   string
	free  int       // failures allowed before waits start
	n     int       // failures (reserved attempts) counted
	until time.Time // no attempt before this
}

// maxThrottleName bounds the name part of a bucket's key: user names have
// at most 64 characters, and a sign-in form may carry 64 KiB.
const maxThrottleName = 128

// evictScan is how many of the least recently used buckets eviction looks
// at for one that blocks no one.
const evictScan = 64

func newLoginThrottle(c config.Auth) *loginThrottle {
	return &loginThrottle{byKey: map[string]*list.Element{}, recency: list.New(), limits: c}
}

// throttleKeys are the buckets of an attempt by name from ip, each with
// the number of failures it allows before waits start.
func (t *loginThrottle) throttleKeys(name, ip string) [3]struct {
	key  string
	free int
} {
	if len(name) > maxThrottleName {
		name = name[:maxThrottleName] // no user name is this long; bounds the table's memory
	}
	return [3]struct {
		key  string
		free int
	}{
		{"p|" + name + "|" + ip, t.limits.LoginAttempts},
		{"a|" + ip, t.limits.LoginAttemptsPerAddress},
		{"n|" + name, t.limits.LoginAttemptsPerName},
	}
}

// reserve counts an attempt by name from ip before its password is
// checked. It returns how long to wait when a bucket blocks the attempt
// (nothing is counted then), or 0 when the attempt may go on.
func (t *loginThrottle) reserve(name, ip string, now time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	keys := t.throttleKeys(name, ip)
	var wait time.Duration
	for _, k := range keys {
		if e := t.byKey[k.key]; e != nil {
			t.recency.MoveToFront(e) // a blocked guesser keeps its bucket fresh
			if b := e.Value.(*bucket); now.Before(b.until) {
				wait = max(wait, b.until.Sub(now))
			}
		}
	}
	if wait > 0 {
		return wait
	}
	for _, k := range keys {
		b := t.bucket(k.key, k.free, now)
		b.n++
		if b.n >= b.free {
			b.until = now.Add(min(time.Second<<min(b.n-b.free, 20), t.limits.LoginMaxBackoff))
		}
	}
	return 0
}

// bucket returns key's bucket, making it (and room for it) if needed.
func (t *loginThrottle) bucket(key string, free int, now time.Time) *bucket {
	if e := t.byKey[key]; e != nil {
		t.recency.MoveToFront(e)
		return e.Value.(*bucket)
	}
	for len(t.byKey) >= max(t.limits.ThrottleEntries, 1) {
		t.evict(now)
	}
	b := &bucket{key: key, free: free}
	t.byKey[key] = t.recency.PushFront(b)
	return b
}

// evict drops one bucket: the least recently used one that blocks no one
// among the evictScan oldest, else the least recently used.
func (t *loginThrottle) evict(now time.Time) {
	victim := t.recency.Back()
	for e, i := victim, 0; e != nil && i < evictScan; e, i = e.Prev(), i+1 {
		if !now.Before(e.Value.(*bucket).until) {
			victim = e
			break
		}
	}
	t.recency.Remove(victim)
	delete(t.byKey, victim.Value.(*bucket).key)
}

// succeeded forgets the failures of name from ip and refunds the reserved
// attempt to the address and name buckets.
func (t *loginThrottle) succeeded(name, ip string) {
	t.refund(name, ip, true)
}

// refund gives back an attempt that was reserved but never judged (the
// server was busy, or the database failed); forget also drops the
// name-and-address bucket (a success).
func (t *loginThrottle) refund(name, ip string, forget bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, k := range t.throttleKeys(name, ip) {
		e := t.byKey[k.key]
		if e == nil {
			continue
		}
		b := e.Value.(*bucket)
		if b.n--; (i == 0 && forget) || b.n <= 0 {
			t.recency.Remove(e)
			delete(t.byKey, k.key)
		}
	}
}

// size is the number of buckets held.
func (t *loginThrottle) size() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.byKey)
}
