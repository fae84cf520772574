package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/plagd/plagd/archive"
	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/ingest"
	"github.com/plagd/plagd/store"
)

// The documents part of the JSON API (openapi.json describes each route).
// New content enters through package ingest (read once, stored, compared
// with the archive), other writes through package store: the same contract
// as an integrator's, the change-log trigger picks them up and the next run
// processes them.

// Page sizes of the API's lists.
const (
	apiDefaultLimit = 50
	apiMaxLimit     = 500
)

// documentStatuses are the values of Document.Status, for ?status=.
var documentStatuses = []string{"indexed", "pending", "failed", "deleted"}

// documentResponse is the answer of the single-document routes.
type documentResponse struct {
	Document store.Document `json:"document"`
	// Text is the stored text, with ?text=1 only.
	Text *string `json:"text,omitempty"`
	// Warning says that the next run will mark the document failed, and
	// why, after a create or an update that stored new content.
	Warning string `json:"warning,omitempty"`
	// NearDuplicates are the documents within neardup.distance bits of the
	// new content, found at once, before any run: present (possibly empty)
	// after a create or an update that stored new content, absent otherwise.
	NearDuplicates *[]engine.NearDuplicate `json:"near_duplicates,omitempty"`
	// NearDuplicatesError says that the near-duplicate check could not be
	// made; the document is stored all the same.
	NearDuplicatesError string `json:"near_duplicates_error,omitempty"`
	// Replaced: a create with duplicate=replace gave an existing,
	// byte-identical document this upload's file name and details.
	Replaced bool `json:"replaced,omitempty"`
}

// withNearDups adds an upload-time near-duplicate check to a response.
func (d documentResponse) withNearDups(res nearDupResult) documentResponse {
	list := nonNil(res.List)
	d.NearDuplicates, d.NearDuplicatesError = &list, res.Err
	return d
}

type documentList struct {
	Documents  []store.Document `json:"documents"`
	Limit      int              `json:"limit"`
	Offset     int              `json:"offset"`
	NextOffset *int             `json:"next_offset"`
}

type similarList struct {
	DocumentID int64              `json:"document_id"`
	Similar    []store.SimilarRow `json:"similar"`
	Limit      int                `json:"limit"`
	Offset     int                `json:"offset"`
	NextOffset *int               `json:"next_offset"`
}

func (s *Server) apiListDocuments(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, offset, err := pageParams(q)
	if err != nil {
		s.apiDocFail(w, r, err)
		return
	}
	status := strings.ToLower(strings.TrimSpace(q.Get("status")))
	if status != "" && !slices.Contains(documentStatuses, status) {
		s.apiDocFail(w, r, problemf(errBadRequest, "status %q is not a document status: use one of %s, or leave it out for all",
			q.Get("status"), strings.Join(documentStatuses, ", ")))
		return
	}
	flagged := false
	switch q.Get("flagged") {
	case "", "0":
	case "1":
		flagged = true
	default:
		s.apiDocFail(w, r, problemf(errBadRequest, "flagged %q: use 1 for the documents whose text was disguised, or leave it out for all", q.Get("flagged")))
		return
	}
	minIndex := 0.0
	if v := strings.TrimSpace(q.Get("min_index")); v != "" {
		f, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
		if err != nil || f < 0 || f > 100 || f != f {
			s.apiDocFail(w, r, problemf(errBadRequest, "min_index %q is not a percentage: give a number from 0 to 100, such as 25", v))
			return
		}
		minIndex = f / 100
	}
	byIndex := false
	switch q.Get("sort") {
	case "", "newest":
	case "index":
		byIndex = true
	default:
		s.apiDocFail(w, r, problemf(errBadRequest, "sort %q: use index for the highest similarity index first, or newest (the default)", q.Get("sort")))
		return
	}
	docs, more, err := store.ListDocuments(r.Context(), s.db, store.DocumentQuery{
		Search: strings.TrimSpace(q.Get("q")), Status: status, Flagged: flagged, MinIndex: minIndex, ByIndex: byIndex,
		Limit: limit, Offset: offset})
	if err != nil {
		s.apiDocFail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, documentList{Documents: docs, Limit: limit, Offset: offset, NextOffset: nextOffset(more, offset, len(docs))})
}

