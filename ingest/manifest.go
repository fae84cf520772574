package ingest

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/plagd/plagd/archive"
	"github.com/plagd/plagd/store"
)

// A manifest is how archive staff describe a bulk import: a CSV file, one
// row per file, with what the archive should know about it. The header
// row is required and names the columns (any order, any case):
//
//	file         the file's name (the upload form: the name of one of the
//	             files sent with it; the CLI: a path relative to the
//	             manifest's folder). Required.
//	external_id  the caller's key; empty: none
//	title        empty: the file name without its extension
//	author, kind free text
//	year         a number such as 2024; empty: unknown
//	restricted   true/false, yes/no, 1/0; empty: false
//
// Only file is required. The file is UTF-8 (a byte-order mark is
// allowed), fields may be quoted as RFC 4180 says, and every error names
// its row (the line of the CSV, the header being row 1) and column, so
// that staff can fix the manifest and send it again.

// ManifestColumns are the columns a manifest may have, in the order the
// documentation lists them.
var ManifestColumns = []string{"file", "external_id", "title", "author", "kind", "year", "restricted"}

// ManifestRow is one file a manifest describes.
type ManifestRow struct {
	Row    int    // line in the CSV (the header is row 1)
	File   string // as written in the manifest
	Header archive.Header
}

// ManifestError is one problem of a manifest: the row (0: the file as a
// whole) and the column it is in ("" when it is the row's).
type ManifestError struct {
	Row    int    `json:"row"`
	Column string `json:"column,omitempty"`
	Msg    string `json:"message"`
}

func (e ManifestError) Error() string {
	switch {
	case e.Row == 0:
		return "manifest: " + e.Msg
	case e.Column == "":
		return fmt.Sprintf("manifest row %d: %s", e.Row, e.Msg)
	}
	return fmt.Sprintf("manifest row %d, column %s: %s", e.Row, e.Column, e.Msg)
}

// ManifestErrors are all the problems found in a manifest; nothing of it
// is imported while there are any.
type ManifestErrors []ManifestError

func (es ManifestErrors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "; ")
}

// maxManifestErrors bounds the list: a wrong file (not a manifest at all)
// would otherwise say the same thing for every line.
const maxManifestErrors = 50

