package web

import (
	"context"
	"net/http"
	"strconv"

	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/store"
)

// Related documents by topic (issue 8): each run stores, per indexed
// document, the related.k documents whose TF-IDF vectors (stemmed words,
// stop words left out) have the highest cosine with its own. Sharing
// vocabulary is not sharing text, so the report page shows them after the
// sources, as a lead to read further, never as a figure of copying. Like
// near-duplicates they carry headers and a cosine only, never texts: a
// restricted document is listed for every role and flagged, as a
// restricted source is in a report's table.

// relatedFailed is the message for a related-documents read that failed:
// the database's error is logged, the caller learns only that it failed.
const relatedFailed = "the related documents could not be read (the server log has the details)"

// maxRelatedK bounds ?k= of the related route: related.k is at most 100
// too, so no run stores more.
const maxRelatedK = 100

// relatedResult is a document's related documents, best first, and why
// they could not be read ("" when they were). A failed read never fails
// the report that asked for it.
type relatedResult struct {
	List []engine.RelatedDoc
	Err  string
}

// relatedOf reads the stored related documents of id (all of them, at
// most related.k).
func (s *Server) relatedOf(ctx context.Context, id int64) relatedResult {
	list, err := engine.Related(ctx, s.db.Pool, id, s.cfg.Related.K)
	if err != nil {
		s.errEvent(ctx, err).Int64("doc", id).Msg("related documents of a document")
		return relatedResult{List: []engine.RelatedDoc{}, Err: relatedFailed}
	}
	return relatedResult{List: nonNil(list)}
}

// ---- the view ----

// relatedRow is one related document on the report page.
type relatedRow struct {
	docHeader
	Cosine float64
	Link   string // its report
}

// relatedSection is the "Related documents (by topic)" panel of a stored
// document's report page.
type relatedSection struct {
	Rows  []relatedRow
	Error string
	// Unindexed: the document has not been through a run yet, so nothing
	// was computed: not the same as "none related".
	Unindexed bool
	// Kept: a partial=1 region, whose filters cannot change the panel: it
	// is an empty placeholder and report.js keeps the panel on the page
	// instead of reading it again.
	Kept bool
}

// relatedView lays out res for the report page; indexed says whether a run
// has indexed the document (it has a report).
func relatedView(res relatedResult, indexed bool) *relatedSection {
	v := &relatedSection{Error: res.Err, Unindexed: !indexed}
	for _, d := range res.List {
		v.Rows = append(v.Rows, relatedRow{docHeader: docHeader{ID: d.ID, Header: d.Header}, Cosine: d.Cosine,
			Link: "/documents/" + strconv.FormatInt(d.ID, 10)})
	}
	return v
}

// ---- the JSON API ----

// relatedList is GET /api/v1/documents/{id}/related.
type relatedList struct {
	DocumentID int64               `json:"document_id"`
	K          int                 `json:"k"` // the most asked for; runs store related.k
	Related    []engine.RelatedDoc `json:"related"`
}

// relatedK reads ?k=: 1 to maxRelatedK, default related.k.
func (s *Server) relatedK(r *http.Request) (int, error) {
	q := r.URL.Query().Get("k")
	if q == "" {
		return s.cfg.Related.K, nil
	}
	k, err := strconv.Atoi(q)
	if err != nil || k < 1 || k > maxRelatedK {
		return 0, problemf(errBadRequest, "k=%q: k is the number of related documents wanted, 1 to %d (default related.k, %d; runs store %d per document)",
			q, maxRelatedK, s.cfg.Related.K, s.cfg.Related.K)
	}
	return k, nil
}

// apiRelated lists the related documents of document {id}, best first.
func (s *Server) apiRelated(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(r, "id")
	if !ok {
		s.apiDocFail(w, r, noDocument(r.PathValue("id")))
		return
	}
	k, err := s.relatedK(r)
	if err != nil {
		s.apiDocFail(w, r, err)
		return
	}
	ctx := r.Context()
	if _, err := store.GetDocument(ctx, s.db, id); err != nil {
		s.apiDocFail(w, r, err)
		return
	}
	list, err := engine.Related(ctx, s.db.Pool, id, k)
	if err != nil {
		s.apiDocFail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, relatedList{DocumentID: id, K: k, Related: nonNil(list)})
}