func (s *Server) apiCreateDocument(w http.ResponseWriter, r *http.Request) {
	in, err := s.documentInput(r)
	if err != nil {
		s.apiDocFail(w, r, err)
		return
	}
	dup, err := duplicateParam(r)
	if err != nil {
		s.apiDocFail(w, r, err)
		return
	}
	st, err := s.docs.CreateOrReplace(r.Context(), s.auditedTx(r), in, dup, s.replaceGuard(r))
	var ie *ingest.IdenticalError
	if errors.As(err, &ie) {
		writeJSON(w, http.StatusConflict, identicalBody(ie))
		return
	}
	if err != nil {
		s.apiDocFail(w, r, err)
		return
	}
	res := st.Result
	near := s.uploadNearDups(res)
	d, err := store.GetDocument(r.Context(), s.db, res.ID)
	if err != nil {
		s.apiDocFail(w, r, err)
		return
	}
	msg, status := "document created", http.StatusCreated
	if st.Replaced {
		msg, status = "document file replaced by an identical upload", http.StatusOK
	}
	s.log.Info().Str("user", who(r).User.Name).Str("via", via(r)).Int64("doc", res.ID).Str("filename", in.Filename).
		Bool("unreadable", res.Warning != "").Int("near_duplicates", len(near.List)).Msg(msg)
	w.Header().Set("Location", fmt.Sprintf("/api/v1/documents/%d", res.ID))
	writeJSON(w, status, documentResponse{Document: d, Warning: res.Warning, Replaced: st.Replaced}.withNearDups(near))
}

// identicalResponse is the 409 of an upload byte-identical to live
// documents: the error, and the documents, so that a client can offer
// "replace" or "store as new" (send again with duplicate=replace|new).
type identicalResponse struct {
	apiErrorBody
	Existing []store.Identical `json:"existing"`
}

func identicalBody(ie *ingest.IdenticalError) identicalResponse {
	var b identicalResponse
	b.Error.Code = "identical"
	b.Error.Message = ie.Error() + ": send it again with duplicate=replace or duplicate=new"
	b.Existing = ie.Existing
	return b
}

// duplicateParam reads the upload's duplicate choice: the form field or
// query parameter "duplicate" (new, replace; empty: ask).
func duplicateParam(r *http.Request) (ingest.Duplicates, error) {
	v := r.URL.Query().Get("duplicate")
	if r.MultipartForm != nil {
		if f := r.PostFormValue("duplicate"); f != "" {
			v = f
		}
	}
	d, err := ingest.ParseDuplicates(v)
	if err != nil {
		return d, problemf(errBadRequest, "%v", err)
	}
	return d, nil
}

// replaceGuard checks, in a replace's transaction, that the caller may
// make the change its upload states (the restricted flag).
func (s *Server) replaceGuard(r *http.Request) func(ctx context.Context, q store.Querier, id int64, p store.DocumentPatch) error {
	return func(ctx context.Context, q store.Querier, id int64, p store.DocumentPatch) error {
		if err := checkRestrictedChange(ctx, q, who(r), id, p.Restricted); err != nil {
			return &ingest.RowError{Err: err}
		}
		return nil
	}
}

// documentInput reads a new document from a multipart form (a file in the
// field "file", or plain text in "text", and the metadata fields) or from
// a JSON object.
func (s *Server) documentInput(r *http.Request) (store.DocumentInput, error) {
	var in store.DocumentInput
	mt, err := requestType(r)
	if err != nil {
		return in, err
	}
	if mt == "multipart/form-data" {
		files := r.MultipartForm.File["file"]
		text := r.PostFormValue("text")
		switch {
		case len(files) > 1:
			return in, problemf(errBadRequest, "send one file per request (this one has %d in the field \"file\")", len(files))
		case len(files) == 1 && text != "":
			return in, problemf(errBadRequest, "send either a file (field \"file\") or plain text (field \"text\"), not both")
		case len(files) == 1:
			return documentFromForm(r, files[0], s.cfg.Extract.MaxBytes)
		}
		if in, err = metaFromForm(r); err != nil {
			return in, err
		}
		if strings.TrimSpace(text) == "" {
			return in, problemf(errBadRequest, "the form has no document: send the file in the field \"file\" (or plain text in \"text\")")
		}
		in.Text, err = plainText(text)
		return in, err
	}
	var body struct {
		archive.Header
		Text string `json:"text"`
	}
	if err := decodeJSON(r, &body, true); err != nil {
		return in, err
	}
	if strings.TrimSpace(body.Text) == "" {
		return in, problemf(errBadRequest, "\"text\" is empty: give the document's plain text, or upload a file as multipart/form-data (field \"file\")")
	}
	if body.Year < 0 || body.Year > 9999 {
		return in, problemf(errBadRequest, "year %d is not a year: give a number such as 2024, or leave it out", body.Year)
	}
	text, err := plainText(body.Text)
	h := body.Header
	h.ExternalID, h.Title, h.Author, h.Kind = strings.TrimSpace(h.ExternalID), strings.TrimSpace(h.Title), strings.TrimSpace(h.Author), strings.TrimSpace(h.Kind)
	return store.DocumentInput{Header: h, Text: text}, err
}

