package web

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/plagd/plagd/extract"
	"github.com/plagd/plagd/internal/safetext"
	"github.com/plagd/plagd/store"
)

// errTooLarge is a request or an uploaded file over its limit: 413. The
// guard refuses most oversized uploads before a handler runs; a file that
// is within the multipart request limit but over extract.max_bytes is
// refused here.
var errTooLarge = errors.New("too large")

// problem is an error whose message is written for the person who made the
// request and whose kind (errNotFound, errBadRequest, errTooLarge, ...)
// decides the status.
type problem struct {
	kind error
	msg  string
}

func (p *problem) Error() string { return p.msg }
func (p *problem) Unwrap() error { return p.kind }

// problemf makes a problem of kind with a formatted message.
func problemf(kind error, format string, args ...any) error {
	return &problem{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// documentFromForm reads one uploaded file of a multipart form (already
// parsed by the guard) and the form's fields title, author, kind, year,
// external_id and restricted ("on", "true", "1" or "yes") into a new
// document. An empty title is left empty: ingest.CreateOrReplace makes it
// the file name for a new document and keeps a replaced one's.
// Errors wrap errBadRequest (an empty file, a year that is not a number)
// or errTooLarge (a file over maxBytes).
func documentFromForm(r *http.Request, fh *multipart.FileHeader, maxBytes int64) (store.DocumentInput, error) {
	content, name, ctype, err := readUpload(fh, maxBytes)
	if err != nil {
		return store.DocumentInput{}, err
	}
	in, err := metaFromForm(r)
	if err != nil {
		return in, err
	}
	in.Content, in.Filename, in.ContentType = content, name, ctype
	return in, nil
}

// metaFromForm reads what the archive knows about a new document from the
// form fields title, author, kind, year, external_id and restricted.
func metaFromForm(r *http.Request) (store.DocumentInput, error) {
	var in store.DocumentInput
	var err error
	in.ExternalID = strings.TrimSpace(r.PostFormValue("external_id"))
	in.Title = strings.TrimSpace(r.PostFormValue("title"))
	in.Author = strings.TrimSpace(r.PostFormValue("author"))
	in.Kind = strings.TrimSpace(r.PostFormValue("kind"))
	if in.Year, err = parseYear(r.PostFormValue("year")); err != nil {
		return in, err
	}
	if in.Restricted, err = parseFlag("restricted", r.PostFormValue("restricted")); err != nil {
		return in, err
	}
	return in, nil
}

// readUpload reads an uploaded file, refusing an empty one and one over
// maxBytes (0: no limit). It returns the file's base name (browsers on
// Windows used to send a whole path) and its content type: the declared
// one without parameters, or the one its extension implies when the
// browser declared none or only application/octet-stream.
func readUpload(fh *multipart.FileHeader, maxBytes int64) (content []byte, name, ctype string, err error) {
	name = uploadName(fh.Filename)
	shown := name
	if shown == "" {
		shown = "the uploaded file"
	}
	if maxBytes > 0 && fh.Size > maxBytes {
		return nil, name, "", problemf(errTooLarge, "%s: %v", shown, extract.TooLarge(fh.Size, maxBytes))
	}
	if fh.Size == 0 {
		return nil, name, "", problemf(errBadRequest, "%s is empty (0 bytes): choose the file again, or check that it was saved", shown)
	}
	f, err := fh.Open()
	if err != nil {
		return nil, name, "", fmt.Errorf("read the uploaded file %s: %w", shown, err)
	}
	defer f.Close()
	r := io.Reader(f)
	if maxBytes > 0 {
		r = io.LimitReader(f, maxBytes+1)
	}
	content, err = io.ReadAll(r)
	if err != nil {
		return nil, name, "", fmt.Errorf("read the uploaded file %s: %w", shown, err)
	}
	if maxBytes > 0 && int64(len(content)) > maxBytes {
		return nil, name, "", problemf(errTooLarge, "%s: %v", shown, extract.TooLarge(int64(len(content)), maxBytes))
	}
	if len(content) == 0 {
		return nil, name, "", problemf(errBadRequest, "%s is empty (0 bytes): choose the file again, or check that it was saved", shown)
	}
	ctype = fh.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ctype); err == nil {
		ctype = mt
	} else {
		ctype = ""
	}
	if ctype == "" || ctype == "application/octet-stream" {
		ctype = extract.ContentType(name)
	}
	return content, name, ctype, nil
}

// uploadName is the stored name of an uploaded file: its base name
// (browsers on Windows used to send a whole path), made one valid line of
// text and cut to store.MaxFileNameBytes by shortening the part before
// the extension (ending it with an ellipsis), so that the extension, which
// decides how the file is read, survives (safetext.FileName).
func uploadName(raw string) string {
	name := path.Base(strings.ReplaceAll(safetext.Line(raw, 0), `\`, "/"))
	if name == "." || name == "/" {
		return ""
	}
	return safetext.FileName(name, store.MaxFileNameBytes)
}

// parseYear reads a year field: "" is unknown (0).
func parseYear(s string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 9999 {
		return 0, problemf(errBadRequest, "year %q is not a year: give a number such as 2024, or leave it empty", s)
	}
	return n, nil
}

// parseFlag reads a boolean form field: an HTML checkbox ("on") or a
// script's true/false, 1/0, yes/no; "" is false.
func parseFlag(field, s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "on", "true", "1", "yes":
		return true, nil
	case "", "off", "false", "0", "no":
		return false, nil
	}
	return false, problemf(errBadRequest, "%s must be true or false, got %q", field, s)
}