// ParseManifest reads a manifest and checks every row, returning the rows
// or, when anything is wrong, every problem found (ManifestErrors), never
// both: an import takes all of a manifest's rows or none.
func ParseManifest(r io.Reader) ([]ManifestRow, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read the manifest: %w", err)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(data) {
		line := 1 + bytes.Count(data[:firstInvalid(data)], []byte("\n"))
		return nil, ManifestErrors{{Row: line, Msg: "not UTF-8 text: save the manifest as CSV UTF-8"}}
	}
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1 // a short row is reported with its row number below
	records := [][]string{}
	lines := []int{}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return nil, ManifestErrors{{Row: pe.StartLine, Msg: csvProblem(pe)}}
		}
		if err != nil {
			return nil, fmt.Errorf("read the manifest: %w", err)
		}
		line, _ := cr.FieldPos(0)
		records, lines = append(records, rec), append(lines, line)
	}
	if len(records) == 0 {
		return nil, ManifestErrors{{Msg: "the manifest is empty: its first row names the columns (" + strings.Join(ManifestColumns, ",") + ")"}}
	}
	cols, errs := manifestHeader(records[0], lines[0])
	if len(errs) > 0 {
		return nil, errs
	}
	var rows []ManifestRow
	files := map[string]int{}
	ids := map[string]int{}
	add := func(e ManifestError) { errs = append(errs, e) }
	for i, rec := range records[1:] {
		line := lines[i+1]
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue // a blank line (or one empty field): nothing to import
		}
		if len(rec) != len(cols) {
			add(ManifestError{Row: line, Msg: fmt.Sprintf("has %d fields, the header names %d columns", len(rec), len(cols))})
			continue
		}
		row := ManifestRow{Row: line}
		for j, col := range cols {
			if msg := row.set(col, strings.TrimSpace(rec[j])); msg != "" {
				add(ManifestError{Row: line, Column: col, Msg: msg})
			}
		}
		if row.File != "" {
			key := path.Clean(strings.ReplaceAll(row.File, `\`, "/"))
			if first, dup := files[key]; dup {
				add(ManifestError{Row: line, Column: "file", Msg: fmt.Sprintf("%q is listed twice (also in row %d)", row.File, first)})
			}
			files[key] = line
		}
		if id := row.Header.ExternalID; id != "" {
			if first, dup := ids[id]; dup {
				add(ManifestError{Row: line, Column: "external_id", Msg: fmt.Sprintf("%q is given twice (also in row %d)", id, first)})
			}
			ids[id] = line
		}
		rows = append(rows, row)
		if len(errs) >= maxManifestErrors {
			add(ManifestError{Msg: "too many errors; fix these and check the manifest again"})
			break
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if len(rows) == 0 {
		return nil, ManifestErrors{{Msg: "the manifest names no file: add one row per file below the header"}}
	}
	return rows, nil
}

// manifestHeader reads the header row: known column names, each once,
// file among them.
func manifestHeader(rec []string, line int) ([]string, ManifestErrors) {
	var errs ManifestErrors
	cols := make([]string, len(rec))
	seen := map[string]bool{}
	for i, name := range rec {
		c := strings.ToLower(strings.TrimSpace(name))
		c = strings.NewReplacer(" ", "_", "-", "_").Replace(c)
		if c == "externalid" || c == "id" {
			c = "external_id"
		}
		switch {
		case !isManifestColumn(c):
			errs = append(errs, ManifestError{Row: line, Column: name, Msg: "not a manifest column: the header row names the columns, among " +
				strings.Join(ManifestColumns, ", ")})
		case seen[c]:
			errs = append(errs, ManifestError{Row: line, Column: c, Msg: "named twice in the header"})
		}
		seen[c], cols[i] = true, c
	}
	if !seen["file"] && len(errs) == 0 {
		errs = append(errs, ManifestError{Row: line, Msg: "the header has no column \"file\": the first row must name the columns, e.g. " +
			strings.Join(ManifestColumns, ",")})
	}
	return cols, errs
}

func isManifestColumn(c string) bool {
	for _, m := range ManifestColumns {
		if c == m {
			return true
		}
	}
	return false
}

// set stores one field of the row; a message says what is wrong with it.
func (m *ManifestRow) set(col, v string) string {
	switch col {
	case "file":
		if v == "" {
			return "empty: name the file this row describes"
		}
		m.File = v
	case "external_id":
		if v != "" {
			if p := store.ExternalIDProblem(v); p != "" {
				return p
			}
		}
		m.Header.ExternalID = v
	case "title":
		m.Header.Title = v
	case "author":
		m.Header.Author = v
	case "kind":
		m.Header.Kind = v
	case "year":
		if v == "" {
			return ""
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 9999 {
			return fmt.Sprintf("%q is not a year: give a number such as 2024, or leave it empty", v)
		}
		m.Header.Year = n
	case "restricted":
		switch strings.ToLower(v) {
		case "", "false", "no", "0", "n", "off":
		case "true", "yes", "1", "y", "on":
			m.Header.Restricted = true
		default:
			return fmt.Sprintf("%q is not true or false (yes/no, 1/0 also do)", v)
		}
	}
	return ""
}

// csvProblem says what encoding/csv found, in words for staff.
func csvProblem(pe *csv.ParseError) string {
	switch {
	case errors.Is(pe.Err, csv.ErrQuote), errors.Is(pe.Err, csv.ErrBareQuote):
		return fmt.Sprintf("a quote (\") in column %d is misplaced: quote a whole field, and double a quote inside one (\"\")", pe.Column)
	}
	return pe.Err.Error()
}

func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}
