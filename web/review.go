package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/plagd/plagd/store"
)

// filterParams are the report page's filter parameters: an address with
// any of them shows those filters, one without shows the saved ones.
var filterParams = []string{"min", "exclude", "quotes", "bib", "blocks", "common", "words", "versions"}

func hasFilters(q url.Values) bool {
	for _, p := range filterParams {
		if _, ok := q[p]; ok {
			return true
		}
	}
	return false
}

// savedForm is the query a report's filters are saved as: canonical,
// without the source the text view focuses on.
func savedForm(rq reportQuery) string {
	rq.Source = 0
	return rq.values(true).Encode()
}

// parseSavedFilters reads saved filters back.
func parseSavedFilters(s string) (reportQuery, error) {
	q, err := url.ParseQuery(s)
	if err != nil {
		return reportQuery{}, err
	}
	return parseReportQuery(q)
}

// saveFilters is POST /documents/{id}/filters: the report opens with
// these filters (form field filters, a report query; "" for the defaults)
// from now on, for every teacher, with who saved them and when.
func (s *Server) saveFilters(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(r, "id")
	if !ok {
		s.pageError(w, r, problemf(errNotFound, "no document %q", r.PathValue("id")))
		return
	}
	rq, err := parseSavedFilters(r.PostForm.Get("filters"))
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	filters := savedForm(rq)
	if err := s.audited(r, func(tx store.Querier) error {
		return store.SaveReportFilters(r.Context(), tx, id, filters, who(r).User.Name)
	}); err != nil {
		s.pageError(w, r, reviewError(err))
		return
	}
	done := "Filters saved: the report opens with them for every teacher."
	if filters == "" {
		done = "Back to the default filters for every teacher."
	}
	http.Redirect(w, r, fmt.Sprintf("/documents/%d?done=%s#review", id, url.QueryEscape(done)), http.StatusSeeOther)
}

// reviewReport is POST /documents/{id}/review: marks the report reviewed
// (reviewed=1) or withdraws the mark (reviewed=0), with a note.
func (s *Server) reviewReport(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(r, "id")
	if !ok {
		s.pageError(w, r, problemf(errNotFound, "no document %q", r.PathValue("id")))
		return
	}
	reviewed, err := anyFlag(r.PostForm, "reviewed", true)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	note := strings.TrimSpace(r.PostForm.Get("note"))
	if err := s.audited(r, func(tx store.Querier) error {
		return store.SetReportReviewed(r.Context(), tx, id, reviewed, note, who(r).User.Name)
	}); err != nil {
		s.pageError(w, r, reviewError(err))
		return
	}
	done := "Marked as reviewed."
	if !reviewed {
		done = "Review withdrawn."
	}
	http.Redirect(w, r, fmt.Sprintf("/documents/%d?done=%s#review", id, url.QueryEscape(done)), http.StatusSeeOther)
}

// reviewError maps the store's errors to what the user is told.
func reviewError(err error) error {
	switch {
	case errors.Is(err, store.ErrNoDocument):
		return documentError(err)
	case errors.Is(err, store.ErrReviewTooLong):
		return problemf(errBadRequest, "%s", err.Error())
	}
	return err
}

// reviewBody is the JSON of PUT /api/v1/documents/{id}/review: the fields
// given are changed, the others kept.
type reviewBody struct {
	Filters  *string `json:"filters"`
	Reviewed *bool   `json:"reviewed"`
	Note     *string `json:"note"`
}

// apiGetReview is GET /api/v1/documents/{id}/review: the saved filters
// and the review mark, with who and when.
func (s *Server) apiGetReview(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(r, "id")
	if !ok {
		s.apiFail(w, r, noDocument(r.PathValue("id")))
		return
	}
	if _, err := store.GetDocument(r.Context(), s.db, id); err != nil {
		s.apiFail(w, r, documentError(err))
		return
	}
	rv, err := store.GetReportReview(r.Context(), s.db, id)
	if err != nil {
		s.apiFail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, rv)
}

// apiPutReview is PUT /api/v1/documents/{id}/review.
func (s *Server) apiPutReview(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(r, "id")
	if !ok {
		s.apiFail(w, r, noDocument(r.PathValue("id")))
		return
	}
	var b reviewBody
	if err := decodeJSON(r, &b, true); err != nil {
		s.apiFail(w, r, err)
		return
	}
	ctx, name := r.Context(), who(r).User.Name
	err := s.audited(r, func(tx store.Querier) error {
		if b.Filters != nil {
			rq, err := parseSavedFilters(*b.Filters)
			if err != nil {
				return err
			}
			if err := store.SaveReportFilters(ctx, tx, id, savedForm(rq), name); err != nil {
				return err
			}
		}
		if b.Reviewed != nil || b.Note != nil {
			cur, err := store.GetReportReview(ctx, tx, id)
			if err != nil {
				return err
			}
			reviewed, note := cur.Reviewed, cur.Note
			if b.Reviewed != nil {
				reviewed = *b.Reviewed
			}
			if b.Note != nil {
				note = strings.TrimSpace(*b.Note)
			}
			return store.SetReportReviewed(ctx, tx, id, reviewed, note, name)
		}
		return nil
	})
	if err != nil {
		s.apiFail(w, r, reviewError(err))
		return
	}
	s.apiGetReview(w, r)
}
