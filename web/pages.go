package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/plagd/plagd/ingest"
	"github.com/plagd/plagd/store"
)

// overviewData is the start page: the archive in four numbers, what failed,
// the recent runs and the schedule.
type overviewData struct {
	pageBase
	Docs      store.DocCounts
	Pending   int
	HeldBack  *store.HeldBack // changes an open transaction holds back
	Failed    []store.FailedDoc
	Flagged   store.FlagSummary // documents whose text was disguised
	Runs      []store.RunInfo
	LastRun   *store.RunInfo
	Running   bool
	HasDaemon bool
	NextRun   time.Time
}

func (s *Server) overviewPage(w http.ResponseWriter, r *http.Request) {
	st, err := store.LoadStatus(r.Context(), s.db, 10, 50)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	data := s.runState(r, "Overview", st)
	for i := range st.Runs {
		if st.Runs[i].Status == "committed" {
			data.LastRun = &st.Runs[i]
			break
		}
	}
	s.render(w, r, http.StatusOK, "overview", data)
}

// runState fills what the overview and runs pages share.
func (s *Server) runState(r *http.Request, title string, st store.Status) overviewData {
	d := overviewData{pageBase: s.base(r, title), Docs: st.Documents, Pending: st.Pending, HeldBack: st.HeldBack,
		Failed: st.Failed, Flagged: st.Flagged, Runs: st.Runs}
	if s.runner != nil {
		d.HasDaemon, d.Running, d.NextRun = true, s.runner.Running(), s.runner.NextRun()
	}
	return d
}

func (s *Server) runsPage(w http.ResponseWriter, r *http.Request) {
	st, err := store.LoadStatus(r.Context(), s.db, 200, 0)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "runs", s.runState(r, "Runs", st))
}

// runNow asks the daemon for a run (admin); the run starts as soon as the
// one in progress, if any, ends.
func (s *Server) runNow(w http.ResponseWriter, r *http.Request) {
	if s.runner == nil {
		s.fail(w, r, false, http.StatusServiceUnavailable, "no_daemon",
			"runs are made by `plagd serve`; this process only serves pages. Use `plagd run` on the master host.")
		return
	}
	s.runner.RequestRun()
	s.log.Info().Str("user", who(r).User.Name).Msg("run requested from the web page")
	http.Redirect(w, r, "/runs?done="+url.QueryEscape("Run requested: it starts now, or right after the one in progress."), http.StatusSeeOther)
}

// documentsData is the documents page: search, status filter, one page of
// results, and the upload form for staff.
type documentsData struct {
	pageBase
	Query, Status string
	Flagged       bool // only documents whose text was disguised (?flagged=1)
	// MinIndex is the least similarity index asked for, in percent (?min_index=);
	// ByIndex orders by similarity index (?sort=index).
	MinIndex   int
	MinIndexes []int // the choices offered
	ByIndex    bool
	Statuses   []string
	Docs       []store.Document
	Prev, Next string
	MaxBytes   int64
	MaxRequest int64 // the limit of one multipart form (readForm): a manifest and all its files together
	Formats    string
	Columns    string // a manifest's columns, for the hint
	// AnyPending: a listed document waits for a run; the page then asks
	// /api/v1/status and refreshes the table when the run commits.
	AnyPending bool
	LastRun    int64 // the last committed run the table reflects
	// ImportErrors are the problems of a manifest just sent: nothing of it
	// was imported.
	ImportErrors ingest.ManifestErrors
	// Uploaded are the files a form upload just stored, with their
	// near-duplicates (?uploaded=).
	Uploaded []uploadedRow
}

const documentsPageSize = 50

func (s *Server) documentsPage(w http.ResponseWriter, r *http.Request) {
	data, err := s.documentsData(r)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "documents", data)
}

