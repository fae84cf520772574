package web

import (
	"errors"
	"net/http"
	"slices"

	"github.com/plagd/plagd/archive"
	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/passage"
	"github.com/plagd/plagd/report"
	"github.com/plagd/plagd/store"
)

// The report routes of the JSON API. Offsets are byte offsets into the
// UTF-8 texts, as the daemon reports them. Texts of restricted documents
// are sent to admins only: for anyone else "text" is left out and
// "text_withheld" is true, while figures, passages' offsets and headers
// stay.

// apiReportBody is a report as the API sends it: report.Report's fields
// (doc, external_id, title, author, kind, year, restricted, coverage,
// chunks, excluded, sources) plus the texts the caller may read, the
// filter applied, and for a document its status.
type apiReportBody struct {
	report.Report
	Status       string          `json:"status,omitempty"`   // the document's: indexed or pending (a check has none)
	Filename     string          `json:"filename,omitempty"` // a check's file name
	Text         string          `json:"text,omitempty"`
	TextWithheld bool            `json:"text_withheld,omitempty"`
	Sources      []apiSourceBody `json:"sources"`
	Filter       report.Filter   `json:"filter"`
	// SimilarityIndex is the document's similarity index (report.Index):
	// coverage under the default filters, which equals Coverage when the
	// filter is the default one; null when not known (a check, or a
	// document whose index a run is still computing, asked with common
	// text counted).
	SimilarityIndex *float64 `json:"similarity_index"`
	// Versions are the sources taken for earlier versions or
	// near-duplicates (report.IsVersion): listed apart and, unless
	// versions=1, left out of the figures (and so in filter.exclude_sources).
	Versions []int64 `json:"versions,omitempty"`
	// NearDuplicates are the documents within neardup.distance bits of
	// the text (headers only, restricted ones flagged), nearest first,
	// whatever the filter; empty when none (or, for a document, when it
	// has no hash yet: GET .../near-duplicates says which).
	NearDuplicates      []engine.NearDuplicate `json:"near_duplicates"`
	NearDuplicatesError string                 `json:"near_duplicates_error,omitempty"`
}

// withNearDups adds a near-duplicate query's answer to a report.
func (b apiReportBody) withNearDups(res nearDupResult) apiReportBody {
	b.NearDuplicates, b.NearDuplicatesError = nonNil(res.List), res.Err
	return b
}

// apiDocReportBody is a stored document's report: a check's fields plus
// its related documents by topic (a check's text is in no run, so it has
// none and the field is left out rather than sent empty).
type apiDocReportBody struct {
	apiReportBody
	// Related are the stored related documents (headers and cosine,
	// restricted ones flagged), best first, whatever the filter; empty
	// when none (a report exists only once a run has indexed the document,
	// and that run computed them).
	Related      []engine.RelatedDoc `json:"related"`
	RelatedError string              `json:"related_error,omitempty"`
}

// apiSourceBody is one source: report.SourceReport's fields plus its text
// when the caller may read it.
type apiSourceBody struct {
	report.SourceReport
	Text         string `json:"text,omitempty"`
	TextWithheld bool   `json:"text_withheld,omitempty"`
}

// reportBody builds the API's report from a filtered report whose headers
// are current; ownText says whether the caller may read the document's own
// text (a restricted document's, or always for a check), admin whether it
// reads restricted sources.
func reportBody(rep report.Report, f report.Filter, ownText, admin bool) apiReportBody {
	if f.ExcludeSources == nil {
		f.ExcludeSources = []int64{}
	}
	b := apiReportBody{Report: rep, Filter: f, Sources: make([]apiSourceBody, len(rep.Sources))}
	if ownText {
		b.Text = rep.Text
	} else {
		b.TextWithheld = true
	}
	for i, s := range rep.Sources {
		b.Sources[i] = apiSourceBody{SourceReport: s}
		if !s.Restricted || admin {
			b.Sources[i].Text = s.Text
		} else {
			b.Sources[i].TextWithheld = true
		}
	}
	return b
}

