package web

import (
	"fmt"
	"net/http"
	"time"

	"github.com/plagd/plagd/auth"
	"github.com/plagd/plagd/daemon"
)

// runList is GET /api/v1/runs: one page of runs, newest first, and the
// state of the queue.
type runList struct {
	Runs []daemon.RunInfo `json:"runs"`
	// Pending is the number of documents waiting for the next run.
	Pending int `json:"pending"`
	// Running tells whether a run is going on now.
	Running bool `json:"running"`
	// Daemon tells whether this server runs the daemon, i.e. whether
	// POST /api/v1/runs can start a run.
	Daemon bool `json:"daemon"`
	// NextRun is the next scheduled run; null without a daemon or schedule.
	NextRun    *time.Time `json:"next_run"`
	Limit      int        `json:"limit"`
	Offset     int        `json:"offset"`
	NextOffset *int       `json:"next_offset"`
}

func (s *Server) apiListRuns(w http.ResponseWriter, r *http.Request) {
	limit, offset, err := pageParams(r.URL.Query())
	if err != nil {
		s.apiDocFail(w, r, err)
		return
	}
	runs, more, err := s.pageOfRuns(r, limit, offset)
	if err != nil {
		s.apiFail(w, r, err)
		return
	}
	out := runList{Runs: runs, Limit: limit, Offset: offset, NextOffset: nextOffset(more, offset, len(runs))}
	if err := s.pool.QueryRow(r.Context(), `select count(distinct doc_id) from plagd_changes`).Scan(&out.Pending); err != nil {
		s.apiFail(w, r, fmt.Errorf("count pending documents: %w", err))
		return
	}
	if s.runner != nil {
		out.Daemon, out.Running = true, s.runner.Running()
		if next := s.runner.NextRun(); !next.IsZero() {
			out.NextRun = &next
		}
	} else {
		// another process (plagd run, or the daemon elsewhere) may be running
		err := s.pool.QueryRow(r.Context(), `select exists (select 1 from runs where status = 'running')`).Scan(&out.Running)
		if err != nil {
			s.apiFail(w, r, fmt.Errorf("read runs: %w", err))
			return
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// pageOfRuns reads runs newest first, as daemon.RunInfo, and whether more follow.
func (s *Server) pageOfRuns(r *http.Request, limit, offset int) ([]daemon.RunInfo, bool, error) {
	rows, err := s.pool.Query(r.Context(), `
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
	out := []daemon.RunInfo{}
	for rows.Next() {
		var ri daemon.RunInfo
		var secs float64
		if err := rows.Scan(&ri.ID, &ri.Kind, &ri.Status, &ri.Started, &ri.Finished, &secs,
			&ri.DocsChanged, &ri.DocsIndexed, &ri.DocsDeleted, &ri.DocsFailed, &ri.DocsRecomputed,
			&ri.Postings, &ri.RowsWritten, &ri.Error, &ri.Host, &ri.PID); err != nil {
			return nil, false, fmt.Errorf("read runs: %w", err)
		}
		ri.Duration = time.Duration(secs * float64(time.Second)).Round(time.Millisecond)
		out = append(out, ri)
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("read runs: %w", err)
	}
	if len(out) > limit {
		return out[:limit], true, nil
	}
	return out, false, nil
}

// runRequested is POST /api/v1/runs' answer.
type runRequested struct {
	Requested bool `json:"requested"`
	// Running tells whether a run was already going on: the requested one
	// then follows it.
	Running bool `json:"running"`
}

func (s *Server) apiTriggerRun(w http.ResponseWriter, r *http.Request) {
	if s.runner == nil {
		apiError(w, http.StatusServiceUnavailable, "no_daemon",
			"no daemon in this process: runs are made by `plagd serve` with its scheduler, or by `plagd run` on the master host")
		return
	}
	running := s.runner.Running()
	s.runner.RequestRun()
	s.log.Info().Str("user", who(r).User.Name).Msg("run requested through the API")
	writeJSON(w, http.StatusAccepted, runRequested{Requested: true, Running: running})
}

// meResponse is GET /api/v1/me: who the credentials belong to.
type meResponse struct {
	User struct {
		Name string    `json:"name"`
		Role auth.Role `json:"role"`
	} `json:"user"`
	Auth string `json:"auth"` // "session" or "token"
}

func (s *Server) apiMe(w http.ResponseWriter, r *http.Request) {
	p := who(r)
	var out meResponse
	out.User.Name, out.User.Role = p.User.Name, p.User.Role
	out.Auth = "token"
	if p.Session != nil {
		out.Auth = "session"
	}
	writeJSON(w, http.StatusOK, out)
}
