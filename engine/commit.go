package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/internal/safetext"
	"github.com/plagd/plagd/store"
)

// commitStats are the figures a committed run records.
type commitStats struct {
	RowsWritten int64
	Consumed    int64
}

// commitRun writes a run's outcome in ONE transaction (the design's rule that a run commits all or nothing,
// step 8): readers see the previous run or this one, never a mix, and a crash
// before COMMIT leaves the previous run intact with the change log unconsumed.
// The features' updates are written after the similarities and texts, in
// the order given. fence, when set, is checked last, inside the transaction (MasterLock.Held).
func commitRun(ctx context.Context, pool *pgxpool.Pool, fence func(context.Context, pgx.Tx) error, runID int64, full bool, topK int,
	out *cluster.Outcome, cs *changeSet, updates ...Update) (commitStats, error) {
	var st commitStats
	err := inTx(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `set local synchronous_commit = on`); err != nil {
			return err
		}
		late, err := lateDeletes(ctx, tx, cs)
		if err != nil {
			return err
		}
		if st.RowsWritten, err = writeSimilarities(ctx, tx, full, topK, out, late); err != nil {
			return err
		}
		if err := writeDocState(ctx, tx, runID, full, out); err != nil {
			return err
		}
		for _, w := range writeOrder(updates) {
			if err := w(ctx, tx, runID); err != nil {
				return err
			}
		}
		if err := dropLate(ctx, tx, late); err != nil {
			return err
		}
		// Consume the change log entries this run read.
		if st.Consumed, err = cs.consume(ctx, tx); err != nil {
			return err
		}
		// Record the run; its ID is the index generation made current after COMMIT.
		failed := out.Failed()
		_, err = tx.Exec(ctx, `
			update runs set status = 'committed', finished_at = clock_timestamp(),
				docs_changed = $2, docs_indexed = $3, docs_deleted = $4, docs_failed = $5,
				docs_recomputed = $6, postings = $7, rows_written = $8
			where id = $1`,
			runID, len(cs.changed), len(out.Docs)-failed, len(out.Deleted), failed,
			out.Recomputed, out.Postings, st.RowsWritten)
		if err == nil && fence != nil {
			// Last: the run's row is locked by now, so a master that takes
			// the lock after this check waits for this commit to finish.
			err = fence(ctx, tx)
		}
		return err
	})
	return st, err
}

// writeOrder is the writes of updates in the commit's order: those still
// being computed last (a run's related join, see relatedPhase.Finish), so
// that the commit's other writes run while they finish, and of those the
// part that does not wait for them (earlyWriter) in the updates' order.
func writeOrder(updates []Update) []func(context.Context, pgx.Tx, int64) error {
	out := make([]func(context.Context, pgx.Tx, int64) error, 0, len(updates)+1)
	var later []func(context.Context, pgx.Tx, int64) error
	for _, u := range updates {
		if l, ok := u.(interface{ late() bool }); ok && l.late() {
			if e, ok := u.(earlyWriter); ok {
				out = append(out, e.writeEarly)
			}
			later = append(later, u.Write)
			continue
		}
		out = append(out, u.Write)
	}
	return append(out, later...)
}

// earlyWriter is a late update with a part that does not wait for what it
// still computes: writeEarly writes that part in the commit's usual order,
// Write the rest once it is done.
type earlyWriter interface {
	writeEarly(ctx context.Context, tx pgx.Tx, runID int64) error
}

// abandonAll stops what updates still compute (a run that failed before
// or during its commit) and waits for it; after a commit that wrote them
// it has nothing left to stop.
func abandonAll(updates []Update) {
	for _, u := range updates {
		if a, ok := u.(interface{ abandon() }); ok {
			a.abandon()
		}
	}
}

