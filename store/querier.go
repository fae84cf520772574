package store

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Querier is what pgxpool.Pool, pgx.Conn and pgx.Tx have in common, so that
// helpers run inside or outside a transaction.
type Querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Deref is the value of a nullable text column, "" for NULL.
func Deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