func (s *Server) apiGetDocument(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(r, "id")
	if !ok {
		s.apiDocFail(w, r, noDocument(r.PathValue("id")))
		return
	}
	withText, err := parseFlag("text", r.URL.Query().Get("text"))
	if err != nil {
		s.apiDocFail(w, r, err)
		return
	}
	d, err := store.GetDocument(r.Context(), s.db, id)
	if err != nil {
		s.apiDocFail(w, r, err)
		return
	}
	resp := documentResponse{Document: d}
	if withText {
		if d.Restricted && !who(r).seesRestricted() {
			s.apiDocFail(w, r, problemf(errForbidden, "document %d is restricted: only an admin may read its text; "+
				"everyone may see what it matches and how much (GET /api/v1/documents/%d/similar)", id, id))
			return
		}
		body, err := store.DocumentText(r.Context(), s.db, id)
		switch {
		case errors.Is(err, store.ErrNoText):
			apiError(w, http.StatusNotFound, "no_text", noTextMessage(d))
			return
		case err != nil:
			s.apiDocFail(w, r, err)
			return
		}
		resp.Text = &body
	}
	writeJSON(w, http.StatusOK, resp)
}

// noTextMessage says why a document has no stored text yet.
func noTextMessage(d store.Document) string {
	switch d.Status {
	case "failed":
		return fmt.Sprintf("document %d has no text: the last run could not extract it (%s); upload a readable file (PUT /api/v1/documents/%d)", d.ID, d.Error, d.ID)
	case "deleted":
		return fmt.Sprintf("document %d is deleted and has no stored text", d.ID)
	}
	return fmt.Sprintf("document %d has not been processed yet: its text is stored by the next run (GET /api/v1/runs)", d.ID)
}

func (s *Server) apiUpdateDocument(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(r, "id")
	if !ok {
		s.apiDocFail(w, r, noDocument(r.PathValue("id")))
		return
	}
	p, deleted, err := s.documentPatch(r)
	if err != nil {
		s.apiDocFail(w, r, err)
		return
	}
	newContent := p.Content != nil || p.Text != nil
	if deleted != nil && !*deleted {
		p.Undelete = true
	}
	res, err := s.docs.Update(r.Context(), s.auditedTx(r), ingest.Change{ID: id, Patch: p, Delete: deleted != nil && *deleted,
		Guard: func(ctx context.Context, q store.Querier) error {
			return checkRestrictedChange(ctx, q, who(r), id, p.Restricted)
		}})
	if err != nil {
		s.apiDocFail(w, r, err)
		return
	}
	near := s.uploadNearDups(res)
	d, err := store.GetDocument(r.Context(), s.db, id)
	if err != nil {
		s.apiDocFail(w, r, err)
		return
	}
	s.log.Info().Str("user", who(r).User.Name).Str("via", via(r)).Int64("doc", id).Bool("new_content", newContent).
		Int("near_duplicates", len(near.List)).Msg("document updated")
	resp := documentResponse{Document: d, Warning: res.Warning}
	if newContent {
		resp = resp.withNearDups(near)
	}
	writeJSON(w, http.StatusOK, resp)
}

// patchFields are the fields PUT /api/v1/documents/{id} accepts.
var patchFields = []string{"external_id", "title", "author", "kind", "year", "restricted", "text", "deleted"}

