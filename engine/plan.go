package engine

import (
	"context"
	"fmt"

	"github.com/plagd/plagd/store"
)

// liveDocuments lists every document a full run indexes.
func liveDocuments(ctx context.Context, q store.Querier) ([]int64, error) {
	return queryIDs(ctx, q, `select id from documents where deleted_at is null order by id`)
}

// classify splits changed documents into those to (re)index and those that
// left the archive (soft-deleted, or hard-deleted and gone).
func classify(ctx context.Context, q store.Querier, changed []int64) (upsert, del []int64, err error) {
	live, err := queryIDs(ctx, q, `select id from documents where id = any($1) and deleted_at is null order by id`, changed)
	if err != nil {
		return nil, nil, err
	}
	isLive := make(map[int64]bool, len(live))
	for _, id := range live {
		isLive[id] = true
	}
	for _, id := range changed {
		if !isLive[id] {
			del = append(del, id)
		}
	}
	return live, del, nil
}

// holes finds unchanged documents whose stored list may have lost an entry
// while it was full: it pointed at a changed document (whose row is about to
// be replaced) or lost rows by cascade. Such a list is recomputed from scratch,
// because the document that should move up into it was never stored. A list
// that was not full held every pair above min_shared, so it can be patched.
//
// The rule is defined by cluster.Holes; this query is that function over the
// similarities table, so that planning a run does not read every list.
// TestIncrementalHolesQueryIsTheRule checks the two agree: change one, change
// both.
func holes(ctx context.Context, q store.Querier, cs *changeSet, topK int) ([]int64, error) {
	lostIDs := make([]int64, 0, len(cs.lost))
	lostN := make([]int32, 0, len(cs.lost))
	for id, n := range cs.lost {
		lostIDs = append(lostIDs, id)
		lostN = append(lostN, int32(n))
	}
	return queryIDs(ctx, q, `
		with affected as (
			select doc_id, 0 as lost from similarities where other_id = any($1)
			union all
			select id, n from unnest($2::bigint[], $3::int[]) as l(id, n)
		), per_doc as (
			select doc_id, sum(lost) as lost from affected group by doc_id
		)
		select p.doc_id from per_doc p
		join documents d on d.id = p.doc_id and d.deleted_at is null
		where p.doc_id <> all($1)
		  and (select count(*) from similarities s where s.doc_id = p.doc_id) + p.lost >= $4
		order by p.doc_id`, cs.changed, lostIDs, lostN, topK)
}

func queryIDs(ctx context.Context, q store.Querier, sql string, args ...any) ([]int64, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("query documents: %w", err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
