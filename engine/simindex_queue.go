package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/store"
)

// indexQueue is what a run's commit writes to plagd_index_queue: every
// indexed document (full), or the documents whose index may have changed.
type indexQueue struct {
	full bool
	docs []int64 // ascending; incremental runs only
	gone []int64 // left the index: their index rows go
}

// Write queues the documents in the run's commit.
func (q *indexQueue) Write(ctx context.Context, tx pgx.Tx, _ int64) error {
	if q.full {
		// Every indexed document is queued; rows of documents no longer
		// indexed go now (the others are replaced as they are computed).
		_, err := tx.Exec(ctx, `
			insert into plagd_index_queue (doc_id) select doc_id from document_texts on conflict do nothing;
			delete from similarity_index i where not exists (select 1 from document_texts t where t.doc_id = i.doc_id)`)
		if err != nil {
			return fmt.Errorf("queue the similarity indexes: %w", err)
		}
		return nil
	}
	if _, err := tx.Exec(ctx, `delete from similarity_index where doc_id = any($1)`, nonNilIDs(q.gone)); err != nil {
		return fmt.Errorf("drop similarity indexes: %w", err)
	}
	if _, err := tx.Exec(ctx, `insert into plagd_index_queue (doc_id) select unnest($1::bigint[]) on conflict do nothing`,
		nonNilIDs(q.docs)); err != nil {
		return fmt.Errorf("queue the similarity indexes: %w", err)
	}
	return nil
}

// nonNilIDs: pgx sends a nil slice as NULL, and "= any(NULL)" matches
// nothing but unnest(NULL) is no rows either; an empty array is clearer.
func nonNilIDs(ids []int64) []int64 {
	if ids == nil {
		return []int64{}
	}
	return ids
}

// indexQueueOf lists what the run's commit queues. It reads the committed
// lists, so it runs before the commit.
func (e *Engine) indexQueueOf(ctx context.Context, full bool, out *cluster.Outcome, cs *changeSet, rd runDocuments) (*indexQueue, error) {
	q := &indexQueue{full: full, gone: rd.gone}
	if full {
		return q, nil
	}
	set := map[int64]bool{}
	add := func(ids ...int64) {
		for _, id := range ids {
			set[id] = true
		}
	}
	add(rd.indexed...)
	add(out.Replace...)
	add(out.Trim...)
	for _, r := range out.Rows {
		set[r.Doc] = true
	}
	for id := range cs.lost {
		set[id] = true
	}
	// Lists naming a document whose text changed or that left the index.
	changed := slices.Concat(rd.indexed, rd.gone, out.Others)
	if len(changed) > 0 {
		rows, err := e.pool.Query(ctx, `select distinct doc_id from similarities where other_id = any($1)`, changed)
		if err != nil {
			return nil, fmt.Errorf("find the lists naming changed documents: %w", err)
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			return nil, fmt.Errorf("find the lists naming changed documents: %w", err)
		}
		add(ids...)
	}
	for _, id := range rd.gone {
		delete(set, id)
	}
	q.docs = make([]int64, 0, len(set))
	for id := range set {
		q.docs = append(q.docs, id)
	}
	slices.Sort(q.docs)
	return q, nil
}

// QueuedIndexes counts the documents whose similarity index waits to be
// computed (0 when the count cannot be read: the caller only polls).
func QueuedIndexes(ctx context.Context, q store.Querier) int {
	var n int
	if err := q.QueryRow(ctx, `select count(*) from plagd_index_queue`).Scan(&n); err != nil {
		return 0
	}
	return n
}