// documentsData is the documents page for r's query (a POST shows it again
// with the problems of a manifest).
func (s *Server) documentsData(r *http.Request) (documentsData, error) {
	q := r.URL.Query()
	offset, _ := strconv.Atoi(q.Get("offset"))
	offset = max(offset, 0)
	minIndex, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(q.Get("min_index")), "%"))
	minIndex = min(max(minIndex, 0), 100)
	dq := store.DocumentQuery{Search: q.Get("q"), Status: q.Get("status"), Flagged: q.Get("flagged") == "1",
		MinIndex: float64(minIndex) / 100, ByIndex: q.Get("sort") == "index",
		Limit: documentsPageSize, Offset: offset}
	docs, more, err := store.ListDocuments(r.Context(), s.db, dq)
	if err != nil {
		return documentsData{}, err
	}
	link := func(off int) string {
		v := url.Values{"offset": {strconv.Itoa(off)}}
		if dq.Search != "" {
			v.Set("q", dq.Search)
		}
		if dq.Status != "" {
			v.Set("status", dq.Status)
		}
		if dq.Flagged {
			v.Set("flagged", "1")
		}
		if minIndex > 0 {
			v.Set("min_index", strconv.Itoa(minIndex))
		}
		if dq.ByIndex {
			v.Set("sort", "index")
		}
		return "/documents?" + v.Encode()
	}
	data := documentsData{pageBase: s.base(r, "Documents"), Query: dq.Search, Status: dq.Status, Flagged: dq.Flagged,
		MinIndex: minIndex, MinIndexes: []int{10, 25, 50, 75}, ByIndex: dq.ByIndex,
		Statuses: []string{"indexed", "pending", "failed", "deleted"}, Docs: docs,
		MaxBytes: s.cfg.Extract.MaxBytes, MaxRequest: s.cfg.Extract.MaxBytes + 1<<20,
		Formats: ".pdf,.docx,.odt,.oth,.ott,.odm,.rtf,.html,.htm,.txt,.md,.xml",
		Columns: strings.Join(ingest.ManifestColumns, ",")}
	if up := q.Get("uploaded"); up != "" {
		data.Uploaded = s.uploadedRows(r.Context(), up)
	}
	for _, d := range docs {
		if d.Status == "pending" {
			data.AnyPending = true
		}
	}
	if data.LastRun, err = store.LastCommittedRun(r.Context(), s.db); err != nil {
		return data, err
	}
	if more {
		data.Next = link(offset + documentsPageSize)
	}
	if offset > 0 {
		data.Prev = link(max(offset-documentsPageSize, 0))
	}
	return data, nil
}

// uploadDocuments stores the files of the upload form when scripts are off
// (with scripts, app.js sends each file to POST /api/v1/documents with the
// details typed in its row, and shows its progress). One file takes the
// form's title, author, external id, kind, year and restricted; several
// files share kind, year and restricted and are titled by their names.
// Every file is stored, readable or not: the next run marks unreadable
// ones failed, and the page says which those will be. A file
// byte-identical to a live document is stored as the form's "duplicate"
// field says: by default not at all, with a warning naming the document.
// Readable ones are checked for near-duplicates at once; the documents
// page the browser is sent to lists each stored file with its
// near-duplicates (?uploaded=), linked.
func (s *Server) uploadDocuments(w http.ResponseWriter, r *http.Request) {
	if r.MultipartForm == nil || len(r.MultipartForm.File["file"]) == 0 {
		s.fail(w, r, false, http.StatusBadRequest, "bad_request", "choose one or more files to upload")
		return
	}
	dup, err := duplicateParam(r)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	var stored, replaced, identical, warned, near int
	var notes, ids []string
	files := r.MultipartForm.File["file"]
	for _, fh := range files {
		in, err := documentFromForm(r, fh, s.cfg.Extract.MaxBytes)
		if err != nil {
			notes = append(notes, uploadName(fh.Filename)+": "+err.Error())
			continue
		}
		if len(files) > 1 {
			// one title, author or external id for many files makes no
			// sense: each takes its file name (scripts send per-file rows)
			in.ExternalID, in.Title, in.Author = "", "", ""
		}
		st, err := s.docs.CreateOrReplace(r.Context(), s.auditedTx(r), in, dup, s.replaceGuard(r))
		var ie *ingest.IdenticalError
		switch {
		case errors.As(err, &ie):
			identical++
			notes = append(notes, ie.Error()+` (to do that, choose it again with "If a file is already in the archive" set)`)
			continue
		case errors.Is(err, store.ErrExternalIDTaken), errors.Is(err, errForbidden):
			notes = append(notes, uploadName(fh.Filename)+": "+err.Error())
			continue
		case err != nil:
			s.pageError(w, r, err)
			return
		}
		res := st.Result
		if st.Replaced {
			replaced++
			notes = append(notes, fmt.Sprintf("%s replaced the file of the identical document %d", in.Filename, res.ID))
		} else {
			stored++
		}
		if len(ids) < maxUploadedShown {
			ids = append(ids, strconv.FormatInt(res.ID, 10))
		}
		if res.Warning != "" {
			warned++
			notes = append(notes, in.Filename+": stored, but "+res.Warning)
			continue
		}
		nd := s.uploadNearDups(res)
		if nd.Err != "" {
			notes = append(notes, in.Filename+": stored, but "+nd.Err)
		}
		if len(nd.List) > 0 {
			near++
		}
	}
	msg := fmt.Sprintf("%d of %d files stored; the next run indexes them.", stored, len(files))
	if identical > 0 {
		msg = fmt.Sprintf("%d of %d files stored; %d already in the archive, byte for byte, not stored again.", stored, len(files), identical)
	}
	switch near {
	case 0:
	case 1:
		msg += " 1 file is a near-duplicate of a document in the archive (see below)."
	default:
		msg += fmt.Sprintf(" %d files are near-duplicates of documents in the archive (see below).", near)
	}
	for _, n := range notes {
		msg += " " + n + "."
	}
	s.log.Info().Str("user", who(r).User.Name).Str("via", "web").Int("stored", stored).Int("replaced", replaced).
		Int("identical", identical).Int("unreadable", warned).Int("near_duplicates", near).Msg("upload")
	v := url.Values{"done": {msg}}
	if len(ids) > 0 {
		v.Set("uploaded", strings.Join(ids, ","))
	}
	http.Redirect(w, r, "/documents?"+v.Encode(), http.StatusSeeOther)
}

