package ingest

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/plagd/plagd/store"
)

// Duplicates says what to do with a file whose bytes equal a live
// document's (store.IdenticalDocuments): staff re-uploading a file by
// mistake should be told, not given a second copy that then shows up as
// its own 100 % source.
type Duplicates string

const (
	// DuplicatesAsk stores nothing and returns an *IdenticalError naming
	// the documents, so that the caller can ask (the page), answer 409
	// (the API) or skip the file with a message (the CLI).
	DuplicatesAsk Duplicates = ""
	// DuplicatesNew stores the file as a new document all the same.
	DuplicatesNew Duplicates = "new"
	// DuplicatesReplace gives the existing document (the oldest identical
	// one) this upload's file name and the metadata the upload states,
	// instead of a new document.
	DuplicatesReplace Duplicates = "replace"
)

// ParseDuplicates reads a duplicates choice: "", "ask", "new" or "replace".
func ParseDuplicates(s string) (Duplicates, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "ask", "warn", "skip":
		return DuplicatesAsk, nil
	case "new":
		return DuplicatesNew, nil
	case "replace":
		return DuplicatesReplace, nil
	}
	return "", fmt.Errorf("duplicate %q is not a choice: use new (store a second copy) or replace (give the existing document this file and its details), or leave it out to be warned", s)
}

// IdenticalError is a file not stored because live documents have the
// same bytes.
type IdenticalError struct {
	Filename string
	Existing []store.Identical
}

func (e *IdenticalError) Error() string {
	d := e.Existing[0]
	name := d.Title
	if name == "" {
		name = d.Filename
	}
	return fmt.Sprintf("%s is byte for byte the file of document %d (%q), already in the archive: not stored again. "+
		"Replace that document's file, or store it as a new document anyway", shownName(e.Filename), d.ID, name)
}

func shownName(s string) string {
	if s == "" {
		return "the file"
	}
	return s
}

// Stored is what CreateOrReplace did: a new document (Replaced false) or
// the existing identical one updated (Replaced true).
type Stored struct {
	Result
	Replaced bool
}

// CreateOrReplace stores a new document from a file as dup says when
// live documents already have its bytes; without such documents (or for
// plain text) it is Create, with the title the file name without its
// extension when none is given (a replace keeps the stored title then). guard, when set, runs first in a replace's
// transaction (the web server checks the restricted flag there).
func (d *Documents) CreateOrReplace(ctx context.Context, tx Tx, in store.DocumentInput, dup Duplicates,
	guard func(ctx context.Context, q store.Querier, id int64, p store.DocumentPatch) error) (Stored, error) {
	create := func() (Stored, error) {
		if in.Title == "" && in.Filename != "" {
			in.Title = strings.TrimSuffix(in.Filename, path.Ext(in.Filename))
		}
		res, err := d.Create(ctx, tx, in)
		return Stored{Result: res}, err
	}
	if in.Content == nil || dup == DuplicatesNew {
		return create()
	}
	var same []store.Identical
	err := tx(ctx, func(q store.Querier) (err error) {
		same, err = store.IdenticalDocuments(ctx, q, in.Content)
		return err
	})
	if err != nil {
		return Stored{}, err
	}
	if len(same) == 0 {
		return create()
	}
	if dup != DuplicatesReplace {
		return Stored{}, &IdenticalError{Filename: in.Filename, Existing: same}
	}
	id := same[0].ID
	p := replacePatch(in)
	c := Change{ID: id, Patch: p}
	if guard != nil {
		c.Guard = func(ctx context.Context, q store.Querier) error { return guard(ctx, q, id, p) }
	}
	res, err := d.Update(ctx, tx, c)
	return Stored{Result: res, Replaced: true}, err
}

// replacePatch is an upload as a change of the document it duplicates:
// the file and its name, and the details the upload states (an empty
// field keeps the stored value; restricted can only be set, not cleared).
func replacePatch(in store.DocumentInput) store.DocumentPatch {
	p := store.DocumentPatch{Content: in.Content, Filename: &in.Filename, ContentType: &in.ContentType}
	for _, f := range []struct {
		v   string
		dst **string
	}{{in.ExternalID, &p.ExternalID}, {in.Title, &p.Title}, {in.Author, &p.Author}, {in.Kind, &p.Kind}} {
		if f.v != "" {
			v := f.v
			*f.dst = &v
		}
	}
	if in.Year != 0 {
		y := in.Year
		p.Year = &y
	}
	if in.Restricted {
		r := true
		p.Restricted = &r
	}
	return p
}