// apiReportFail writes the errors of the report routes as JSON.
func (s *Server) apiReportFail(w http.ResponseWriter, r *http.Request, err error) {
	status, code := checkStatus(err)
	msg := err.Error()
	switch {
	case status == http.StatusInternalServerError:
		s.internalError(w, r, true, err)
		return
	case errors.Is(err, engine.ErrNoIndex):
		s.log.Warn().Err(err).Msg("check refused: no index")
		msg = noIndexMessage
	}
	apiError(w, status, code, msg)
}

// apiDocReport reads document {id}'s raw report with current headers, or
// says why there is none (404 no such document, 409 no_report).
func (s *Server) apiDocReport(w http.ResponseWriter, r *http.Request, rq reportQuery) (store.Document, report.Report, bool) {
	id, ok := pathID(r, "id")
	if !ok {
		s.apiReportFail(w, r, noDocument(r.PathValue("id")))
		return store.Document{}, report.Report{}, false
	}
	ctx := r.Context()
	doc, err := store.GetDocument(ctx, s.db, id)
	if err != nil {
		s.apiReportFail(w, r, documentError(err))
		return doc, report.Report{}, false
	}
	var raw report.Report
	switch doc.Status {
	case "failed":
		err = problemf(report.ErrNoText, "document %d has no report: its text could not be read: %s", id, doc.Error)
	case "deleted":
		err = problemf(report.ErrNoText, "document %d has no report: it is deleted", id)
	default:
		raw, err = s.rawReport(ctx, id, !rq.Common)
		if errors.Is(err, report.ErrNoText) {
			err = problemf(report.ErrNoText, "document %d has no report yet: the next run indexes it", id)
		}
	}
	if errors.Is(err, report.ErrNoText) {
		apiError(w, http.StatusConflict, "no_report", err.Error())
		return doc, raw, false
	}
	if err == nil {
		raw, err = freshen(ctx, s.db, raw)
	}
	if err != nil {
		s.apiReportFail(w, r, err)
		return doc, raw, false
	}
	return doc, raw, true
}

// apiReport is GET /api/v1/documents/{id}/report: the report with its
// passages, filtered by the query string as the page is (min, exclude,
// quotes, bib, blocks, common).
func (s *Server) apiReport(w http.ResponseWriter, r *http.Request) {
	rq, err := parseReportQuery(r.URL.Query())
	if err != nil {
		s.apiReportFail(w, r, err)
		return
	}
	doc, raw, ok := s.apiDocReport(w, r, rq)
	if !ok {
		return
	}
	admin := who(r).seesRestricted()
	near, _ := s.nearDupsOf(r.Context(), doc.ID)
	rq.VersionIDs = raw.Versions() // left out of the figures unless versions=1
	f := rq.filter()
	filtered := raw.Filter(f)
	b := reportBody(filtered, f, !raw.Restricted || admin, admin)
	b.Status = doc.Status
	b.Versions = nonNil(rq.VersionIDs)
	if b.SimilarityIndex, err = s.indexOf(r.Context(), raw, rq, filtered); err != nil {
		s.apiReportFail(w, r, err)
		return
	}
	rel := s.relatedOf(r.Context(), doc.ID)
	writeJSON(w, http.StatusOK, apiDocReportBody{apiReportBody: b.withNearDups(near), Related: rel.List, RelatedError: rel.Err})
}

// apiDocHead is a document's header in a pair report.
type apiDocHead struct {
	ID int64 `json:"id"`
	archive.Header
	TextWithheld bool `json:"text_withheld,omitempty"` // the excerpts of this side are left out
}

func apiHead(h docHeader, withheld bool) apiDocHead {
	return apiDocHead{ID: h.ID, Header: h.Header, TextWithheld: withheld}
}

// apiPairBody is the report of a document and one of its sources.
type apiPairBody struct {
	Document       apiDocHead         `json:"document"`
	Source         apiDocHead         `json:"source"`
	Rank           int                `json:"rank"`            // the source's place in the document's list, from 1
	Similarity     float64            `json:"similarity"`      // document → source
	Reverse        float64            `json:"reverse"`         // source → document
	Shared         int                `json:"shared_chunks"`   // chunks the two share
	CoverageDoc    float64            `json:"coverage_doc"`    // share of the document in the passages
	CoverageSource float64            `json:"coverage_source"` // share of the source in the passages
	Exclusions     passage.Exclusions `json:"exclusions"`
	Passages       []apiPairPassage   `json:"passages"`
}

