package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/plagd/plagd/migrations"
)

// Documents hard-deleted while a run computes ("late deletes").
//
// A run consumes the change log below its boundary and computes from the
// index of that moment. A document hard-deleted after the boundary is still
// in that index, so the rows the run writes may name it: its own list, text,
// status and vectors, and other documents' lists that hold it. Such rows
// would break their foreign keys and fail the commit; with the boundary
// held back by a transaction open anywhere in the cluster, every run would
// fail for as long as deletes go on.
//
// The commit takes the commit lock first (migrations.LockKeyCommit; every
// hard delete takes it shared in its trigger, 0009_late_deletes.sql), so
// it knows every late delete and no new one can start until it ends. When
// there are late deletes, it defers the foreign keys, writes as always, and
// before COMMIT removes the rows that name late documents, recording the
// similarity lists that lost a member ('lost') exactly as the delete
// records those of the committed run. Related lists keep a late document
// as a member, as they keep any hard-deleted one (migration 0017): the view
// related hides it, and the next run takes it out of the lists that held
// it. The next run consumes the delete and those entries, and its result
// is that of a full run.

// lockWait bounds how long a commit waits for hard deletes in progress.
const lockWait = "60s"

// lateDeletes takes the commit lock and returns the documents hard-deleted
// after the run's boundary (their delete is still in the change log, their
// row is gone), ascending. With any, the foreign keys to documents are
// deferred to COMMIT, by which time dropLate has removed what names them.
func lateDeletes(ctx context.Context, tx pgx.Tx, cs *changeSet) ([]int64, error) {
	if _, err := tx.Exec(ctx, `set local lock_timeout = '`+lockWait+`'`); err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, `select pg_advisory_xact_lock($1, $2)`,
		int32(migrations.LockNamespace), int32(migrations.LockKeyCommit)); err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "55P03" {
			return nil, fmt.Errorf("a transaction that deletes documents has been open for more than %s "+
				"(find it in pg_stat_activity); the run did not commit and the next run retries", lockWait)
		}
		return nil, fmt.Errorf("take the commit lock: %w", err)
	}
	if _, err := tx.Exec(ctx, `set local lock_timeout = 0`); err != nil {
		return nil, err
	}
	rows, err := tx.Query(ctx, `
		select distinct c.doc_id from plagd_changes c
		where c.op = 'delete' and c.xid >= $1::text::xid8
			and not exists (select 1 from documents d where d.id = c.doc_id)
		order by c.doc_id`, cs.xminText())
	if err != nil {
		return nil, fmt.Errorf("list documents deleted during the run: %w", err)
	}
	late, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("list documents deleted during the run: %w", err)
	}
	if len(late) > 0 {
		if _, err := tx.Exec(ctx, `set constraints all deferred`); err != nil {
			return nil, err
		}
	}
	return late, nil
}

// dropLateSimilarities removes the similarity rows that name a late
// document and records the lists that lost a member. A full run calls it
// before it restores the table's keys, which check at once.
func dropLateSimilarities(ctx context.Context, tx pgx.Tx, late []int64) error {
	if len(late) == 0 {
		return nil
	}
	if err := dropNaming(ctx, tx, "similarities", "lost", late); err != nil {
		return fmt.Errorf("drop similarities of documents deleted during the run: %w", err)
	}
	return nil
}

// dropLate removes every other row the run wrote for a late document: its
// own related list among them, not its place in other lists (see above).
func dropLate(ctx context.Context, tx pgx.Tx, late []int64) error {
	if len(late) == 0 {
		return nil
	}
	for _, table := range []string{"related_lists", "document_texts", "document_status", "simhashes", "related_vectors", "routing_features"} {
		if _, err := tx.Exec(ctx, `delete from `+table+` where doc_id = any($1)`, late); err != nil {
			return fmt.Errorf("drop %s of documents deleted during the run: %w", table, err)
		}
	}
	return nil
}

// dropNaming deletes the rows of a table of pairs (similarities) that
// name a late document on either side, and logs op for every remaining
// list that lost a row, as the delete trigger does for committed lists.
// Related lists are rows of their own (dropLate).
func dropNaming(ctx context.Context, tx pgx.Tx, table, op string, late []int64) error {
	_, err := tx.Exec(ctx, `
		with gone as (
			delete from `+table+` where doc_id = any($1) or other_id = any($1)
			returning doc_id)
		insert into plagd_changes (doc_id, op)
		select doc_id, $2 from gone where not (doc_id = any($1))`, late, op)
	return err
}
