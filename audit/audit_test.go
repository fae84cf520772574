package audit_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/plagd/plagd/audit"
	"github.com/plagd/plagd/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// TestRunRecordsInTheSameTransaction: the rows are the change's; a failed
// change leaves neither; a change made without an actor is still recorded.
func TestRunRecordsInTheSameTransaction(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Pool(t, pgtest.NewDB(t))
	var id int64
	if err := pool.QueryRow(ctx, `insert into documents (title, text) values ('Thesis', 'x') returning id`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	ada := audit.Actor{UserID: 7, Name: "ada", IP: "192.0.2.1"}

	written, err := audit.Run(ctx, pool, ada, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `update documents set restricted = true where id = $1`, id)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(written) != 1 || written[0].Action != "document.restricted" || written[0].Actor != "ada" ||
		written[0].ActorID == nil || *written[0].ActorID != 7 || written[0].ClientIP != "192.0.2.1" ||
		written[0].TargetID != id || written[0].TargetLabel != "Thesis" {
		t.Fatalf("Run returned %+v", written)
	}

	// a change that fails after its audited statement commits neither
	boom := errors.New("boom")
	_, err = audit.Run(ctx, pool, ada, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `update documents set restricted = false where id = $1`, id); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Run: %v, want boom", err)
	}
	var restricted bool
	pool.QueryRow(ctx, `select restricted from documents where id = $1`, id).Scan(&restricted)
	all, _, err := audit.List(ctx, pool, audit.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if !restricted || len(all) != 1 {
		t.Fatalf("after a failed change: restricted=%v, %d entries; want true, 1", restricted, len(all))
	}

	// without Run (psql, an integrator), on a pooled connection Run used
	// before: recorded, as the database role, not as the last actor
	for range 4 {
		pgtest.Exec(t, pool, `update documents set restricted = not restricted where id = $1`, id)
	}
	all, _, _ = audit.List(ctx, pool, audit.Filter{Limit: 4})
	for _, e := range all {
		if !strings.HasPrefix(e.Actor, "db:") || e.ActorID != nil || e.ClientIP != "" {
			t.Fatalf("a change made outside plagd is recorded as %q (id %v, ip %q)", e.Actor, e.ActorID, e.ClientIP)
		}
	}
	if len(all) != 4 {
		t.Fatalf("%d entries for 4 changes made outside plagd", len(all))
	}
	// a hard delete is recorded too
	pgtest.Exec(t, pool, `delete from documents where id = $1`, id)
	if last, _, _ := audit.List(ctx, pool, audit.Filter{Limit: 1}); last[0].Action != "document.purged" {
		t.Fatalf("hard delete recorded as %+v", last[0])
	}
}

// TestLogIsAppendOnly: rows cannot be changed, deleted or truncated.
func TestLogIsAppendOnly(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Pool(t, pgtest.NewDB(t))
	pgtest.Exec(t, pool, `insert into documents (text, restricted) values ('x', true)`)
	for _, sql := range []string{
		`update audit_log set actor = 'someone else'`,
		`delete from audit_log`,
		`truncate audit_log`,
	} {
		if _, err := pool.Exec(ctx, sql); err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s: %v, want refused as append-only", sql, err)
		}
	}
	if n, _, _ := audit.List(ctx, pool, audit.Filter{}); len(n) != 1 || n[0].Actor == "someone else" {
		t.Fatalf("entries after the attempts: %+v", n)
	}
}

// TestCLIActor names the operating-system user.
func TestCLIActor(t *testing.T) {
	a := audit.CLIActor()
	if !strings.HasPrefix(a.Name, "cli:") || len(a.Name) < 5 || a.UserID != 0 {
		t.Fatalf("CLIActor() = %+v", a)
	}
}

// TestRunReturnsOnlyItsOwnRows: concurrent changes each get back their rows.
func TestRunReturnsOnlyItsOwnRows(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Pool(t, pgtest.NewDB(t))
	const n = 8
	pgtest.Exec(t, pool, `insert into documents (text) select 'x' from generate_series(1, $1::int)`, n*5)
	errs := make(chan error, n)
	for w := range n {
		go func() {
			a := audit.Actor{UserID: int64(w + 1), Name: "w"}
			for i := range 5 {
				id := int64(w*5 + i + 1)
				got, err := audit.Run(ctx, pool, a, func(tx pgx.Tx) error {
					_, err := tx.Exec(ctx, `update documents set restricted = true where id = $1`, id)
					return err
				})
				if err == nil && (len(got) != 1 || got[0].TargetID != id || *got[0].ActorID != int64(w+1)) {
					err = errors.New("Run returned rows of another transaction")
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
