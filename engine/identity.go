package engine

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// databaseIdentity is the identity index files must carry to be used by
// this database: plagd_meta's random instance ID (made at migration) and
// the database's OID. The instance ID alone is copied with the database by
// CREATE DATABASE … TEMPLATE and by a logical restore into a new database;
// the OID tells such copies apart within a cluster.
func databaseIdentity(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (string, error) {
	var id string
	err := q.QueryRow(ctx, `select m.instance_id || '/' || d.oid::text
		from plagd_meta m, pg_database d where d.datname = current_database()`).Scan(&id)
	if err != nil {
		return "", fmt.Errorf("read plagd_meta: %w", err)
	}
	return id, nil
}
