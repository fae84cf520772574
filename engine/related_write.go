package engine

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
)

// writeLists stores the run's related lists, one row per list
// (related_lists, migration 0016): a rebuild empties the table and writes
// every list; an incremental run upserts the lists it recomputed or
// patched and deletes those left empty. Documents that left the index
// then lose their own list.
//
// No other stored list holds them after the upsert: the run patched every
// list that held a document it removed, soft- or hard-deleted (listHolders;
// a removed member in the top k changes the top, so the list is written),
// or joined it again, and a rebuild writes every list. Taking them out of
// the stored lists once more, as the commit did until 2026-11-27, found
// nothing and cost 121 ms of an incremental run's 0.56 s commit at 20,000
// documents (docs/PERFORMANCE.md, "What an incremental commit writes").
// The reference tests compare every stored list with a full run's.
//
// The lists were stored a row per pair until migration 0016; writing only
// the pairs that changed (read back, delete, update, insert, each insert
// checked by two foreign keys) cost an incremental run of 1,000 changes
// at 20,000 documents 0.78 s of its 1.14 s commit, where the upsert of the
// same 12,000 lists as rows costs about 0.1 s (docs/PERFORMANCE.md, "A
// related list is one row").
func (u *relatedUpdate) writeLists(ctx context.Context, tx pgx.Tx) error {
	if err := u.upsertLists(ctx, tx); err != nil {
		return err
	}
	if len(u.drop) == 0 || u.all {
		return nil
	}
	if _, err := tx.Exec(ctx, `delete from related_lists where doc_id = any($1)`, u.drop); err != nil {
		return fmt.Errorf("delete the lists of removed documents: %w", err)
	}
	return nil
}

// upsertLists writes u.lists. An incremental run stages its lists and
// upserts them: on the 1M archive's table (100,010 of 1,000,152 lists
// rewritten, by hand, twice) the stage and upsert took 1.7 and 1.9 s, and
// deleting the lists and copying them in 2.8 and 3.1 s, a third of it the
// foreign-key check of every inserted row, which an update of a row whose
// key stays does not make (docs/PERFORMANCE.md). The table keeps a fifth
// of each page free (migration 0019) so that an updated list stays on its
// page.
func (u *relatedUpdate) upsertLists(ctx context.Context, tx pgx.Tx) error {
	if u.all {
		if _, err := tx.Exec(ctx, `truncate related_lists`); err != nil {
			return fmt.Errorf("clear related lists: %w", err)
		}
	}
	ids := make([]int64, 0, len(u.lists))
	var empty []int64
	for id, l := range u.lists {
		if len(l) == 0 {
			empty = append(empty, id)
			continue
		}
		ids = append(ids, id)
	}
	if len(empty) > 0 && !u.all {
		if _, err := tx.Exec(ctx, `delete from related_lists where doc_id = any($1)`, empty); err != nil {
			return fmt.Errorf("delete emptied related lists: %w", err)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids) // rows in key order: the index pages are written in order
	var others []int64
	var cosines []float32
	rows := pgx.CopyFromSlice(len(ids), func(i int) ([]any, error) {
		others, cosines = listArrays(u.lists[ids[i]], others[:0], cosines[:0])
		return []any{ids[i], others, cosines}, nil
	})
	if u.all {
		// Into the emptied table, no stage: lists of documents
		// hard-deleted during the run are late deletes, which dropLate
		// removes before the deferred foreign keys are checked.
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"related_lists"}, []string{"doc_id", "others", "cosines"}, rows); err != nil {
			return fmt.Errorf("store related lists: %w", err)
		}
		return nil
	}
	if err := stageRows(ctx, tx, "related_stage", []string{"doc_id bigint", "others bigint[]", "cosines real[]"}, rows); err != nil {
		return fmt.Errorf("stage related lists: %w", err)
	}
	// Not joined with documents: lists of documents hard-deleted during
	// the run, and their places in other lists, are late deletes, which
	// dropLate removes before the deferred foreign keys are checked.
	if _, err := tx.Exec(ctx, `
		insert into related_lists (doc_id, others, cosines)
		select s.doc_id, s.others, s.cosines from related_stage s
		on conflict (doc_id) do update set others = excluded.others, cosines = excluded.cosines`); err != nil {
		return fmt.Errorf("store related lists: %w", err)
	}
	return nil
}

// listArrays is a list as its stored arrays, best first (cosine desc, then
// member id asc: the order the engine holds lists in, kept here whatever
// made l), appended to others and cosines. l is sorted in place.
func listArrays(l []relatedRow, others []int64, cosines []float32) ([]int64, []float32) {
	slices.SortFunc(l, func(a, b relatedRow) int {
		if c := cmp.Compare(b.cosine, a.cosine); c != 0 {
			return c
		}
		return cmp.Compare(a.other, b.other)
	})
	for _, r := range l {
		others, cosines = append(others, r.other), append(cosines, r.cosine)
	}
	return others, cosines
}
