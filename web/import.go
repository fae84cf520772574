package web

import (
	"errors"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/plagd/plagd/extract"
	"github.com/plagd/plagd/ingest"
)

// A bulk import with a manifest: the CSV (ingest.ParseManifest) in the
// multipart field "manifest" and the files it names in "file", from the
// documents page (POST /documents/import) or the API (POST
// /api/v1/documents/import). A manifest with any error imports nothing;
// then every row is stored on its own (ingest.ImportManifest), and files
// byte-identical to live documents are handled as "duplicate" says.

// importResult is POST /api/v1/documents/import's answer.
type importResult struct {
	Rows      []ingest.ManifestOutcome `json:"rows"`
	Stored    int                      `json:"stored"`    // new documents
	Replaced  int                      `json:"replaced"`  // existing identical documents given the row's file and details
	Identical int                      `json:"identical"` // rows not stored: identical to a live document
	Failed    int                      `json:"failed"`    // rows not stored for another reason
	// Unlisted are files sent with the manifest that no row names: not
	// stored.
	Unlisted []string `json:"unlisted"`
}

// manifestErrorResponse is the 400 of a manifest with errors.
type manifestErrorResponse struct {
	apiErrorBody
	ManifestErrors ingest.ManifestErrors `json:"manifest_errors"`
}

// formFiles are the files of an import request, by name.
type formFiles struct {
	byName   map[string]*multipart.FileHeader
	used     map[string]bool
	maxBytes int64
}

func newFormFiles(r *http.Request, maxBytes int64) formFiles {
	f := formFiles{byName: map[string]*multipart.FileHeader{}, used: map[string]bool{}, maxBytes: maxBytes}
	if r.MultipartForm != nil {
		for _, fh := range r.MultipartForm.File["file"] {
			f.byName[uploadName(fh.Filename)] = fh
		}
	}
	return f
}

// key is the name a manifest's file column is matched by: its base name
// (a manifest written for the CLI may give paths).
func (f formFiles) key(file string) string {
	return uploadName(path.Base(strings.ReplaceAll(file, `\`, "/")))
}

func (f formFiles) Check(file string) string {
	fh, ok := f.byName[f.key(file)]
	switch {
	case !ok:
		return fmt.Sprintf("no file named %q was sent with the manifest: choose it with the others", f.key(file))
	case fh.Size == 0:
		return fmt.Sprintf("%s is empty (0 bytes)", f.key(file))
	case f.maxBytes > 0 && fh.Size > f.maxBytes:
		return fmt.Sprintf("%s: %v", f.key(file), extract.TooLarge(fh.Size, f.maxBytes))
	}
	f.used[f.key(file)] = true
	return ""
}

func (f formFiles) Read(file string) ([]byte, string, string, error) {
	return readUpload(f.byName[f.key(file)], f.maxBytes)
}

// unlisted are the files no row named.
func (f formFiles) unlisted() []string {
	out := []string{}
	for name := range f.byName {
		if !f.used[name] {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// runImport parses the manifest of r and imports its rows.
func (s *Server) runImport(r *http.Request) (importResult, error) {
	if r.MultipartForm == nil || len(r.MultipartForm.File["manifest"]) != 1 {
		return importResult{}, problemf(errBadRequest, "send the manifest (a CSV file) in the field \"manifest\" and the files it names in \"file\"")
	}
	dup, err := duplicateParam(r)
	if err != nil {
		return importResult{}, err
	}
	mf, err := r.MultipartForm.File["manifest"][0].Open()
	if err != nil {
		return importResult{}, fmt.Errorf("read the manifest: %w", err)
	}
	defer mf.Close()
	rows, err := ingest.ParseManifest(mf)
	if err != nil {
		return importResult{}, err
	}
	files := newFormFiles(r, s.cfg.Extract.MaxBytes)
	outs, err := s.docs.ImportManifest(r.Context(), s.auditedTx(r), rows, files, dup, s.replaceGuard(r))
	res := importResult{Rows: outs, Unlisted: files.unlisted()}
	for _, o := range outs {
		switch {
		case o.Replaced:
			res.Replaced++
		case o.ID != 0:
			res.Stored++
		case len(o.Identical) > 0:
			res.Identical++
		default:
			res.Failed++
		}
	}
	if res.Rows == nil {
		res.Rows = []ingest.ManifestOutcome{}
	}
	s.log.Info().Str("user", who(r).User.Name).Str("via", via(r)).Int("rows", len(rows)).Int("stored", res.Stored).
		Int("replaced", res.Replaced).Int("identical", res.Identical).Int("failed", res.Failed).Msg("manifest import")
	return res, err
}

func (s *Server) apiImportManifest(w http.ResponseWriter, r *http.Request) {
	res, err := s.runImport(r)
	var me ingest.ManifestErrors
	switch {
	case errors.As(err, &me):
		var b manifestErrorResponse
		b.Error.Code, b.Error.Message, b.ManifestErrors = "bad_manifest",
			fmt.Sprintf("the manifest has %d problem(s); nothing was imported: %v", len(me), me), me
		writeJSON(w, http.StatusBadRequest, b)
	case err != nil:
		s.apiDocFail(w, r, err)
	default:
		writeJSON(w, http.StatusOK, res)
	}
}

// importManifest is the documents page's manifest form. A manifest with
// errors shows the page again with the errors listed, row by row; an
// import goes to the documents page with what became of each row.
func (s *Server) importManifest(w http.ResponseWriter, r *http.Request) {
	res, err := s.runImport(r)
	var me ingest.ManifestErrors
	switch {
	case errors.As(err, &me):
		data, derr := s.documentsData(r)
		if derr != nil {
			s.pageError(w, r, derr)
			return
		}
		data.ImportErrors = me
		s.render(w, r, http.StatusBadRequest, "documents", data)
		return
	case err != nil:
		s.pageError(w, r, err)
		return
	}
	msg := fmt.Sprintf("Manifest imported: %d of %d rows stored as new documents", res.Stored, len(res.Rows))
	if res.Replaced > 0 {
		msg += fmt.Sprintf(", %d replaced the file of an identical document", res.Replaced)
	}
	msg += "; the next run indexes them."
	var ids []string
	for _, o := range res.Rows {
		if o.ID != 0 && len(ids) < maxUploadedShown {
			ids = append(ids, strconv.FormatInt(o.ID, 10))
		}
		switch {
		case o.Error != "":
			msg += fmt.Sprintf(" Row %d (%s): not stored: %s.", o.Row, o.File, o.Error)
		case o.Warning != "":
			msg += fmt.Sprintf(" Row %d (%s): stored, but %s.", o.Row, o.File, o.Warning)
		}
	}
	if len(res.Unlisted) > 0 {
		msg += " Not in the manifest, not stored: " + strings.Join(res.Unlisted, ", ") + "."
	}
	v := url.Values{"done": {msg}}
	if len(ids) > 0 {
		v.Set("uploaded", strings.Join(ids, ","))
	}
	http.Redirect(w, r, "/documents?"+v.Encode(), http.StatusSeeOther)
}
