package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/plagd/plagd/archive"
	"github.com/plagd/plagd/disguise"
	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/extract"
	"github.com/plagd/plagd/report"
	"github.com/plagd/plagd/store"
)

// errUnprocessable is a check whose file yields no text: 422, with the
// extractor's reason.
var errUnprocessable = errors.New("unprocessable")

// noIndexMessage is what a check says before the first run has committed.
const noIndexMessage = "no run has committed yet; the archive index is being built. Try again once the first run has finished (see Runs)."

// checkStatus maps the errors of the report and check handlers to a status
// and an error code.
func checkStatus(err error) (int, string) {
	switch {
	case errors.Is(err, errUnprocessable):
		return http.StatusUnprocessableEntity, "unprocessable"
	case errors.Is(err, errTooLarge):
		return http.StatusRequestEntityTooLarge, "too_large"
	case errors.Is(err, engine.ErrNoIndex):
		return http.StatusServiceUnavailable, "no_index"
	case errors.Is(err, store.ErrNoDocument):
		return http.StatusNotFound, "not_found"
	case errors.Is(err, errUnsupportedType):
		return http.StatusUnsupportedMediaType, "unsupported_media_type"
	}
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return http.StatusRequestEntityTooLarge, "too_large"
	}
	return errorStatus(err)
}

// lastRun is the id of the last committed run (0: none yet): reports are
// cached per run, since a run may change texts and similarity lists.
func (s *Server) lastRun(ctx context.Context) (int64, error) {
	return store.LastCommittedRun(ctx, s.db)
}

// rawReport is the raw report of a stored document (all its sources, no
// exclusions), from the cache when the last committed run made it.
// report.ErrNoText when the document has no stored text.
func (s *Server) rawReport(ctx context.Context, id int64, countCommon bool) (report.Report, error) {
	run, err := s.lastRun(ctx)
	if err != nil {
		return report.Report{}, err
	}
	return s.reports.get(ctx, reportKey{doc: id, run: run, common: countCommon}, func(ctx context.Context) (report.Report, error) {
		opt := report.Options{CountCommon: countCommon}
		// Show the common text, and leave it out as the similarities do
		// unless the teacher counts it; without the index at hand, nothing
		// is known to be common.
		ct, err := s.engine.CommonText(ctx)
		if err != nil {
			s.log.Warn().Err(err).Int64("doc", id).Msg("report: common text is not known: the index cannot be loaded")
		}
		ct.Apply(&opt)
		start := time.Now()
		rep, err := engine.Passages(ctx, s.db.Pool, s.cfg, id, 0, opt)
		if err == nil {
			s.log.Debug().Int64("doc", id).Int("sources", len(rep.Sources)).Dur("took_ms", time.Since(start)).Msg("report aligned")
		}
		return rep, err
	})
}