// writeSimilarities replaces the rows the run recomputed and returns how
// many it wrote (in an incremental run, only the new and changed ones).
// Rows that name a late document (see late.go) are dropped again before
// the keys are checked.
func writeSimilarities(ctx context.Context, tx pgx.Tx, full bool, topK int, out *cluster.Outcome, late []int64) (int64, error) {
	// 1. Drop the rows being replaced: a full run all of them, an
	// incremental run those that changed (dropChangedRows). A full run also
	// drops the keys while it writes: checking them row by row makes COPY
	// several times slower (43k rows/s measured, against 436k with the keys
	// rebuilt once at the end, 2M rows). TRUNCATE holds the table
	// exclusively anyway.
	rows := out.Rows
	if full {
		if _, err := tx.Exec(ctx, `
			alter table similarities drop constraint similarities_doc_fk, drop constraint similarities_other_fk,
				drop constraint similarities_pkey;
			drop index similarities_other;
			truncate similarities`); err != nil {
			return 0, fmt.Errorf("clear similarities: %w", err)
		}
	} else {
		// An incremental run touches only the rows that change: most rows of
		// a recomputed list come out as they were.
		var err error
		if rows, err = dropChangedRows(ctx, tx, out); err != nil {
			return 0, err
		}
	}
	// 2. COPY the new rows straight in: after step 1 none of them can clash.
	n, err := tx.CopyFrom(ctx, pgx.Identifier{"similarities"},
		[]string{"doc_id", "other_id", "shared_chunks", "similarity"}, &rowSource{rows: rows})
	if err != nil {
		return 0, fmt.Errorf("write similarities: %w", err)
	}
	if err := dropLateSimilarities(ctx, tx, late); err != nil {
		return 0, err
	}
	if full {
		if _, err := tx.Exec(ctx, `
			alter table similarities add constraint similarities_pkey primary key (doc_id, other_id);
			create index similarities_other on similarities (other_id);
			alter table similarities
				add constraint similarities_doc_fk foreign key (doc_id) references documents(id)
					on delete cascade deferrable initially immediate,
				add constraint similarities_other_fk foreign key (other_id) references documents(id)
					on delete cascade deferrable initially immediate`); err != nil {
			return 0, fmt.Errorf("restore similarity keys: %w", err)
		}
	}
	// 3. Unchanged documents that gained rows keep only their top k,
	// ordered as everywhere: shared chunks desc, then other_id.
	if len(out.Trim) > 0 {
		if _, err := tx.Exec(ctx, `
			delete from similarities s using (
				select doc_id, other_id, row_number() over (
					partition by doc_id order by shared_chunks desc, other_id) as rank
				from similarities where doc_id = any($1)) r
			where s.doc_id = r.doc_id and s.other_id = r.other_id and r.rank > $2`,
			out.Trim, topK); err != nil {
			return 0, fmt.Errorf("trim similarity lists: %w", err)
		}
	}
	return n, nil
}

// commitTimeout bounds the COMMIT of a run's transaction once it is sent.
const commitTimeout = time.Minute

// inTx runs body in a transaction and commits it. A stop request (ctx
// cancelled by SIGTERM) aborts the body, but not the COMMIT once the body
// is done: cancelling a COMMIT in flight leaves its outcome unknown to
// plagd while PostgreSQL may hold it (the run would then be recorded as
// aborted although its results were current). The COMMIT is short; the
// timeout only bounds a dead connection.
func inTx(ctx context.Context, pool *pgxpool.Pool, body func(pgx.Tx) error) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }() // after Commit: a no-op
	if err := body(tx); err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), commitTimeout)
	defer cancel()
	return tx.Commit(cctx)
}

