package web

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/store"
)

// Pages that wait for a run (a pending report, the list of files just
// uploaded, the documents table) ask GET /api/v1/status every few seconds
// (static/app.js, with backoff) and show what it says: "waiting for the
// next run, about N s", "a run is in progress", then the result, without
// a manual reload. Without scripts the pending report page reloads itself
// (a meta refresh inside <noscript>).

// maxStatusDocs bounds ?documents=: a page shows at most a page of rows.
const maxStatusDocs = 200

// runStatus is GET /api/v1/status.
type runStatus struct {
	// Daemon tells whether this server runs the daemon (and so knows its
	// schedule); without one, Running is read from the runs table.
	Daemon  bool `json:"daemon"`
	Running bool `json:"running"`
	// NextRun is when the next run is due: the run for recent changes
	// (after schedule.debounce) or the next scheduled one, whichever comes
	// first; null when not known. NextRunIn is the same in seconds from now
	// (0: due now, or waiting for the run in progress to end).
	NextRun   *time.Time `json:"next_run"`
	NextRunIn *int       `json:"next_run_in_s"`
	// LastRun is the id of the last committed run (0: none): a page whose
	// data came from an older one is stale.
	LastRun int64 `json:"last_run"`
	// Pending is the number of documents waiting for a run.
	Pending int `json:"pending"`
	// IndexQueued is the number of documents whose similarity index waits
	// to be computed (right after a run, or after an author or external-id
	// edit).
	IndexQueued int `json:"index_queued"`
	// Documents are the statuses of the documents asked for
	// (?documents=1,2,3), in that order; ids that are no document's are left
	// out.
	Documents []docStatus `json:"documents"`
}

type docStatus struct {
	ID     int64  `json:"id"`
	Status string `json:"status"`
}

func (s *Server) apiStatus(w http.ResponseWriter, r *http.Request) {
	ids, err := statusIDs(r.URL.Query().Get("documents"))
	if err != nil {
		s.apiDocFail(w, r, err)
		return
	}
	ctx := r.Context()
	out := runStatus{Documents: []docStatus{}}
	if out.LastRun, err = store.LastCommittedRun(ctx, s.db); err != nil {
		s.apiFail(w, r, err)
		return
	}
	if out.Pending, err = store.PendingDocuments(ctx, s.db); err != nil {
		s.apiFail(w, r, err)
		return
	}
	out.IndexQueued = engine.QueuedIndexes(ctx, s.db)
	if s.runner != nil {
		out.Daemon, out.Running = true, s.runner.Running()
		next := s.runner.NextRun()
		if p := s.runner.PromptRun(); !p.IsZero() && (next.IsZero() || p.Before(next)) {
			next = p
		}
		if !next.IsZero() {
			in := max(0, int(time.Until(next).Round(time.Second)/time.Second))
			out.NextRun, out.NextRunIn = &next, &in
		}
	} else if out.Running, err = store.RunGoingOn(ctx, s.db); err != nil {
		s.apiFail(w, r, err)
		return
	}
	if len(ids) > 0 {
		st, err := store.DocumentStatuses(ctx, s.db, ids)
		if err != nil {
			s.apiFail(w, r, err)
			return
		}
		for _, id := range ids {
			if v, ok := st[id]; ok {
				out.Documents = append(out.Documents, docStatus{ID: id, Status: v})
			}
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// statusIDs reads ?documents=1,2,3: distinct positive ids, in order.
func statusIDs(v string) ([]int64, error) {
	var ids []int64
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		id, err := strconv.ParseInt(f, 10, 64)
		if err != nil || id <= 0 {
			return nil, problemf(errBadRequest, "documents: %q is not a document id; give ids separated by commas, e.g. documents=12,13", f)
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) > maxStatusDocs {
		return nil, problemf(errBadRequest, "documents: %d ids, at most %d per request", len(ids), maxStatusDocs)
	}
	return ids, nil
}

// pendingRefreshSeconds is how often a pending report reloads itself when
// scripts are off.
const pendingRefreshSeconds = 10

// waitWords says, for a page rendered now, when the next run is due (the
// words app.js then keeps current).
func (s *Server) waitWords(ctx context.Context) string {
	const after = "; this page shows the report when it commits."
	if s.runner == nil {
		if running, err := store.RunGoingOn(ctx, s.db); err == nil && running {
			return "A run is in progress" + after
		}
		return "Waiting for the next run" + after
	}
	if s.runner.Running() {
		return "A run is in progress" + after
	}
	next := s.runner.NextRun()
	if p := s.runner.PromptRun(); !p.IsZero() && (next.IsZero() || p.Before(next)) {
		next = p
	}
	if next.IsZero() {
		return "Waiting for the next run" + after
	}
	return "Waiting for the next run, " + aboutIn(time.Until(next)) + after
}

// aboutIn is a wait in words: "in about 8 s", "in about 4 min".
func aboutIn(d time.Duration) string {
	switch s := int(d.Round(time.Second) / time.Second); {
	case s <= 1:
		return "any moment now"
	case s < 90:
		return fmt.Sprintf("in about %d s", s)
	default:
		return fmt.Sprintf("in about %d min", (s+30)/60)
	}
}