// renderRegion writes only the filtered part of a report page (partial=1),
// for report.js to swap in.
func (s *Server) renderRegion(w http.ResponseWriter, r *http.Request, v reportView) {
	t, ok := s.pages["report"]
	if !ok {
		http.Error(w, "page template missing: report", http.StatusInternalServerError)
		return
	}
	if v.Region != nil {
		v.Region.Partial = true
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "report-region", v); err != nil {
		s.errEvent(r.Context(), err).Str("path", r.URL.Path).Msg("render report region")
		http.Error(w, "the report could not be rendered; the server log has the details", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = buf.WriteTo(w)
}

func (s *Server) showReport(w http.ResponseWriter, r *http.Request, v reportView) {
	if r.URL.Query().Get("partial") == "1" {
		s.renderRegion(w, r, v)
		return
	}
	s.render(w, r, http.StatusOK, "report", v)
}

// reportPage is the report of a stored document: the page a teacher opens.
func (s *Server) reportPage(w http.ResponseWriter, r *http.Request) {
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
	ctx := r.Context()
	doc, err := store.GetDocument(ctx, s.db, id)
	if err != nil {
		s.pageError(w, r, documentError(err))
		return
	}
	review, err := store.GetReportReview(ctx, s.db, id)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	usingSaved := false
	if !hasFilters(r.URL.Query()) && review.Filters != "" {
		// The filters a teacher saved, unless the address asks for others.
		if saved, err := parseSavedFilters(review.Filters); err == nil {
			saved.Source = rq.Source
			rq, usingSaved = saved, true
		}
	}
	h := docHeader{ID: doc.ID, Header: doc.Head()}
	base := s.base(r, h.Name())
	v := reportView{pageBase: base, Base: "/documents/" + strconv.FormatInt(id, 10), Doc: h, Status: doc.Status,
		Error: doc.Error, Filename: doc.Filename, Q: rq, Edit: base.Can("staff"), Print: s.now(),
		Review: &review, SavedInUse: usingSaved, FiltersNow: savedForm(rq), Done: r.URL.Query().Get("done")}
	switch doc.Status {
	case "failed":
		v.NoReport = "The text of this document could not be read, so it has no report. The reason:"
	case "deleted":
		v.NoReport = "This document is deleted: the next run removes it from the index and from every report."
	}
	if doc.Status == "pending" {
		v.Wait = s.waitWords(ctx)
		v.Refresh = pendingRefreshSeconds
	}
	var sources []report.SourceReport // the report's, for the near-duplicates' side-by-side links
	var near nearDupResult
	checked := false
	if doc.Status == "indexed" || doc.Status == "pending" {
		near, checked = s.nearDupsOf(ctx, id)
	}
	if v.NoReport == "" {
		raw, err := s.rawReport(ctx, id, !rq.Common)
		switch {
		case errors.Is(err, report.ErrNoText):
			v.NoReport = "This document has not been indexed yet: the next run reads its text and finds its sources."
		case err != nil:
			s.pageError(w, r, err)
			return
		default:
			if doc.Status == "pending" {
				v.Notice = "The document changed after the last run: this report shows the version that run indexed. The next run updates it."
			}
			if raw, err = freshen(ctx, s.db, raw); err != nil {
				s.pageError(w, r, err)
				return
			}
			rq.VersionIDs = raw.Versions()
			v.Q = rq
			v.Region = buildRegion(raw, rq, v.Base, !h.Restricted || who(r).seesRestricted())
			if v.Region.Index == nil && doc.SimilarityIndex != nil {
				v.Region.Index = &doc.SimilarityIndex.Value
			}
			v.Flags = flagLines(raw.Flags)
			sources = raw.Sources
		}
	}
	if r.URL.Query().Get("partial") != "1" && (doc.Status == "indexed" || doc.Status == "pending") {
		v.NearDups = s.nearDupView(near, v.Base, sources, doc.Status == "pending")
		v.NearDups.Unchecked = !checked
	}
	if doc.Status == "indexed" || doc.Status == "pending" {
		if r.URL.Query().Get("partial") == "1" {
			v.Related = &relatedSection{Kept: true} // the filters do not change it: report.js keeps the page's
		} else {
			v.Related = relatedView(s.relatedOf(ctx, id), v.Region != nil)
		}
	}
	s.showReport(w, r, v)
}

// comparePage is the side-by-side view of a stored document and one of its
// sources.
func (s *Server) comparePage(w http.ResponseWriter, r *http.Request) {
	id, ok1 := pathID(r, "id")
	other, ok2 := pathID(r, "other")
	if !ok1 || !ok2 {
		s.pageError(w, r, problemf(errNotFound, "no such comparison: document ids are positive numbers"))
		return
	}
	rq, err := parseReportQuery(r.URL.Query())
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	ctx := r.Context()
	raw, err := s.rawReport(ctx, id, !rq.Common)
	if errors.Is(err, report.ErrNoText) {
		if _, gerr := store.GetDocument(ctx, s.db, id); gerr != nil {
			err = documentError(gerr)
		} else {
			err = problemf(errNotFound, "document %d has no report yet: it is pending, failed or deleted", id)
		}
	}
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	if raw, err = freshen(ctx, s.db, raw); err != nil {
		s.pageError(w, r, err)
		return
	}
	base := "/documents/" + strconv.FormatInt(id, 10)
	v, err := s.compareView(r, raw, other, rq, base, !raw.Restricted || who(r).seesRestricted())
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	v.Doc = reportHeader(raw)
	v.Title = v.Doc.Name() + " ↔ " + v.Src.Name()
	s.render(w, r, http.StatusOK, "compare", v)
}

// compareView lays out the side-by-side view of raw's document and its
// source other; base is the report page's path.
func (s *Server) compareView(r *http.Request, raw report.Report, other int64, rq reportQuery, base string, seeDoc bool) (compareView, error) {
	rank := -1
	for i, src := range raw.Sources {
		if src.ID == other {
			rank = i
		}
	}
	if rank < 0 {
		return compareView{}, problemf(errNotFound, "document %d is not among the sources of this report", other)
	}
	ex := rq.exclusions()
	f := raw.Filter(report.Filter{Exclusions: ex})
	var src report.SourceReport
	for _, x := range f.Sources {
		if x.ID == other {
			src = x
		}
	}
	seeSrc := !src.Restricted || who(r).seesRestricted()
	left, right, rows := buildCompare(f, src, rank, ex, seeDoc, seeSrc)
	cq := rq.values(false)
	back := rq
	back.Source = 0
	v := compareView{pageBase: s.base(r, ""), Back: withQuery(base, back.values(true)),
		Base: base + "/compare/" + strconv.FormatInt(other, 10),
		Src: sourceRow{docHeader: sourceHeader(src), Rank: rank + 1, Color: rank % paletteSize,
			Similarity: src.Similarity, Reverse: src.Reverse, Shared: src.Shared, Passages: len(src.Passages),
			CoverageA: src.CoverageA, CoverageB: src.CoverageB,
			Link:    "/documents/" + strconv.FormatInt(other, 10),
			Compare: withQuery(base+"/compare/"+strconv.FormatInt(other, 10), cq)},
		Q: rq, Exclusions: exclusionNote(ex), DocHidden: !seeDoc, SrcHidden: !seeSrc,
		Left: left, Right: right, Rows: rows}
	return v, nil
}

// checkFormView is the data of check.html.
type checkFormView struct {
	pageBase
	Error    string
	Text     string
	MaxBytes int64
	Formats  string
}

func (s *Server) checkFormData(r *http.Request) checkFormView {
	return checkFormView{pageBase: s.base(r, "Check a file"), MaxBytes: s.cfg.Extract.MaxBytes,
		Formats: ".pdf,.docx,.odt,.oth,.ott,.odm,.rtf,.html,.htm,.txt,.md,.xml"}
}

// checkForm asks for a file or a pasted text to check against the archive.
func (s *Server) checkForm(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "check", s.checkFormData(r))
}

// checkSubmit checks a file or pasted text against the committed index and
// for near-duplicates, keeps the raw report in memory for its owner and
// sends them to it. Nothing reaches the database.
func (s *Server) checkSubmit(w http.ResponseWriter, r *http.Request) {
	fail := func(err error) {
		status, _ := checkStatus(err)
		if status == http.StatusInternalServerError {
			s.pageError(w, r, err)
			return
		}
		v := s.checkFormData(r)
		v.Error, v.Text = err.Error(), r.PostFormValue("text")
		if errors.Is(err, engine.ErrNoIndex) {
			s.log.Warn().Err(err).Msg("check refused: no index")
			v.Error = noIndexMessage
		}
		s.render(w, r, status, "check", v)
	}
	read, filename, err := s.checkInput(r, false)
	if err != nil {
		fail(err)
		return
	}
	rep, err := s.checkReport(r.Context(), read)
	if err != nil {
		fail(err)
		return
	}
	near := s.checkNearDups(r.Context(), read.Text)
	e := s.checks.put(who(r).User.ID, filename, rep, near)
	s.log.Info().Str("user", who(r).User.Name).Str("file", filename).Int("sources", len(rep.Sources)).
		Int("near_duplicates", len(near.List)).Msg("check")
	http.Redirect(w, r, "/check/"+e.Key, http.StatusSeeOther)
}

// checkReport is the raw report of a text to check: CheckText, whose
// flags are the text's own, merged with those extraction found hidden in
// its file, as a run stores them for a document (disguise.Of).
func (s *Server) checkReport(ctx context.Context, read extract.Result) (report.Report, error) {
	rep, err := s.engine.CheckText(ctx, read.Text, 0, report.Options{})
	rep.Flags = disguise.Merge(read.Flags, rep.Flags)
	return rep, err
}

// checkInput reads the text to check, with the flags of what its file
// hides: an uploaded file (multipart field "file"), else pasted text (form
// field "text"), else, with allowJSON, a JSON body {"text": "..."}. A file
// is extracted as the archive extracts its documents, and pasted text is
// cleaned up the same way; a file that yields no text is errUnprocessable
// with the reason.
func (s *Server) checkInput(r *http.Request, allowJSON bool) (read extract.Result, filename string, err error) {
	opt := s.cfg.ExtractOptions()
	if r.MultipartForm != nil {
		if files := r.MultipartForm.File["file"]; len(files) > 0 && files[0].Size > 0 {
			if len(files) > 1 {
				return extract.Result{}, "", problemf(errBadRequest, "check one file at a time (this request has %d)", len(files))
			}
			content, name, ctype, err := readUpload(files[0], s.cfg.Extract.MaxBytes)
			if err != nil {
				return extract.Result{}, name, err
			}
			read, err := s.extract.Read(r.Context(), content, name, ctype, opt)
			if err != nil {
				return extract.Result{}, name, extractProblem(err, name+": no text could be read from it")
			}
			return read, name, nil
		}
	}
	var pasted string
	if ct := r.Header.Get("Content-Type"); allowJSON && r.MultipartForm == nil && !strings.HasPrefix(ct, "application/x-www-form-urlencoded") {
		if _, err := requestType(r); err != nil {
			return extract.Result{}, "", err
		}
		var body struct {
			Text     string `json:"text"`
			Filename string `json:"filename"`
		}
		if err := decodeJSON(r, &body, true); err != nil {
			return extract.Result{}, "", err
		}
		pasted, filename = body.Text, uploadName(body.Filename)
	} else {
		pasted = r.PostFormValue("text")
	}
	if strings.TrimSpace(pasted) == "" {
		return extract.Result{}, "", problemf(errBadRequest, "nothing to check: choose a file (field \"file\") or paste a text (field \"text\")")
	}
	read, err = s.extract.Read(r.Context(), []byte(pasted), "", "text/plain; charset=utf-8", opt)
	if err != nil {
		return extract.Result{}, filename, extractProblem(err, "no text could be read from what was pasted")
	}
	return read, filename, nil
}

// extractProblem is the answer to a check whose text could not be had: the
// file's failure (422 with the reason), or, when the fault is not the
// file's (the extraction pool is stopping or cannot start a process), a
// server error.
func extractProblem(err error, what string) error {
	var xe *extract.Error
	if errors.As(err, &xe) {
		return problemf(errUnprocessable, "%s: %v", what, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// checkEntryOf finds the caller's check {key}; anyone else's is not found.
func (s *Server) checkEntryOf(r *http.Request) (*checkEntry, error) {
	e, ok := s.checks.get(r.PathValue("key"), who(r).User.ID)
	if !ok {
		return nil, problemf(errNotFound, "no such check: a check is kept for %s after it is made, and only for the person who made it; check the file again",
			humanDuration(s.checks.ttl))
	}
	return e, nil
}

// checkName is how a check's text is called.
func checkName(e *checkEntry) string {
	if e.Filename != "" {
		return e.Filename
	}
	return "Pasted text"
}

// checkResult shows a check's report, filtered as the query string says.
func (s *Server) checkResult(w http.ResponseWriter, r *http.Request) {
	rq, err := parseReportQuery(r.URL.Query())
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	e, err := s.checkEntryOf(r)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	rep, err := freshen(r.Context(), s.db, e.Report)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	v := reportView{pageBase: s.base(r, "Check: "+checkName(e)), Base: "/check/" + e.Key,
		Doc: docHeader{Header: archive.Header{Title: checkName(e)}}, Check: e, Filename: e.Filename, Q: rq, Print: s.now()}
	v.Region = buildRegion(rep, rq, v.Base, true) // the caller's own text
	v.Flags = flagLines(rep.Flags)
	v.NearDups = s.nearDupView(e.Near, v.Base, e.Report.Sources, false)
	s.showReport(w, r, v)
}

// checkCompare is the side-by-side view of a check's text and a source.
func (s *Server) checkCompare(w http.ResponseWriter, r *http.Request) {
	other, ok := pathID(r, "other")
	if !ok {
		s.pageError(w, r, problemf(errNotFound, "no such comparison: document ids are positive numbers"))
		return
	}
	rq, err := parseReportQuery(r.URL.Query())
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	e, err := s.checkEntryOf(r)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	rep, err := freshen(r.Context(), s.db, e.Report)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	v, err := s.compareView(r, rep, other, rq, "/check/"+e.Key, true)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	v.Doc, v.IsCheck, v.Filename = docHeader{Header: archive.Header{Title: checkName(e)}}, true, e.Filename
	v.Title = checkName(e) + " ↔ " + v.Src.Name()
	s.render(w, r, http.StatusOK, "compare", v)
}

// humanDuration says a duration in words: "an hour", "3 hours", "20 minutes".
func humanDuration(d time.Duration) string {
	switch {
	case d == time.Hour:
		return "an hour"
	case d >= time.Hour && d%time.Hour == 0:
		return strconv.Itoa(int(d/time.Hour)) + " hours"
	case d >= time.Minute:
		return strconv.Itoa(int(d.Round(time.Minute)/time.Minute)) + " minutes"
	}
	return d.String()
}