// apiPairPassage is one aligned passage: its offsets in both texts
// (passage.Passage: a_* in the document, b_* in the source) and the text
// of each side the caller may read.
type apiPairPassage struct {
	passage.Passage
	DocText    string `json:"doc_text,omitempty"`
	SourceText string `json:"source_text,omitempty"`
}

// apiPairReport is GET /api/v1/documents/{id}/report/{other}: document
// {id} and its source {other} side by side (quotes, bib, blocks apply).
func (s *Server) apiPairReport(w http.ResponseWriter, r *http.Request) {
	rq, err := parseReportQuery(r.URL.Query())
	if err != nil {
		s.apiReportFail(w, r, err)
		return
	}
	other, ok := pathID(r, "other")
	if !ok {
		s.apiReportFail(w, r, noDocument(r.PathValue("other")))
		return
	}
	_, raw, ok := s.apiDocReport(w, r, rq)
	if !ok {
		return
	}
	rank := slices.IndexFunc(raw.Sources, func(x report.SourceReport) bool { return x.ID == other })
	if rank < 0 {
		s.apiReportFail(w, r, problemf(errNotFound, "document %d is not among the sources of document %d (GET /api/v1/documents/%d/similar lists them)",
			other, raw.Doc, raw.Doc))
		return
	}
	ex := rq.exclusions()
	f := raw.Filter(report.Filter{Exclusions: ex})
	src := f.Sources[slices.IndexFunc(f.Sources, func(x report.SourceReport) bool { return x.ID == other })]
	admin := who(r).seesRestricted()
	seeDoc, seeSrc := !f.Restricted || admin, !src.Restricted || admin
	b := apiPairBody{Document: apiHead(reportHeader(f), !seeDoc), Source: apiHead(sourceHeader(src), !seeSrc),
		Rank: rank + 1, Similarity: src.Similarity, Reverse: src.Reverse, Shared: src.Shared,
		CoverageDoc: src.CoverageA, CoverageSource: src.CoverageB, Exclusions: ex,
		Passages: make([]apiPairPassage, len(src.Passages))}
	for i, p := range src.Passages {
		b.Passages[i] = apiPairPassage{Passage: p}
		if seeDoc {
			b.Passages[i].DocText = f.Text[p.AStart:p.AEnd]
		}
		if seeSrc {
			b.Passages[i].SourceText = src.Text[p.BStart:p.BEnd]
		}
	}
	writeJSON(w, http.StatusOK, b)
}

// apiCheck is POST /api/v1/check: a file (multipart field "file"), a
// pasted text (multipart or form field "text") or JSON {"text": "...",
// "filename": "..."} checked against the archive and reported, filtered by
// the query string, with its near-duplicates; nothing is stored.
func (s *Server) apiCheck(w http.ResponseWriter, r *http.Request) {
	rq, err := parseReportQuery(r.URL.Query())
	if err != nil {
		s.apiReportFail(w, r, err)
		return
	}
	read, filename, err := s.checkInput(r, true)
	if err != nil {
		s.apiReportFail(w, r, err)
		return
	}
	raw, err := s.checkReport(r.Context(), read)
	if err == nil {
		raw, err = freshen(r.Context(), s.db, raw)
	}
	if err != nil {
		s.apiReportFail(w, r, err)
		return
	}
	f := rq.filter()
	b := reportBody(raw.Filter(f), f, true, who(r).seesRestricted())
	b.Filename = filename
	b = b.withNearDups(s.checkNearDups(r.Context(), read.Text))
	s.log.Info().Str("user", who(r).User.Name).Str("file", filename).Int("sources", len(raw.Sources)).
		Int("near_duplicates", len(b.NearDuplicates)).Msg("check (API)")
	writeJSON(w, http.StatusOK, b)
}
