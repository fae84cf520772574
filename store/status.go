package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// changedEntry selects the change-log entries that make a document pending:
// it was inserted, updated or deleted since the last run ('insert',
// 'update', 'delete'). It is the engine's definition (engine.PendingChanges
// calls PendingDocuments) and the only one: the status page, the runs API,
// the document lists and a report's header all count with it.
//
// The other entries ('lost', 'lost_related', written by the delete trigger
// of migrations 0001 and 0004) name documents whose own text did not
// change: a hard delete took a member out of their similarity or related
// list, which the next run recomputes in full. Such a document stays
// indexed, with a valid report; calling it pending would make the status
// page's count disagree with the documents listed as pending, and
// "pending" would no longer mean "its text waits for the next run". No run
// is missed by leaving them out: the same trigger logs the deleted
// document's own 'delete' entry in the same transaction, so the count is
// above zero whenever a lost entry waits.
const changedEntry = `op not like 'lost%'`

// PendingDocuments counts the documents waiting for the next run: those
// with a changedEntry in the change log (including hard-deleted ids).
func PendingDocuments(ctx context.Context, q Querier) (int, error) {
	var n int
	if err := q.QueryRow(ctx, `select count(distinct doc_id) from plagd_changes where `+changedEntry).Scan(&n); err != nil {
		return 0, fmt.Errorf("count pending documents: %w", err)
	}
	return n, nil
}

// readSnapshot makes a report's several queries agree with each other even
// while a run commits: one repeatable-read snapshot, read only.
var readSnapshot = pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}

// Status is what an operator checks first: did the last runs work, how much
// is waiting for the next one, and which documents failed and why.
type Status struct {
	Runs []RunInfo `json:"runs"`
	// Pending is the number of distinct documents waiting for the next run
	// (PendingDocuments), hard-deleted ones included.
	Pending       int         `json:"pending"`
	OldestPending *time.Time  `json:"oldest_pending,omitempty"`
	Documents     DocCounts   `json:"documents"`
	Failed        []FailedDoc `json:"failed"`
	// Flagged counts the documents whose text was disguised, per kind of
	// flag, with the ids of the first few.
	Flagged FlagSummary `json:"flagged"`
	// HeldBack is set when committed changes wait for a transaction that
	// is still open somewhere on the server (HeldBack); nil otherwise.
	HeldBack *HeldBack `json:"held_back,omitempty"`
	// IndexQueued counts the documents whose similarity index waits to be
	// computed (plagd_index_queue): right after a run, or after an author
	// or external-id edit, until the daemon's next run has stored them.
	IndexQueued int `json:"index_queued"`
}

// HeldBack says why committed changes are not yet taken by a run. A run
// takes only the change-log entries older than every transaction still
// open on the PostgreSQL server (all databases: the boundary is the
// server's, pg_snapshot_xmin), so that no change committed out of order
// is ever skipped. One long transaction anywhere therefore holds back
// every change committed after it began, until it ends.
type HeldBack struct {
	Documents int       `json:"documents"` // distinct documents whose changes wait
	PID       int       `json:"pid"`       // the oldest open transaction's backend
	Database  string    `json:"database,omitempty"`
	User      string    `json:"user,omitempty"`
	State     string    `json:"state,omitempty"` // "idle in transaction", "active", ...
	Since     time.Time `json:"since"`           // when that transaction began
}

// DocCounts splits the live documents by state: Total = Indexed + Failed +
// Pending. A document with a changedEntry in the change log is pending
// whatever its last status was, as the schema defines. Deleted counts
// soft-deleted rows, which leave the index at the next run but stay in the
// table.
type DocCounts struct {
	Total   int `json:"total"`
	Indexed int `json:"indexed"`
	Failed  int `json:"failed"`
	Pending int `json:"pending"`
	Deleted int `json:"deleted"`
}

// FailedDoc is a live document whose last run could not extract its text
// and that has not changed since (a changed one is pending: its old reason
// no longer applies).
type FailedDoc struct {
	ID         int64  `json:"id"`
	ExternalID string `json:"external_id,omitempty"`
	Filename   string `json:"filename,omitempty"`
	Error      string `json:"error"`
}

