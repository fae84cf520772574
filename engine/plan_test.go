package engine

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/internal/testseed"
)

// The holes query is cluster.Holes in SQL: on random similarity tables and
// random changes (texts edited, documents added, soft- and hard-deleted, the
// change log and the cascade as the triggers write them), it names exactly
// the documents the rule names over the same state read back.
func TestIncrementalHolesQueryIsTheRule(t *testing.T) {
	r := testseed.Rand(t)
	ctx := context.Background()
	pool := pgtest.Pool(t, pgtest.NewDB(t))
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := pool.Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	ext := 0
	insert := func() int64 {
		ext++
		var id int64
		if err := pool.QueryRow(ctx, `insert into documents (external_id, text) values ($1, 'text') returning id`,
			fmt.Sprint(ext)).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	holesSeen := 0
	for round := range 40 {
		exec(`truncate documents, plagd_changes cascade`)
		topK := 1 + r.IntN(4)
		ids := make([]int64, 10+r.IntN(20))
		for i := range ids {
			ids[i] = insert()
		}
		// Stored lists as a committed run leaves them: up to topK rows each.
		for _, doc := range ids {
			for _, i := range r.Perm(len(ids))[:r.IntN(topK+1)] {
				if other := ids[i]; other != doc {
					exec(`insert into similarities (doc_id, other_id, shared_chunks, similarity) values ($1, $2, 1, 0.5)`, doc, other)
				}
			}
		}
		exec(`delete from plagd_changes`) // consumed by that run
		for range r.IntN(10) {
			id := ids[r.IntN(len(ids))]
			switch r.IntN(5) {
			case 0:
				exec(`update documents set text = text || ' more' where id = $1`, id)
			case 1:
				exec(`update documents set deleted_at = now() where id = $1`, id)
			case 2, 3:
				exec(`delete from documents where id = $1`, id)
			default:
				ids = append(ids, insert())
			}
		}

		cs, err := readChanges(ctx, pool)
		if err != nil {
			t.Fatal(err)
		}
		got, err := holes(ctx, pool, cs, topK)
		if err != nil {
			t.Fatal(err)
		}
		lists := map[int64][]cluster.Row{}
		rows, err := pool.Query(ctx, `select doc_id, other_id from similarities`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var row cluster.Row
			if err := rows.Scan(&row.Doc, &row.Other); err != nil {
				t.Fatal(err)
			}
			lists[row.Doc] = append(lists[row.Doc], row)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		live, err := queryIDs(ctx, pool, `select id from documents where deleted_at is null`)
		if err != nil {
			t.Fatal(err)
		}
		changed := map[int64]bool{}
		for _, id := range cs.changed {
			changed[id] = true
		}
		want := cluster.Holes(lists, changed, cs.lost, func(id int64) bool { return slices.Contains(live, id) }, topK)
		if !slices.Equal(got, want) {
			t.Fatalf("round %d (top %d, changed %v, lost %v): the query finds holes %v, cluster.Holes %v",
				round, topK, cs.changed, cs.lost, got, want)
		}
		holesSeen += len(got)
	}
	if holesSeen == 0 {
		t.Fatal("no round had a hole: the test checks nothing")
	}
	t.Logf("%d holes in 40 rounds", holesSeen)
}