// writeDocState stores the chunked texts with their flags and the
// per-document status.
func writeDocState(ctx context.Context, tx pgx.Tx, runID int64, full bool, out *cluster.Outcome) error {
	indexed := make([]int64, 0, len(out.Docs))
	var gone []int64 // no longer indexed: failed or deleted
	for _, d := range out.Docs {
		if d.Failed == "" {
			indexed = append(indexed, d.ID)
		} else {
			gone = append(gone, d.ID)
		}
	}
	gone = append(gone, out.Deleted...)
	if full {
		if _, err := tx.Exec(ctx, `truncate document_texts, document_status`); err != nil {
			return fmt.Errorf("clear document state: %w", err)
		}
	} else if _, err := tx.Exec(ctx, `delete from document_texts where doc_id = any($1)`, gone); err != nil {
		return fmt.Errorf("delete stale texts: %w", err)
	}
	// Documents hard-deleted during the run are skipped (their FK target is gone).
	if _, err := tx.Exec(ctx, `
		insert into document_texts (doc_id, body, run_id, flags)
		select distinct on (s.doc_id) s.doc_id, s.body, s.run_id, s.flags from plagd_text_stage s
		join documents d on d.id = s.doc_id
		where s.run_id = $1 and s.doc_id = any($2)
		order by s.doc_id
		on conflict (doc_id) do update set body = excluded.body, run_id = excluded.run_id, flags = excluded.flags`,
		runID, indexed); err != nil {
		return fmt.Errorf("store texts: %w", err)
	}
	// The stage is emptied right after COMMIT (Engine.clearStage): a
	// TRUNCATE gives its space back at once, where a DELETE here cost a
	// full run's commit 1.4 s at 100k documents and left the dead texts
	// for the next run's TRUNCATE to unlink (0.85 s).
	// What ingest read for the next run has served (or is stale): every
	// document the run handled leaves plagd_extracted.
	handled := make([]int64, 0, len(out.Docs)+len(out.Deleted))
	for _, d := range out.Docs {
		handled = append(handled, d.ID)
	}
	if _, err := tx.Exec(ctx, `delete from plagd_extracted where doc_id = any($1)`, append(handled, out.Deleted...)); err != nil {
		return fmt.Errorf("clear texts read at upload: %w", err)
	}
	if _, err := tx.Exec(ctx, `delete from document_status where doc_id = any($1)`, out.Deleted); err != nil {
		return fmt.Errorf("delete status of deleted documents: %w", err)
	}
	ids := make([]int64, len(out.Docs))
	status := make([]string, len(out.Docs))
	reason := make([]*string, len(out.Docs))
	kind := make([]*string, len(out.Docs))
	words := make([]int32, len(out.Docs))
	chunks := make([]int32, len(out.Docs))
	for i, d := range out.Docs {
		ids[i], words[i], chunks[i] = d.ID, int32(d.Words), int32(d.Chunks)
		status[i] = "indexed"
		if d.Failed != "" {
			// Sanitised again here, at the last boundary: a reason may come
			// from a remote node, and one bad byte would fail the commit.
			status[i] = "failed"
			r, k := store.ReasonField(d.Failed), safetext.Line(d.FailedKind, store.MaxKindBytes)
			reason[i], kind[i] = &r, &k
		}
	}
	if _, err := tx.Exec(ctx, `
		insert into document_status (doc_id, status, error, error_kind, words, chunks, run_id, updated_at)
		select u.id, u.status, u.error, u.kind, u.words, u.chunks, $7, clock_timestamp()
		from unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::int[], $6::int[])
			as u(id, status, error, kind, words, chunks)
		join documents d on d.id = u.id
		on conflict (doc_id) do update set status = excluded.status, error = excluded.error,
			error_kind = excluded.error_kind, words = excluded.words, chunks = excluded.chunks,
			run_id = excluded.run_id, updated_at = excluded.updated_at`,
		ids, status, reason, kind, words, chunks, runID); err != nil {
		return fmt.Errorf("store document status: %w", err)
	}
	return nil
}

// dropChangedRows compares the rows an incremental run recomputed (those
// with doc_id in out.Replace or other_id in out.Others, the only rows its
// new rows can be) with the new rows, deletes the stored ones that are gone
// or changed, and returns the new ones that are not stored as they are: what
// is left to write. The table ends as if every recomputed row had been
// deleted and written again, without writing the rows that stayed the same.
func dropChangedRows(ctx context.Context, tx pgx.Tx, out *cluster.Outcome) ([]cluster.Row, error) {
	type key struct{ doc, other int64 }
	type value struct {
		shared int32
		sim    float64
	}
	q, err := tx.Query(ctx, `select doc_id, other_id, shared_chunks, similarity from similarities
		where doc_id = any($1) or other_id = any($2)`, out.Replace, out.Others)
	if err != nil {
		return nil, fmt.Errorf("read replaced similarities: %w", err)
	}
	stored := map[key]value{}
	var k key
	var v value
	if _, err := pgx.ForEachRow(q, []any{&k.doc, &k.other, &v.shared, &v.sim}, func() error {
		stored[k] = v
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read replaced similarities: %w", err)
	}
	var write []cluster.Row
	for _, r := range out.Rows {
		k := key{r.Doc, r.Other}
		if v, ok := stored[k]; ok && v.shared == int32(r.Shared) && v.sim == r.Similarity {
			delete(stored, k) // stays as it is
			continue
		}
		write = append(write, r)
	}
	// What is left of stored is gone or changed.
	docs, others := make([]int64, 0, len(stored)), make([]int64, 0, len(stored))
	for k := range stored {
		docs, others = append(docs, k.doc), append(others, k.other)
	}
	if len(docs) > 0 {
		if _, err := tx.Exec(ctx, `delete from similarities s using unnest($1::bigint[], $2::bigint[]) as g(doc_id, other_id)
			where s.doc_id = g.doc_id and s.other_id = g.other_id`, docs, others); err != nil {
			return nil, fmt.Errorf("delete replaced similarities: %w", err)
		}
	}
	return write, nil
}

// rowSource streams similarity rows to COPY without building [][]any.
type rowSource struct {
	rows []cluster.Row
	i    int
	vals [4]any
}

func (r *rowSource) Next() bool { r.i++; return r.i <= len(r.rows) }
func (r *rowSource) Values() ([]any, error) {
	row := &r.rows[r.i-1]
	r.vals[0], r.vals[1], r.vals[2], r.vals[3] = row.Doc, row.Other, int32(row.Shared), row.Similarity
	return r.vals[:], nil
}
func (r *rowSource) Err() error { return nil }