// LoadStatus reads the newest runs (at most runs) and failed documents (at
// most failed, by id). It only reads, so it is safe while a run is going on;
// the counts come from one snapshot.
func LoadStatus(ctx context.Context, db *DB, runs int, failed int) (Status, error) {
	var st Status
	tx, err := db.BeginTx(ctx, readSnapshot)
	if err != nil {
		return st, fmt.Errorf("status: %w", err)
	}
	defer tx.Rollback(ctx)

	if st.Runs, _, err = ListRuns(ctx, tx, runs, 0); err != nil {
		return st, fmt.Errorf("status: %w", err)
	}
	err = tx.QueryRow(ctx, `select count(distinct doc_id), min(at) from plagd_changes where `+changedEntry).Scan(&st.Pending, &st.OldestPending)
	if err != nil {
		return st, fmt.Errorf("status: read change log: %w", err)
	}
	if st.Documents, err = CountDocuments(ctx, tx); err != nil {
		return st, fmt.Errorf("status: %w", err)
	}
	if err = tx.QueryRow(ctx, `select count(*) from plagd_index_queue`).Scan(&st.IndexQueued); err != nil {
		return st, fmt.Errorf("status: read the similarity-index queue: %w", err)
	}
	if st.Failed, err = loadFailed(ctx, tx, failed); err != nil {
		return st, err
	}
	if st.Flagged, err = loadFlags(ctx, tx); err != nil {
		return st, err
	}
	if st.Pending > 0 {
		if st.HeldBack, err = loadHeldBack(ctx, tx); err != nil {
			return st, err
		}
	}
	return st, nil
}

// loadHeldBack finds the committed changes a run would not take now and
// the oldest open transaction that holds them back (nil when none waits).
// Its database, user and state are what pg_stat_activity shows the
// connected role; the pid always.
func loadHeldBack(ctx context.Context, q Querier) (*HeldBack, error) {
	var n int
	if err := q.QueryRow(ctx, `select count(distinct doc_id) from plagd_changes
		where `+changedEntry+` and xid >= pg_snapshot_xmin(pg_current_snapshot())`).Scan(&n); err != nil {
		return nil, fmt.Errorf("status: read held-back changes: %w", err)
	}
	if n == 0 {
		return nil, nil
	}
	h := &HeldBack{Documents: n}
	var db, user, state *string
	err := q.QueryRow(ctx, `select pid, datname, usename, state, xact_start from pg_stat_activity
		where backend_xid is not null and pid <> pg_backend_pid()
		order by age(backend_xid) desc, xact_start limit 1`).Scan(&h.PID, &db, &user, &state, &h.Since)
	if errors.Is(err, pgx.ErrNoRows) {
		return h, nil // it ended between the two reads
	}
	if err != nil {
		return nil, fmt.Errorf("status: find the oldest open transaction: %w", err)
	}
	h.Database, h.User, h.State = Deref(db), Deref(user), Deref(state)
	return h, nil
}

// CountDocuments counts the archive's documents by state, pending as
// changedEntry defines it (the status page and the daemon's plagd_documents
// gauge both count with it).
func CountDocuments(ctx context.Context, q Querier) (DocCounts, error) {
	var d DocCounts
	err := q.QueryRow(ctx, `
		select
		    count(*) filter (where d.deleted_at is null),
		    count(*) filter (where d.deleted_at is null and p.doc_id is null and s.status = 'indexed'),
		    count(*) filter (where d.deleted_at is null and p.doc_id is null and s.status = 'failed'),
		    count(*) filter (where d.deleted_at is null and (p.doc_id is not null or s.doc_id is null)),
		    count(*) filter (where d.deleted_at is not null)
		from documents d
		left join document_status s on s.doc_id = d.id
		left join (select distinct doc_id from plagd_changes where `+changedEntry+`) p on p.doc_id = d.id`).
		Scan(&d.Total, &d.Indexed, &d.Failed, &d.Pending, &d.Deleted)
	if err != nil {
		return d, fmt.Errorf("count documents: %w", err)
	}
	return d, nil
}

func loadFailed(ctx context.Context, q Querier, limit int) ([]FailedDoc, error) {
	rows, err := q.Query(ctx, `
		select d.id, coalesce(d.external_id, ''), coalesce(d.filename, ''), coalesce(s.error, '')
		from document_status s join documents d on d.id = s.doc_id
		where s.status = 'failed' and d.deleted_at is null
		  and not exists (select 1 from plagd_changes c where c.doc_id = d.id and `+changedEntry+`)
		order by d.id limit $1`, max(limit, 0))
	if err != nil {
		return nil, fmt.Errorf("status: read failed documents: %w", err)
	}
	defer rows.Close()
	out := []FailedDoc{}
	for rows.Next() {
		var f FailedDoc
		if err := rows.Scan(&f.ID, &f.ExternalID, &f.Filename, &f.Error); err != nil {
			return nil, fmt.Errorf("status: read failed documents: %w", err)
		}
		// An integrator's row may hold anything a text column takes (escape
		// sequences, bidi overrides), and reasons stored before plagd
		// sanitised them too: the status is printed on terminals and pages.
		f.ExternalID, f.Filename, f.Error = PathShown(f.ExternalID), PathShown(f.Filename), ReasonField(f.Error)
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("status: read failed documents: %w", err)
	}
	return out, nil
}