// editDocument saves the edit form of the report page (staff): metadata
// and the restricted flag change nothing in the index, so no run is needed;
// a replacement file (a fixed scan, a corrected version) makes the next run
// index the document again.
func (s *Server) editDocument(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(r, "id")
	if !ok {
		s.pageError(w, r, fmt.Errorf("%w: no such document", errNotFound))
		return
	}
	f := r.PostForm
	p := store.DocumentPatch{}
	for field, dst := range map[string]**string{"title": &p.Title, "author": &p.Author, "kind": &p.Kind, "external_id": &p.ExternalID} {
		if _, present := f[field]; present {
			v := f.Get(field)
			*dst = &v
		}
	}
	if y := f.Get("year"); y != "" {
		n, err := strconv.Atoi(y)
		if err != nil || n < 0 || n > 9999 {
			s.pageError(w, r, fmt.Errorf("%w: year %q is not a year", errBadRequest, y))
			return
		}
		p.Year = &n
	} else if _, present := f["year"]; present {
		zero := 0
		p.Year = &zero
	}
	// A checkbox that is not ticked sends nothing, so the form marks that
	// it showed one (restricted_shown): without the marker the flag stays
	// as it is, never cleared by a form (or a script) that did not offer it.
	if _, shown := f["restricted_shown"]; shown {
		restricted := checkbox(f.Get("restricted"))
		p.Restricted = &restricted
	}
	if r.MultipartForm != nil && len(r.MultipartForm.File["file"]) > 0 && r.MultipartForm.File["file"][0].Size > 0 {
		content, name, ctype, err := readUpload(r.MultipartForm.File["file"][0], s.cfg.Extract.MaxBytes)
		if err != nil {
			s.pageError(w, r, err)
			return
		}
		p.Content, p.Filename, p.ContentType = content, &name, &ctype
	}
	res, err := s.docs.Update(r.Context(), s.auditedTx(r), ingest.Change{ID: id, Patch: p,
		Guard: func(ctx context.Context, q store.Querier) error {
			return checkRestrictedChange(ctx, q, who(r), id, p.Restricted)
		}})
	if err != nil {
		s.pageError(w, r, documentError(err))
		return
	}
	done := "Saved."
	if res.Checked {
		// the replacement is compared at once; the report page lists what it found
		nd := s.uploadNearDups(res)
		switch {
		case nd.Err != "":
			done += " But " + nd.Err + "."
		case len(nd.List) > 0:
			done += " The new file is a near-duplicate of another document: see Near-duplicates."
		}
	}
	s.log.Info().Str("user", who(r).User.Name).Int64("doc", id).Bool("new_file", p.Content != nil).Msg("document edited")
	http.Redirect(w, r, fmt.Sprintf("/documents/%d?done=%s", id, url.QueryEscape(done)), http.StatusSeeOther)
}

// deleteDocument soft-deletes a document (staff): it leaves the index and
// every similarity list at the next run.
func (s *Server) deleteDocument(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(r, "id")
	if !ok {
		s.pageError(w, r, fmt.Errorf("%w: no such document", errNotFound))
		return
	}
	if err := s.audited(r, func(tx store.Querier) error { return store.DeleteDocument(r.Context(), tx, id) }); err != nil {
		s.pageError(w, r, documentError(err))
		return
	}
	s.log.Info().Str("user", who(r).User.Name).Int64("doc", id).Msg("document deleted")
	http.Redirect(w, r, "/documents?done="+url.QueryEscape(fmt.Sprintf("Document %d deleted; the next run removes it from the index.", id)), http.StatusSeeOther)
}

// documentError maps the document store's errors to page statuses.
func documentError(err error) error {
	switch {
	case errors.Is(err, store.ErrNoDocument):
		return fmt.Errorf("%w: %v", errNotFound, err)
	case errors.Is(err, store.ErrExternalIDTaken):
		return fmt.Errorf("%w: %v", errConflict, err)
	}
	return err
}

// pathID parses a numeric path parameter.
func pathID(r *http.Request, name string) (int64, bool) {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	return id, err == nil && id > 0
}

// checkbox reads an HTML checkbox or a boolean form field.
func checkbox(v string) bool { return v == "on" || v == "true" || v == "1" || v == "yes" }
