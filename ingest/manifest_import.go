package ingest

import (
	"context"
	"errors"
	"fmt"

	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/store"
)

// ManifestFiles finds the files a manifest names: the files sent with the
// upload form or the API request, or the files beside the manifest on disk
// (the CLI).
type ManifestFiles interface {
	// Check says why file cannot be imported ("" when it can), without
	// reading it: ImportManifest checks every row before storing any.
	Check(file string) string
	// Read returns the file's bytes, its name as stored and its content
	// type; an error is the file's (it is reported on its row).
	Read(file string) (content []byte, name, contentType string, err error)
}

// ManifestOutcome is what became of one row.
type ManifestOutcome struct {
	Row  int    `json:"row"`
	File string `json:"file"`
	// ID is the document stored or replaced; 0 when the row was not stored.
	ID       int64 `json:"id,omitempty"`
	Replaced bool  `json:"replaced,omitempty"`
	// Warning: stored, but the next run will mark it failed (and why).
	Warning        string                 `json:"warning,omitempty"`
	NearDuplicates []engine.NearDuplicate `json:"near_duplicates,omitempty"`
	// Identical: not stored, because these live documents have its bytes.
	Identical []store.Identical `json:"identical,omitempty"`
	// Error: not stored, and why (the file could not be read, its external
	// id is taken).
	Error string `json:"error,omitempty"`
}

// ImportManifest stores the rows of a manifest, each in its own
// transaction (a row is stored whole or not at all), after checking that
// every row's file is there: a manifest naming a missing file imports
// nothing (ManifestErrors). A file identical to a live document is handled
// as dup says (CreateOrReplace); a row that cannot be stored is reported
// on its outcome and the others go on. An error is returned only when the
// database fails or ctx ends, with the outcomes of the rows done so far.
func (d *Documents) ImportManifest(ctx context.Context, tx Tx, rows []ManifestRow, files ManifestFiles, dup Duplicates,
	guard func(ctx context.Context, q store.Querier, id int64, p store.DocumentPatch) error) ([]ManifestOutcome, error) {
	var errs ManifestErrors
	for _, r := range rows {
		if msg := files.Check(r.File); msg != "" {
			errs = append(errs, ManifestError{Row: r.Row, Column: "file", Msg: msg})
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	out := make([]ManifestOutcome, 0, len(rows))
	for _, r := range rows {
		o := ManifestOutcome{Row: r.Row, File: r.File}
		content, name, ctype, err := files.Read(r.File)
		if err != nil {
			o.Error = err.Error()
			out = append(out, o)
			continue
		}
		in := store.DocumentInput{Header: r.Header, Filename: name, ContentType: ctype, Content: content}
		st, err := d.CreateOrReplace(ctx, tx, in, dup, guard)
		var ie *IdenticalError
		switch {
		case errors.As(err, &ie):
			o.Identical = ie.Existing
			o.Error = ie.Error()
		case errors.Is(err, store.ErrExternalIDTaken):
			o.Error = fmt.Sprintf("external id %q is another document's: leave it empty, or change it", r.Header.ExternalID)
		case err != nil:
			if ctx.Err() != nil || !isRowError(err) {
				return out, fmt.Errorf("manifest row %d (%s): %w", r.Row, r.File, err)
			}
			o.Error = err.Error()
		default:
			o.ID, o.Replaced, o.Warning, o.NearDuplicates = st.ID, st.Replaced, st.Warning, st.NearDups
		}
		out = append(out, o)
	}
	return out, nil
}

// RowError marks an error that belongs to one row (a guard's refusal), so
// that ImportManifest reports it on the row and goes on.
type RowError struct{ Err error }

func (e *RowError) Error() string { return e.Err.Error() }
func (e *RowError) Unwrap() error { return e.Err }

func isRowError(err error) bool {
	var re *RowError
	return errors.As(err, &re)
}
