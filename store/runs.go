package store

import (
	"context"
	"fmt"
	"time"
)

// LastCommittedRun is the generation the database holds results for (0: none).
func LastCommittedRun(ctx context.Context, q Querier) (int64, error) {
	var id int64
	err := q.QueryRow(ctx, `select coalesce(max(id), 0) from runs where status = 'committed'`).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("read last committed run: %w", err)
	}
	return id, nil
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

// ListRuns reads one page of runs, newest first, and whether more follow.
// The status page (LoadStatus) and the API's run list both read runs here.
func ListRuns(ctx context.Context, q Querier, limit, offset int) ([]RunInfo, bool, error) {
	limit, offset = max(limit, 0), max(offset, 0)
	rows, err := q.Query(ctx, `
		select id, kind, status, started_at, finished_at,
		       coalesce(extract(epoch from case
		           when finished_at is not null then finished_at - started_at
		           when status = 'running' then clock_timestamp() - started_at end), 0),
		       docs_changed, docs_indexed, docs_deleted, docs_failed, docs_recomputed,
		       postings, rows_written, coalesce(error, ''), coalesce(host, ''), coalesce(pid, 0)
		from runs order by id desc limit $1 offset $2`, limit+1, offset)
	if err != nil {
		return nil, false, fmt.Errorf("read runs: %w", err)
	}
	defer rows.Close()
	out := []RunInfo{}
	for rows.Next() {
		var r RunInfo
		var secs float64
		if err := rows.Scan(&r.ID, &r.Kind, &r.Status, &r.Started, &r.Finished, &secs,
			&r.DocsChanged, &r.DocsIndexed, &r.DocsDeleted, &r.DocsFailed, &r.DocsRecomputed,
			&r.Postings, &r.RowsWritten, &r.Error, &r.Host, &r.PID); err != nil {
			return nil, false, fmt.Errorf("read runs: %w", err)
		}
		r.Duration = time.Duration(secs * float64(time.Second)).Round(time.Millisecond)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("read runs: %w", err)
	}
	if len(out) > limit {
		return out[:limit], true, nil
	}
	return out, false, nil
}

// RunGoingOn tells whether the runs table shows a run in progress, made by
// whichever process holds the master lock.
func RunGoingOn(ctx context.Context, q Querier) (bool, error) {
	var running bool
	err := q.QueryRow(ctx, `select exists (select 1 from runs where status = 'running')`).Scan(&running)
	if err != nil {
		return false, fmt.Errorf("read runs: %w", err)
	}
	return running, nil
}
