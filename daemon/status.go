package daemon

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/plagd/plagd/store"
)

// readSnapshot makes a report's several queries agree with each other even
// while a run commits: one repeatable-read snapshot, read only.
var readSnapshot = pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}

// Status is what an operator checks first: did the last runs work, how much
// is waiting for the next one, and which documents failed and why.
type Status struct {
	Runs []RunInfo `json:"runs"`
	// Pending is the number of distinct documents in the change log,
	// including those whose similarity list lost an entry to a deletion.
	Pending       int         `json:"pending"`
	OldestPending *time.Time  `json:"oldest_pending,omitempty"`
	Documents     DocCounts   `json:"documents"`
	Failed        []FailedDoc `json:"failed"`
}

// RunInfo is one row of the runs table.
type RunInfo struct {
	ID       int64      `json:"id"`
	Kind     string     `json:"kind"`
	Status   string     `json:"status"`
	Started  time.Time  `json:"started"`
	Finished *time.Time `json:"finished,omitempty"`
	// Duration is finished - started, the time so far for a running run,
	// and 0 for a run that ended without recording when (a crashed master).
	Duration       time.Duration `json:"duration_ns"`
	DocsChanged    int           `json:"docs_changed"`
	DocsIndexed    int           `json:"docs_indexed"`
	DocsDeleted    int           `json:"docs_deleted"`
	DocsFailed     int           `json:"docs_failed"`
	DocsRecomputed int           `json:"docs_recomputed"`
	Postings       int64         `json:"postings"`
	RowsWritten    int64         `json:"rows_written"`
	Error          string        `json:"error,omitempty"`
	Host           string        `json:"host,omitempty"`
	PID            int           `json:"pid,omitempty"`
}

// DocCounts splits the live documents by state: Total = Indexed + Failed +
// Pending. A document with an entry in the change log is pending whatever
// its last status was, as the schema defines. Deleted counts soft-deleted
// rows, which leave the index at the next run but stay in the table.
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
func LoadStatus(ctx context.Context, pool *pgxpool.Pool, runs int, failed int) (Status, error) {
	var st Status
	tx, err := pool.BeginTx(ctx, readSnapshot)
	if err != nil {
		return st, fmt.Errorf("status: %w", err)
	}
	defer tx.Rollback(ctx)

	if st.Runs, err = loadRuns(ctx, tx, runs); err != nil {
		return st, err
	}
	err = tx.QueryRow(ctx, `select count(distinct doc_id), min(at) from plagd_changes`).Scan(&st.Pending, &st.OldestPending)
	if err != nil {
		return st, fmt.Errorf("status: read change log: %w", err)
	}
	d := &st.Documents
	err = tx.QueryRow(ctx, `
		select
		    count(*) filter (where d.deleted_at is null),
		    count(*) filter (where d.deleted_at is null and p.doc_id is null and s.status = 'indexed'),
		    count(*) filter (where d.deleted_at is null and p.doc_id is null and s.status = 'failed'),
		    count(*) filter (where d.deleted_at is null and (p.doc_id is not null or s.doc_id is null)),
		    count(*) filter (where d.deleted_at is not null)
		from documents d
		left join document_status s on s.doc_id = d.id
		left join (select distinct doc_id from plagd_changes) p on p.doc_id = d.id`).
		Scan(&d.Total, &d.Indexed, &d.Failed, &d.Pending, &d.Deleted)
	if err != nil {
		return st, fmt.Errorf("status: count documents: %w", err)
	}
	if st.Failed, err = loadFailed(ctx, tx, failed); err != nil {
		return st, err
	}
	return st, nil
}

func loadRuns(ctx context.Context, q store.Querier, limit int) ([]RunInfo, error) {
	rows, err := q.Query(ctx, `
		select id, kind, status, started_at, finished_at,
		       coalesce(extract(epoch from case
		           when finished_at is not null then finished_at - started_at
		           when status = 'running' then clock_timestamp() - started_at end), 0),
		       docs_changed, docs_indexed, docs_deleted, docs_failed, docs_recomputed,
		       postings, rows_written, coalesce(error, ''), coalesce(host, ''), coalesce(pid, 0)
		from runs order by id desc limit $1`, max(limit, 0))
	if err != nil {
		return nil, fmt.Errorf("status: read runs: %w", err)
	}
	defer rows.Close()
	out := []RunInfo{}
	for rows.Next() {
		var r RunInfo
		var secs float64
		if err := rows.Scan(&r.ID, &r.Kind, &r.Status, &r.Started, &r.Finished, &secs,
			&r.DocsChanged, &r.DocsIndexed, &r.DocsDeleted, &r.DocsFailed, &r.DocsRecomputed,
			&r.Postings, &r.RowsWritten, &r.Error, &r.Host, &r.PID); err != nil {
			return nil, fmt.Errorf("status: read runs: %w", err)
		}
		r.Duration = time.Duration(secs * float64(time.Second)).Round(time.Millisecond)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("status: read runs: %w", err)
	}
	return out, nil
}

func loadFailed(ctx context.Context, q store.Querier, limit int) ([]FailedDoc, error) {
	rows, err := q.Query(ctx, `
		select d.id, coalesce(d.external_id, ''), coalesce(d.filename, ''), coalesce(s.error, '')
		from document_status s join documents d on d.id = s.doc_id
		where s.status = 'failed' and d.deleted_at is null
		  and not exists (select 1 from plagd_changes c where c.doc_id = d.id)
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
		f.ExternalID, f.Filename, f.Error = store.PathShown(f.ExternalID), store.PathShown(f.Filename), store.ReasonField(f.Error)
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("status: read failed documents: %w", err)
	}
	return out, nil
}
