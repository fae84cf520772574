package store

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plagd/plagd/audit"
)

// DB is the archive's connection pool as the packages that run no SQL of
// their own hold it: the web server and the command line name this type,
// never pgx's, so that `go list` shows they import no database driver and
// every statement they cause is one of this package's functions (or of
// auth's, audit's and engine's, which keep their own tables' SQL and take
// the pool itself, DB.Pool).
//
// DB is a Querier, for this package's functions; callers outside the
// packages named above hand it along and run no statements on it.
type DB struct {
	*pgxpool.Pool
}

// NewDB wraps an open pool (store.Connect opens one).
func NewDB(pool *pgxpool.Pool) *DB { return &DB{Pool: pool} }

// Audited runs fn in one transaction recorded in the audit log as a's
// (audit.Run binds the actor, so that the triggers of migration 0006 name
// who restricted, deleted or edited what) and returns the audit rows it
// wrote. fn gets the transaction as a Querier, for this package's
// document functions.
func (db *DB) Audited(ctx context.Context, a audit.Actor, fn func(tx Querier) error) ([]audit.Entry, error) {
	return audit.Run(ctx, db.Pool, a, func(tx pgx.Tx) error { return fn(tx) })
}
