package migrations

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

//go:embed *.sql
var files embed.FS

// Migration is one embedded schema step.
type Migration struct {
	Version int    // NNNN from the file name; versions are unique and increasing
	Name    string // file name without ".sql", e.g. "0001_init"
	SQL     string
}

var (
	all = load()

	// Latest is the schema version this binary needs: the highest embedded
	// migration. It is a variable only because Go cannot compute a constant
	// from embedded files; it is set once at init and never changes.
	Latest = all[len(all)-1].Version
)

// All returns the embedded migrations in the order Apply runs them.
func All() []Migration { return append([]Migration(nil), all...) }

var fileName = regexp.MustCompile(`^([0-9]{4,})_([a-z0-9_]+)\.sql$`)

// load parses the embedded files. A malformed name or a duplicate version is a
// build mistake, so it panics: every test binary that imports the package
// catches it before a release can.
func load() []Migration {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		panic(err)
	}
	var ms []Migration
	seen := map[int]string{}
	for _, e := range entries {
		m := fileName.FindStringSubmatch(e.Name())
		if m == nil {
			panic(fmt.Sprintf("migrations: file %q is not named NNNN_name.sql", e.Name()))
		}
		v, err := strconv.Atoi(m[1])
		if err != nil || v < 1 {
			panic(fmt.Sprintf("migrations: file %q: version must be a positive number", e.Name()))
		}
		if prev, dup := seen[v]; dup {
			panic(fmt.Sprintf("migrations: %q and %q share version %d", prev, e.Name(), v))
		}
		seen[v] = e.Name()
		body, err := fs.ReadFile(files, e.Name())
		if err != nil {
			panic(err)
		}
		ms = append(ms, Migration{Version: v, Name: e.Name()[:len(e.Name())-len(".sql")], SQL: string(body)})
	}
	if len(ms) == 0 {
		panic("migrations: no embedded *.sql files")
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })
	return ms
}

// Querier is what Current needs: a *pgx.Conn, *pgxpool.Pool, *pgxpool.Conn or pgx.Tx.
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// DB is what Apply needs: a *pgx.Conn, *pgxpool.Pool or *pgxpool.Conn.
type DB interface {
	Querier
	Begin(ctx context.Context) (pgx.Tx, error)
}

// Advisory lock keys. plagd uses the two-int4 form of PostgreSQL advisory
// locks with a fixed first key ("plgd" in ASCII) so that its locks are easy
// to find in pg_locks (classid = LockNamespace, objid = the second key) and do
// not collide with an application's single-bigint locks.
const (
	LockNamespace  = 0x706c6764 // "plgd"
	LockKeyMigrate = 2          // held (per transaction) while a migration step runs
	LockKeyMaster  = 1          // held (per session) by the one running master; see daemon.AcquireMaster
	// LockKeyCommit is held (per transaction) by a run's commit, and shared
	// by every hard delete of a document (0009_late_deletes.sql): deletes
	// wait while a run commits, so the commit knows them all.
	LockKeyCommit = 3
)

// Sentinel errors for a schema version mismatch. The errors returned wrap one
// of them in a *SchemaError, so callers test with errors.Is and read the
// versions with errors.As.
var (
	ErrNotMigrated  = errors.New("database is not migrated")
	ErrSchemaTooNew = errors.New("database schema is newer than this plagd")
)

// SchemaError reports a database whose schema version (Have) is not the one
// this binary needs (Want), with the action that fixes it.
type SchemaError struct {
	Have, Want int
	Err        error // ErrNotMigrated or ErrSchemaTooNew
}

func (e *SchemaError) Error() string {
	if errors.Is(e.Err, ErrSchemaTooNew) {
		return fmt.Sprintf("database schema version %d is newer than this plagd (%d): upgrade plagd", e.Have, e.Want)
	}
	return fmt.Sprintf("database is not migrated (schema version %d, plagd needs %d): run `plagd migrate`", e.Have, e.Want)
}

func (e *SchemaError) Unwrap() error { return e.Err }

