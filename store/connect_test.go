package store

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/migrations"
)

func TestCheckSchemaNotMigrated(t *testing.T) {
	ctx := context.Background()
	pool, err := Connect(ctx, pgtest.NewEmptyDB(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()

	err = CheckSchema(ctx, pool)
	if !errors.Is(err, ErrNotMigrated) {
		t.Fatalf("CheckSchema on an empty database: %v, want ErrNotMigrated", err)
	}
	t.Log(err)
	if !strings.Contains(err.Error(), "plagd migrate") {
		t.Errorf("message %q does not tell the operator to run plagd migrate", err)
	}

	if _, err := migrations.Apply(ctx, pool); err != nil {
		t.Fatal(err)
	}
	if err := CheckSchema(ctx, pool); err != nil {
		t.Fatalf("CheckSchema after Apply: %v", err)
	}
}

func TestCheckSchemaTooNew(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Pool(t, pgtest.NewDB(t))
	pgtest.Exec(t, pool, `insert into schema_migrations (version, name) values ($1, '9999_future')`, migrations.Latest+1)

	err := CheckSchema(ctx, pool)
	if !errors.Is(err, ErrSchemaTooNew) || errors.Is(err, ErrNotMigrated) {
		t.Fatalf("CheckSchema on a newer schema: %v, want ErrSchemaTooNew", err)
	}
	var se *SchemaError
	if !errors.As(err, &se) || se.Have != migrations.Latest+1 || se.Want != migrations.Latest {
		t.Fatalf("error %v does not carry the versions", err)
	}
	t.Log(err)
	if !strings.Contains(err.Error(), "upgrade plagd") {
		t.Errorf("message %q does not tell the operator to upgrade", err)
	}
}

func TestConnectErrorAdvises(t *testing.T) {
	ctx := context.Background()
	_, err := Connect(ctx, "postgres://plagd:secret@/no_such_db?host=/nonexistent-dir&port=1&sslmode=disable&connect_timeout=2")
	if err == nil {
		t.Fatal("Connect to a missing server succeeded")
	}
	t.Log(err)
	if strings.Contains(err.Error(), "secret") {
		t.Errorf("error leaks the password: %v", err)
	}
	if !strings.Contains(err.Error(), "check") {
		t.Errorf("error %q gives no advice", err)
	}
	if _, err := Connect(ctx, "not a url ::"); err == nil || !strings.Contains(err.Error(), "invalid database URL") {
		t.Errorf("bad URL: %v", err)
	}
}
