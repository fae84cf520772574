package auth

import (
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plagd/plagd/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// clock is a settable time source for Store.now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// newStore returns a Store on a fresh migrated database, with its clock.
func newStore(t *testing.T) (*Store, *pgxpool.Pool, *clock) {
	t.Helper()
	pool := pgtest.Pool(t, pgtest.NewDB(t))
	// Whole seconds, so that timestamps survive PostgreSQL's microseconds unchanged.
	c := &clock{t: time.Date(2031, 3, 14, 9, 0, 0, 0, time.UTC)}
	s := NewStore(pool)
	s.now = c.now
	return s, pool, c
}
