package engine

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"
)

// stageRows copies rows into table, a temporary table of the commit's
// transaction made here and dropped at its end, with the given columns
// ("name type" each, in the rows' order). COPY cannot update a row that is
// there, so an update copies its rows into a stage and upserts from it
// (insert ... select ... on conflict do update): the near-duplicate
// hashes, the related vectors and lists, the routing features.
func stageRows(ctx context.Context, tx pgx.Tx, table string, columns []string, rows pgx.CopyFromSource) error {
	names := make([]string, len(columns))
	for i, c := range columns {
		names[i], _, _ = strings.Cut(c, " ")
	}
	if _, err := tx.Exec(ctx, `create temp table `+table+` (`+strings.Join(columns, ", ")+`) on commit drop`); err != nil {
		return err
	}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{table}, names, rows)
	return err
}