// documentPatch reads an update: a multipart form (a new file in "file"
// and/or fields) or a JSON object. A field that is absent stays as it is;
// an empty one clears it. deleted is nil when absent.
func (s *Server) documentPatch(r *http.Request) (p store.DocumentPatch, deleted *bool, err error) {
	mt, err := requestType(r)
	if err != nil {
		return p, nil, err
	}
	if mt == "multipart/form-data" {
		return s.formPatch(r)
	}
	var body map[string]json.RawMessage
	if err := decodeJSON(r, &body, false); err != nil {
		return p, nil, err
	}
	for k := range body {
		if !slices.Contains(patchFields, k) {
			return p, nil, problemf(errBadRequest, "unknown field %q: a document has %s", k, strings.Join(patchFields, ", "))
		}
	}
	str := func(field string, dst **string) error {
		raw, ok := body[field]
		if !ok {
			return nil
		}
		var v *string
		if err := json.Unmarshal(raw, &v); err != nil {
			return problemf(errBadRequest, "%q must be a string (or null to clear it), got %s", field, raw)
		}
		t := strings.TrimSpace(ptrValue(v))
		*dst = &t
		return nil
	}
	for field, dst := range map[string]**string{"external_id": &p.ExternalID, "title": &p.Title, "author": &p.Author, "kind": &p.Kind} {
		if err := str(field, dst); err != nil {
			return p, nil, err
		}
	}
	if raw, ok := body["year"]; ok {
		var y *int
		if err := json.Unmarshal(raw, &y); err != nil || (y != nil && (*y < 0 || *y > 9999)) {
			return p, nil, problemf(errBadRequest, "\"year\" must be a year such as 2024 (or null to clear it), got %s", raw)
		}
		n := 0
		if y != nil {
			n = *y
		}
		p.Year = &n
	}
	boolField := func(field string) (*bool, error) {
		raw, ok := body[field]
		if !ok {
			return nil, nil
		}
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil || string(raw) == "null" {
			return nil, problemf(errBadRequest, "%q must be true or false, got %s", field, raw)
		}
		return &b, nil
	}
	if p.Restricted, err = boolField("restricted"); err != nil {
		return p, nil, err
	}
	if deleted, err = boolField("deleted"); err != nil {
		return p, nil, err
	}
	if raw, ok := body["text"]; ok {
		var t string
		if err := json.Unmarshal(raw, &t); err != nil || strings.TrimSpace(t) == "" {
			return p, nil, problemf(errBadRequest, "\"text\" must be the document's new plain text, not empty; leave it out to keep the content")
		}
		if t, err = plainText(t); err != nil {
			return p, nil, err
		}
		p.Text = &t
	}
	return p, deleted, nil
}

// formPatch is documentPatch for a multipart form.
func (s *Server) formPatch(r *http.Request) (p store.DocumentPatch, deleted *bool, err error) {
	f := r.PostForm
	present := func(field string) bool { _, ok := f[field]; return ok }
	for field, dst := range map[string]**string{"external_id": &p.ExternalID, "title": &p.Title, "author": &p.Author, "kind": &p.Kind} {
		if present(field) {
			v := strings.TrimSpace(f.Get(field))
			*dst = &v
		}
	}
	if present("year") {
		n, err := parseYear(f.Get("year"))
		if err != nil {
			return p, nil, err
		}
		p.Year = &n
	}
	for field, dst := range map[string]**bool{"restricted": &p.Restricted, "deleted": &deleted} {
		if present(field) {
			b, err := parseFlag(field, f.Get(field))
			if err != nil {
				return p, nil, err
			}
			*dst = &b
		}
	}
	files := r.MultipartForm.File["file"]
	switch {
	case len(files) > 1:
		return p, nil, problemf(errBadRequest, "send one file (this request has %d in the field \"file\")", len(files))
	case len(files) == 1 && present("text"):
		return p, nil, problemf(errBadRequest, "send either a new file (field \"file\") or new plain text (field \"text\"), not both")
	case len(files) == 1:
		content, name, ctype, err := readUpload(files[0], s.cfg.Extract.MaxBytes)
		if err != nil {
			return p, nil, err
		}
		p.Content, p.Filename, p.ContentType = content, &name, &ctype
	case present("text"):
		t := f.Get("text")
		if strings.TrimSpace(t) == "" {
			return p, nil, problemf(errBadRequest, "\"text\" must be the document's new plain text, not empty; leave it out to keep the content")
		}
		if t, err = plainText(t); err != nil {
			return p, nil, err
		}
		p.Text = &t
	}
	return p, deleted, nil
}

// plainText makes a document's plain text storable: PostgreSQL's text holds
// neither NUL characters (dropped: extraction drops control characters
// anyway) nor invalid UTF-8 (refused).
func plainText(t string) (string, error) {
	if !utf8.ValidString(t) {
		return "", problemf(errBadRequest, "the text is not valid UTF-8: convert it, or upload it as a file (field \"file\"), whose encoding plagd detects")
	}
	return strings.ReplaceAll(t, "\x00", ""), nil
}

func (s *Server) apiDeleteDocument(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(r, "id")
	if !ok {
		s.apiDocFail(w, r, noDocument(r.PathValue("id")))
		return
	}
	if err := s.audited(r, func(tx store.Querier) error { return store.DeleteDocument(r.Context(), tx, id) }); err != nil {
		s.apiDocFail(w, r, err)
		return
	}
	d, err := store.GetDocument(r.Context(), s.db, id)
	if err != nil {
		s.apiDocFail(w, r, err)
		return
	}
	s.log.Info().Str("user", who(r).User.Name).Str("via", via(r)).Int64("doc", id).Msg("document deleted")
	writeJSON(w, http.StatusOK, documentResponse{Document: d})
}

