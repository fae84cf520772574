package web

import (
	"net/http"
	"time"

	"github.com/plagd/plagd/auth"
	"github.com/plagd/plagd/store"
)

// runList is GET /api/v1/runs: one page of runs, newest first, and the
// state of the queue.
type runList struct {
	Runs []store.RunInfo `json:"runs"`
	// Pending is the number of documents waiting for the next run
	// (store.PendingDocuments, the status page's count too).
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
	runs, more, err := store.ListRuns(r.Context(), s.db, limit, offset)
	if err != nil {
		s.apiFail(w, r, err)
		return
	}
	out := runList{Runs: runs, Limit: limit, Offset: offset, NextOffset: nextOffset(more, offset, len(runs))}
	if out.Pending, err = store.PendingDocuments(r.Context(), s.db); err != nil {
		s.apiFail(w, r, err)
		return
	}
	if s.runner != nil {
		out.Daemon, out.Running = true, s.runner.Running()
		if next := s.runner.NextRun(); !next.IsZero() {
			out.NextRun = &next
		}
	} else if out.Running, err = store.RunGoingOn(r.Context(), s.db); err != nil {
		// another process (plagd run, or the daemon elsewhere) may be running
		s.apiFail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
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
	s.log.Info().Str("user", who(r).User.Name).Str("via", via(r)).Msg("run requested")
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
