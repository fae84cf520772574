package web

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/plagd/plagd/audit"
	"github.com/plagd/plagd/auth"
	"github.com/plagd/plagd/ingest"
	"github.com/plagd/plagd/internal/safetext"
	"github.com/plagd/plagd/store"
)

// The audit log in the web server: every change that decides who may read
// what or sign in (the restricted flag, deletions, roles, passwords, user
// status, API tokens) is made in a transaction bound to the caller
// (audit.Run), whose triggers record it; the rows written are logged here,
// and admins read them on /audit and from GET /api/v1/audit.

// actor is the caller of r as the audit log records them.
func (s *Server) actor(r *http.Request) audit.Actor {
	u := who(r).User
	return audit.Actor{UserID: u.ID, Name: u.Name, IP: clientIP(r)}
}

// audited runs fn in a transaction recorded as the caller's, and logs the
// audit rows it wrote once it has committed.
func (s *Server) audited(r *http.Request, fn func(tx store.Querier) error) error {
	entries, err := s.db.Audited(r.Context(), s.actor(r), fn)
	if err != nil {
		return err
	}
	s.logAudit(entries)
	return nil
}

// auditedTx is audited as the transaction package ingest stores a
// document in.
func (s *Server) auditedTx(r *http.Request) ingest.Tx {
	return func(_ context.Context, fn func(q store.Querier) error) error { return s.audited(r, fn) }
}

// usersAs is the user store acting as the caller of r.
func (s *Server) usersAs(r *http.Request) *auth.Store {
	return s.users.As(s.actor(r), s.logAudit)
}

// logAudit writes one log line per audit row: actor, action and target.
func (s *Server) logAudit(entries []audit.Entry) {
	for _, e := range entries {
		s.log.Info().Int64("audit_id", e.ID).Str("actor", e.Actor).Str("action", e.Action).
			Str("target", e.Target()).Str("target_label", safetext.Line(e.TargetLabel, 120)).
			RawJSON("details", e.Details).Str("ip", e.ClientIP).Msg("audit")
	}
}

// checkRestrictedChange locks document id in tx and refuses a change of its
// restricted flag that the caller may not make. Admins may set and clear
// it. Everyone else who may edit documents (staff) may set it, which only
// hides a text, but never clear it: clearing it would let them read the
// text (issue 14: unrestrict, read, restrict again). want nil is no change.
func checkRestrictedChange(ctx context.Context, tx store.Querier, p principal, id int64, want *bool) error {
	if want == nil {
		return nil
	}
	current, err := store.LockRestricted(ctx, tx, id)
	if err != nil {
		return err
	}
	if *want || !current || p.seesRestricted() {
		return nil
	}
	return problemf(errForbidden, "document %d is restricted, and only an admin may lift the restriction "+
		"(you are %s, %s: you may restrict documents, not unrestrict them); nothing was changed", id, p.User.Name, p.User.Role)
}

// auditPageSize is the number of entries per page of /audit.
const auditPageSize = 50

// auditFilter reads the filters of /audit and GET /api/v1/audit:
// ?action= (a code, or a prefix such as "user."), ?target= ("document 12",
// "user 3", or just a kind) or ?target_kind= and ?target_id=, ?limit= and
// ?offset=.
func auditFilter(q url.Values) (audit.Filter, error) {
	var f audit.Filter
	var err error
	if f.Limit, f.Offset, err = pageParams(q); err != nil {
		return f, err
	}
	f.Action = strings.ToLower(strings.TrimSpace(q.Get("action")))
	if f.Action != "" && !slices.Contains(audit.Actions, f.Action) &&
		!(strings.HasSuffix(f.Action, ".") && slices.Contains(audit.TargetKinds, strings.TrimSuffix(f.Action, "."))) {
		return f, problemf(errBadRequest, "action %q is not an audit action: use one of %s, or a kind followed by a dot (document., user., token.)",
			safetext.Line(q.Get("action"), 60), strings.Join(audit.Actions, ", "))
	}
	kind, id := strings.TrimSpace(q.Get("target_kind")), strings.TrimSpace(q.Get("target_id"))
	if t := strings.Fields(q.Get("target")); len(t) > 0 {
		kind, id = t[0], ""
		if len(t) > 1 {
			id = t[1]
		}
		if len(t) > 2 {
			return f, problemf(errBadRequest, "target %q: give a kind and an id, such as \"document 12\"", safetext.Line(q.Get("target"), 60))
		}
	}
	f.TargetKind = strings.ToLower(kind)
	if f.TargetKind != "" && !slices.Contains(audit.TargetKinds, f.TargetKind) {
		return f, problemf(errBadRequest, "target kind %q is not one of %s", safetext.Line(kind, 60), strings.Join(audit.TargetKinds, ", "))
	}
	if id != "" {
		n, err := strconv.ParseInt(strings.TrimPrefix(id, "#"), 10, 64)
		if err != nil || n <= 0 || f.TargetKind == "" {
			return f, problemf(errBadRequest, "target id %q: give a positive number, with a target kind (document, user or token)", safetext.Line(id, 60))
		}
		f.TargetID = n
	}
	return f, nil
}

// auditList is the answer of GET /api/v1/audit.
type auditList struct {
	Entries    []audit.Entry `json:"entries"`
	Limit      int           `json:"limit"`
	Offset     int           `json:"offset"`
	NextOffset *int          `json:"next_offset"`
}

func (s *Server) apiAudit(w http.ResponseWriter, r *http.Request) {
	f, err := auditFilter(r.URL.Query())
	if err != nil {
		s.apiFail(w, r, err)
		return
	}
	entries, more, err := audit.List(r.Context(), s.db, f)
	if err != nil {
		s.apiFail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, auditList{Entries: entries, Limit: f.Limit, Offset: f.Offset, NextOffset: nextOffset(more, f.Offset, len(entries))})
}

// auditData is the admin's audit page.
type auditData struct {
	pageBase
	Entries    []audit.Entry
	Actions    []string
	Action     string // the filters, echoed into the form
	Target     string
	Prev, Next string // links to the neighbouring pages, "" at the ends
}

func (s *Server) auditPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("limit") == "" {
		q.Set("limit", strconv.Itoa(auditPageSize))
	}
	f, err := auditFilter(q)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	entries, more, err := audit.List(r.Context(), s.db, f)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	d := auditData{pageBase: s.base(r, "Audit log"), Entries: entries, Actions: audit.Actions,
		Action: f.Action, Target: strings.TrimSpace(f.TargetKind + " " + idOrEmpty(f.TargetID))}
	link := func(offset int) string {
		v := url.Values{}
		if d.Action != "" {
			v.Set("action", d.Action)
		}
		if d.Target != "" {
			v.Set("target", d.Target)
		}
		if offset > 0 {
			v.Set("offset", strconv.Itoa(offset))
		}
		if len(v) == 0 {
			return "/audit"
		}
		return "/audit?" + v.Encode()
	}
	if more {
		d.Next = link(f.Offset + len(entries))
	}
	if f.Offset > 0 {
		d.Prev = link(max(f.Offset-f.Limit, 0))
	}
	s.render(w, r, http.StatusOK, "audit", d)
}

func idOrEmpty(id int64) string {
	if id == 0 {
		return ""
	}
	return strconv.FormatInt(id, 10)
}
