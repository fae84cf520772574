package pgtest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/plagd/plagd/migrations"
)

// Cluster is a PostgreSQL server of one test's own, for tests of what plagd
// does when its database goes away and comes back: Stop cuts every session
// as `pg_ctl stop -m immediate` does, Start brings the same data back on the
// same address (after crash recovery), so a pool or a daemon holding URL
// reconnects to it.
//
//	c := pgtest.NewCluster(t)
//	pool := pgtest.Pool(t, c.URL)
//	c.Stop()  // outage: every connection dies, new ones are refused
//	c.Start() // back, with every committed transaction
type Cluster struct {
	// URL is a migrated database of the cluster (as NewDB makes).
	URL string
	c   *pgCluster
	t   testing.TB
}

// NewCluster initialises and starts a throwaway cluster (as the shared one,
// unix socket only), creates a migrated database in it, and removes it all
// when t ends. It needs the PostgreSQL server binaries even when
// PLAGD_TEST_DATABASE_URL names a shared server, since that one cannot be
// stopped; without them the test fails, or skips with PLAGD_TEST_SKIP_DB=1.
func NewCluster(t testing.TB) *Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := startCluster(ctx, true)
	if err != nil {
		if os.Getenv(EnvSkipDB) == "1" {
			t.Skipf("no PostgreSQL cluster of our own (%s=1): %v", EnvSkipDB, err)
		}
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(c.stop)
	conn, err := pgx.Connect(ctx, c.url)
	if err != nil {
		t.Fatalf("pgtest: connect to the test cluster: %v", err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "create database plagd"); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	db := withDatabase(c.url, "plagd")
	mc, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatalf("pgtest: connect to the test database: %v", err)
	}
	defer mc.Close(context.Background())
	if _, err := migrations.Apply(ctx, mc); err != nil {
		t.Fatalf("pgtest: migrate the test database: %v", err)
	}
	return &Cluster{URL: db, c: c, t: t}
}

// Stop shuts the server down immediately: sessions are cut mid-statement,
// uncommitted transactions are lost, committed ones survive.
func (c *Cluster) Stop() { c.c.halt() }

// Start starts the server again on the same data and address and waits
// until it accepts connections; it fails the test if it cannot.
func (c *Cluster) Start() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.c.start(ctx); err != nil {
		c.t.Fatalf("pgtest: restart the test cluster: %v", err)
	}
}
