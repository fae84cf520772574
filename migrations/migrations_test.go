package migrations_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/migrations"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestLatestMatchesFiles(t *testing.T) {
	all := migrations.All()
	if got := all[len(all)-1].Version; got != migrations.Latest {
		t.Fatalf("Latest = %d, highest embedded version %d", migrations.Latest, got)
	}
	if all[0].Name != "0001_init" || all[0].Version != 1 {
		t.Fatalf("first migration = %d %q, want 1 0001_init", all[0].Version, all[0].Name)
	}
	for i := 1; i < len(all); i++ {
		if all[i].Version <= all[i-1].Version {
			t.Fatalf("migrations out of order: %s after %s", all[i].Name, all[i-1].Name)
		}
	}
}

func TestMigrateFreshDatabaseTwice(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Pool(t, pgtest.NewEmptyDB(t))

	if v, err := migrations.Current(ctx, pool); err != nil || v != 0 {
		t.Fatalf("Current on an empty database = %d, %v; want 0, nil", v, err)
	}
	applied, err := migrations.Apply(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	if len(applied) != len(migrations.All()) || applied[0] != "0001_init" {
		t.Fatalf("applied %v, want all %d migrations", applied, len(migrations.All()))
	}
	if v, err := migrations.Current(ctx, pool); err != nil || v != migrations.Latest {
		t.Fatalf("Current after Apply = %d, %v; want %d", v, err, migrations.Latest)
	}
	var name string
	if err := pool.QueryRow(ctx, `select name from schema_migrations where version = 1`).Scan(&name); err != nil || name != "0001_init" {
		t.Fatalf("schema_migrations row for version 1: %q, %v", name, err)
	}

	again, err := migrations.Apply(ctx, pool)
	if err != nil || len(again) != 0 {
		t.Fatalf("second Apply = %v, %v; want nothing applied", again, err)
	}
	var rows int
	pool.QueryRow(ctx, `select count(*) from schema_migrations`).Scan(&rows)
	if rows != len(migrations.All()) {
		t.Fatalf("schema_migrations has %d rows, want %d", rows, len(migrations.All()))
	}
}

func TestMigrateConcurrently(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Pool(t, pgtest.NewEmptyDB(t))

	const n = 4
	var wg sync.WaitGroup
	results := make([][]string, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = migrations.Apply(ctx, pool)
		}()
	}
	wg.Wait()

	total := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("Apply #%d: %v", i, errs[i])
		}
		total += len(results[i])
	}
	if total != len(migrations.All()) {
		t.Fatalf("migrations applied %d times in total across %d concurrent Applys (%v), want each once (%d)",
			total, n, results, len(migrations.All()))
	}
	if v, err := migrations.Current(ctx, pool); err != nil || v != migrations.Latest {
		t.Fatalf("Current = %d, %v; want %d", v, err, migrations.Latest)
	}
}

func TestMigrateRefusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Pool(t, pgtest.NewDB(t))
	pgtest.Exec(t, pool, `insert into schema_migrations (version, name) values ($1, 'from_the_future')`, migrations.Latest+1)

	_, err := migrations.Apply(ctx, pool)
	if !errors.Is(err, migrations.ErrSchemaTooNew) {
		t.Fatalf("Apply on a newer schema: %v, want ErrSchemaTooNew", err)
	}
	var se *migrations.SchemaError
	if !errors.As(err, &se) || se.Have != migrations.Latest+1 || se.Want != migrations.Latest {
		t.Fatalf("error %#v does not carry the versions", err)
	}
}
