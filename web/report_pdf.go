package web

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"

	"github.com/plagd/plagd/report"
	"github.com/plagd/plagd/reportpdf"
	"github.com/plagd/plagd/store"
)

// reportPDFPage is GET /documents/{id}/report.pdf: the report as the
// query filters it (the page's own filters), printed by the server.
func (s *Server) reportPDFPage(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(r, "id")
	if !ok {
		s.pageError(w, r, problemf(errNotFound, "no document %q: document ids are positive numbers", r.PathValue("id")))
		return
	}
	rq, err := parseReportQuery(r.URL.Query())
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	doc, err := store.GetDocument(r.Context(), s.db, id)
	if err != nil {
		s.pageError(w, r, documentError(err))
		return
	}
	raw, err := s.rawReport(r.Context(), id, !rq.Common)
	if errors.Is(err, report.ErrNoText) {
		s.pageError(w, r, problemf(errConflict, "document %d has no report to print: %s", id, noReportReason(doc)))
		return
	}
	if err == nil {
		raw, err = freshen(r.Context(), s.db, raw)
	}
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	s.writeReportPDF(w, r, raw, rq, false)
}

// apiReportPDF is GET /api/v1/documents/{id}/report.pdf: the same file.
func (s *Server) apiReportPDF(w http.ResponseWriter, r *http.Request) {
	rq, err := parseReportQuery(r.URL.Query())
	if err != nil {
		s.apiReportFail(w, r, err)
		return
	}
	_, raw, ok := s.apiDocReport(w, r, rq)
	if !ok {
		return
	}
	s.writeReportPDF(w, r, raw, rq, true)
}

// writeReportPDF filters the raw report as rq asks (or as the saved
// filters do, when the address names none) and answers with the PDF,
// which says whether the report was reviewed.
func (s *Server) writeReportPDF(w http.ResponseWriter, r *http.Request, raw report.Report, rq reportQuery, api bool) {
	p := who(r)
	review, err := store.GetReportReview(r.Context(), s.db, raw.Doc)
	if err != nil {
		s.failPDF(w, r, api, err)
		return
	}
	if !hasFilters(r.URL.Query()) && review.Filters != "" {
		if saved, err := parseSavedFilters(review.Filters); err == nil {
			rq = saved
		}
	}
	rq.VersionIDs = raw.Versions() // left out of the figures unless versions=1
	rep := raw.Filter(rq.filter())
	index, err := s.indexOf(r.Context(), raw, rq, rep)
	if err != nil {
		s.failPDF(w, r, api, err)
		return
	}
	h := reportHeader(rep)
	b, err := reportpdf.Render(reportpdf.Input{
		Report:       rep,
		Name:         h.Name(),
		SourceName:   func(src report.SourceReport) string { return sourceHeader(src).Name() },
		Exclusions:   withVersions(withWords(exclusionNote(rq.exclusions()), rq.Words), rq),
		GeneratedBy:  p.User.Name,
		GeneratedAt:  s.now(),
		TextHidden:   rep.Restricted && !p.seesRestricted(),
		SourceHidden: func(src report.SourceReport) bool { return src.Restricted && !p.seesRestricted() },
		Review:       reviewLine(review),
		Default:      rq.isDefault(),
		Index:        index,
	})
	if err != nil {
		if errors.Is(err, reportpdf.ErrTooLong) {
			err = problemf(errConflict, "%s", err.Error())
		}
		s.failPDF(w, r, api, err)
		return
	}
	w.Header().Set("Content-Type", "application/pdf")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`inline; filename="%s"`, pdfName(rep.Doc, h.Name())))
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	_, _ = w.Write(b)
}

func (s *Server) failPDF(w http.ResponseWriter, r *http.Request, api bool, err error) {
	if api {
		s.apiReportFail(w, r, err)
	} else {
		s.pageError(w, r, err)
	}
}

// reviewLine says whether the report was reviewed, for the print.
func reviewLine(rv store.ReportReview) string {
	if !rv.Reviewed || rv.ReviewedAt == nil {
		return "Not marked as reviewed."
	}
	line := fmt.Sprintf("Reviewed by %s, %s", rv.ReviewedBy, rv.ReviewedAt.UTC().Format("2 January 2006, 15:04 UTC"))
	if rv.Note != "" {
		line += ": " + rv.Note
	}
	return line + "."
}

// withVersions adds the near-duplicates left out to the words of the
// exclusions.
func withVersions(note string, rq reportQuery) string {
	if rq.Versions || len(rq.VersionIDs) == 0 {
		return note
	}
	v := "earlier versions and near-duplicates"
	if note == "" {
		return v
	}
	return note + "; " + v
}

// noReportReason says why a document has no report, in the words the
// report page uses.
func noReportReason(doc store.Document) string {
	switch doc.Status {
	case "failed":
		return "its text could not be read (" + doc.Error + ")"
	case "deleted":
		return "it is deleted"
	}
	return "it has not been indexed yet; the next run indexes it"
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// pdfName is the file name a browser saves the report under.
func pdfName(id int64, name string) string {
	n := unsafeName.ReplaceAllString(name, "-")
	if len(n) > 60 {
		n = n[:60]
	}
	return fmt.Sprintf("plagd-report-%d-%s.pdf", id, n)
}