func (s *Server) apiSimilar(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(r, "id")
	if !ok {
		s.apiDocFail(w, r, noDocument(r.PathValue("id")))
		return
	}
	limit, offset, err := pageParams(r.URL.Query())
	if err != nil {
		s.apiDocFail(w, r, err)
		return
	}
	if _, err := store.GetDocument(r.Context(), s.db, id); err != nil {
		s.apiDocFail(w, r, err)
		return
	}
	rows, err := store.Similar(r.Context(), s.db, id)
	if err != nil {
		s.apiDocFail(w, r, err)
		return
	}
	start := min(offset, len(rows))
	page := rows[start : start+min(limit, len(rows)-start)]
	writeJSON(w, http.StatusOK, similarList{DocumentID: id, Similar: page, Limit: limit, Offset: offset,
		NextOffset: nextOffset(offset+len(page) < len(rows), offset, len(page))})
}

// apiDocFail writes a handler's error as JSON: the document store's and
// the size limits' errors get their status here, the rest as apiFail does.
func (s *Server) apiDocFail(w http.ResponseWriter, r *http.Request, err error) {
	var tooBig *http.MaxBytesError
	switch {
	case errors.Is(err, errTooLarge):
		apiError(w, http.StatusRequestEntityTooLarge, "too_large", err.Error())
	case errors.As(err, &tooBig):
		apiError(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf(
			"the request is larger than the limit of %d bytes (http.max_request_bytes); upload large documents as multipart/form-data files", tooBig.Limit))
	case errors.Is(err, errUnsupportedType):
		apiError(w, http.StatusUnsupportedMediaType, "unsupported_media_type", err.Error())
	case errors.Is(err, store.ErrNoDocument):
		apiError(w, http.StatusNotFound, "not_found", strings.Replace(err.Error(), "no such document: ", "no document with id ", 1))
	case errors.Is(err, store.ErrExternalIDTaken):
		apiError(w, http.StatusConflict, "conflict", err.Error()+
			": external ids are unique; choose another, or update that document (GET /api/v1/documents?q=<external id> finds it)")
	default:
		s.apiFail(w, r, err)
	}
}

// noDocument is the error for an {id} that is no document's, such as one
// that is not a number.
func noDocument(id string) error {
	return problemf(errNotFound, "no document with id %q: ids are positive numbers (GET /api/v1/documents?q= finds a document by title, author or external id)", id)
}

// errUnsupportedType is a request body that is neither JSON nor a multipart form: 415.
var errUnsupportedType = errors.New("unsupported media type")

// requestType is the request body's media type: multipart/form-data or
// application/json (also assumed when none is declared).
func requestType(r *http.Request) (string, error) {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return "application/json", nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	switch {
	case err == nil && mt == "multipart/form-data" && r.MultipartForm != nil:
		return mt, nil
	case err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json")):
		return "application/json", nil
	}
	return "", problemf(errUnsupportedType, "the body is %q: send application/json or multipart/form-data (see /api/openapi.json)", ct)
}

// decodeJSON reads one JSON object from the (already size-bounded) body.
func decodeJSON(r *http.Request, v any, strict bool) error {
	dec := json.NewDecoder(r.Body)
	if strict {
		dec.DisallowUnknownFields()
	}
	err := dec.Decode(v)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return err
	case errors.Is(err, io.EOF):
		return problemf(errBadRequest, "the request body is empty: send a JSON object (see /api/openapi.json)")
	case err != nil:
		return problemf(errBadRequest, "the JSON body could not be read: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return problemf(errBadRequest, "the JSON body has more after its object: send exactly one object")
	}
	return nil
}

// pageParams reads ?limit= (default 50, at most 500) and ?offset=.
func pageParams(q url.Values) (limit, offset int, err error) {
	limit = apiDefaultLimit
	if v := strings.TrimSpace(q.Get("limit")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > apiMaxLimit {
			return 0, 0, problemf(errBadRequest, "limit %q is not a page size: give a number from 1 to %d (default %d)", v, apiMaxLimit, apiDefaultLimit)
		}
		limit = n
	}
	if v := strings.TrimSpace(q.Get("offset")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, 0, problemf(errBadRequest, "offset %q is not a position: give a number from 0 (use next_offset of the previous page)", v)
		}
		offset = n
	}
	return limit, offset, nil
}

// nextOffset is the next page's offset, or nil on the last page.
func nextOffset(more bool, offset, n int) *int {
	if !more {
		return nil
	}
	next := offset + n
	return &next
}

func ptrValue[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
