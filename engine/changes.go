package engine

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/plagd/plagd/store"
)

// changeSet is what a run consumes from plagd_changes.
//
// Transactions commit out of sequence order: a writer may take seq 10 and
// commit after another writer's seq 11 was already seen, so "seq > last seen"
// loses changes. A run therefore reads the xmin of a fresh snapshot — every
// transaction with a smaller xid has ended, committed or aborted — and consumes
// exactly the entries with xid < xmin. Younger entries, visible or not, stay for
// the next run; none can appear later below xmin.
type changeSet struct {
	xmin    uint64        // xid8 boundary: entries with xid < xmin are consumed
	changed []int64       // documents inserted, updated or deleted (distinct)
	lost    map[int64]int // documents whose rows lost an entry by cascade, with counts
	// lostRelated are documents whose related list lost a member by cascade.
	lostRelated []int64
}

// readChanges reads the change log entries below the current snapshot's xmin.
func readChanges(ctx context.Context, q store.Querier) (*changeSet, error) {
	cs := &changeSet{lost: make(map[int64]int)}
	var xmin uint64
	if err := q.QueryRow(ctx, `select pg_snapshot_xmin(pg_current_snapshot())::text::bigint`).Scan(&xmin); err != nil {
		return nil, fmt.Errorf("read snapshot xmin: %w", err)
	}
	cs.xmin = xmin
	rows, err := q.Query(ctx, `
		select doc_id, op, count(*) from plagd_changes
		where xid < $1::text::xid8
		group by doc_id, op order by doc_id`, fmt.Sprint(xmin))
	if err != nil {
		return nil, fmt.Errorf("read change log: %w", err)
	}
	defer rows.Close()
	last := int64(-1)
	for rows.Next() {
		var id int64
		var op string
		var n int
		if err := rows.Scan(&id, &op, &n); err != nil {
			return nil, err
		}
		if op == "lost" {
			cs.lost[id] += n
			continue
		}
		if op == "lost_related" {
			cs.lostRelated = append(cs.lostRelated, id)
			continue
		}
		if id != last {
			cs.changed = append(cs.changed, id)
			last = id
		}
	}
	return cs, rows.Err()
}

// xminText is the boundary as the text PostgreSQL casts to xid8.
func (cs *changeSet) xminText() string { return fmt.Sprint(cs.xmin) }

// consume deletes the entries this run read, inside the run's transaction.
func (cs *changeSet) consume(ctx context.Context, tx pgx.Tx) (int64, error) {
	tag, err := tx.Exec(ctx, `delete from plagd_changes where xid < $1::text::xid8`, cs.xminText())
	if err != nil {
		return 0, fmt.Errorf("consume change log: %w", err)
	}
	return tag.RowsAffected(), nil
}

// PendingChanges counts the documents waiting for the next run, as
// store.PendingDocuments defines them (the one definition of "pending").
func PendingChanges(ctx context.Context, q store.Querier) (int, error) {
	return store.PendingDocuments(ctx, q)
}