// Check compares a database's schema version with Latest: nil when equal,
// otherwise a *SchemaError.
func Check(have int) error {
	switch {
	case have < Latest:
		return &SchemaError{Have: have, Want: Latest, Err: ErrNotMigrated}
	case have > Latest:
		return &SchemaError{Have: have, Want: Latest, Err: ErrSchemaTooNew}
	}
	return nil
}

// Current returns the database's schema version: the highest version recorded
// in schema_migrations, or 0 when that table does not exist (a database plagd
// has never touched).
func Current(ctx context.Context, q Querier) (int, error) {
	var exists bool
	if err := q.QueryRow(ctx, `select to_regclass('schema_migrations') is not null`).Scan(&exists); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	if !exists {
		return 0, nil
	}
	var v int
	if err := q.QueryRow(ctx, `select coalesce(max(version), 0) from schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}

// Apply runs every embedded migration newer than the database's version, in
// order, each in its own transaction, and returns the names of those it ran
// (none when the schema is up to date).
//
// Every step holds a transaction-level advisory lock, so concurrent Apply
// calls (two operators, or several daemons started at once by an orchestrator)
// serialise: the second sees the first one's work and skips it. A database
// whose version is newer than Latest is refused with ErrSchemaTooNew, since an
// older binary must not run against a schema it does not know.
func Apply(ctx context.Context, db DB) ([]string, error) {
	var applied []string
	for {
		name, done, err := step(ctx, db)
		if err != nil {
			return applied, err
		}
		if done {
			return applied, nil
		}
		applied = append(applied, name)
	}
}

// step applies the next pending migration, if any, in one transaction.
func step(ctx context.Context, db DB) (name string, done bool, err error) {
	tx, err := db.Begin(ctx)
	if err != nil {
		return "", false, fmt.Errorf("migrate: begin: %w", err)
	}
	defer tx.Rollback(ctx) // no-op after Commit

	if _, err := tx.Exec(ctx, `select pg_advisory_xact_lock($1, $2)`, int32(LockNamespace), int32(LockKeyMigrate)); err != nil {
		return "", false, fmt.Errorf("migrate: take the migration lock: %w", err)
	}
	// Created under the lock, so two first-time migrations cannot race on it.
	if _, err := tx.Exec(ctx, `create table if not exists schema_migrations (
		version    integer primary key,
		name       text not null,
		applied_at timestamptz not null default now()
	)`); err != nil {
		return "", false, fmt.Errorf("migrate: create schema_migrations: %w", err)
	}
	have, err := Current(ctx, tx)
	if err != nil {
		return "", false, err
	}
	if have > Latest {
		return "", false, Check(have)
	}
	var next *Migration
	for i := range all {
		if all[i].Version > have {
			next = &all[i]
			break
		}
	}
	if next == nil {
		return "", true, tx.Commit(ctx)
	}
	// No arguments: pgx sends the file with the simple protocol, which allows
	// several statements and dollar-quoted function bodies.
	if _, err := tx.Exec(ctx, next.SQL); err != nil {
		return "", false, fmt.Errorf("migration %s failed, the database stays at version %d: %s", next.Name, have, describe(err))
	}
	if _, err := tx.Exec(ctx, `insert into schema_migrations (version, name) values ($1, $2)`, next.Version, next.Name); err != nil {
		return "", false, fmt.Errorf("migrate: record %s: %w", next.Name, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return "", false, fmt.Errorf("migration %s: commit: %w", next.Name, err)
	}
	return next.Name, false, nil
}

// describe adds PostgreSQL's detail, hint and position to an error, which is
// what a person fixing a failed migration needs first.
func describe(err error) string {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return err.Error()
	}
	s := pe.Error()
	if pe.Detail != "" {
		s += "; detail: " + pe.Detail
	}
	if pe.Hint != "" {
		s += "; hint: " + pe.Hint
	}
	if pe.Position > 0 {
		s += fmt.Sprintf(" (at character %d of the file)", pe.Position)
	}
	return s
}
