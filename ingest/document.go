package ingest

import (
	"context"
	"errors"
	"sync"

	"github.com/rs/zerolog"

	"github.com/plagd/plagd/disguise"
	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/extract"
	"github.com/plagd/plagd/extract/sandbox"
	"github.com/plagd/plagd/store"
)

// Documents is the way one document enters the archive or gets new
// content: the JSON API's create and update and the web pages' upload and
// edit forms all go through it. For each it extracts the text once (with
// the process's extraction pool, where a hostile file costs a child
// process), stores the document through package store in the caller's
// transaction, and then compares the text with the archive and records its
// near-duplicate hash, so that the next upload is compared with it before
// any run. Safe for concurrent use.
type Documents struct {
	extract *sandbox.Pool
	opt     extract.Options
	reader  func() string // store.Reader(opt), found on first use (it digests the executable)
	near    *engine.NearDups
	log     zerolog.Logger
}

// New makes the document entry of a process: pool reads files as opt
// says (the engine's extraction pool and the configuration's options, so
// that a warning says what the run will do), near keeps the process's
// near-duplicate index.
func New(pool *sandbox.Pool, opt extract.Options, near *engine.NearDups, log zerolog.Logger) *Documents {
	return &Documents{extract: pool, opt: opt, reader: sync.OnceValue(func() string { return store.Reader(opt) }), near: near, log: log}
}

// Tx runs fn in one transaction of the caller's: the web server's is bound
// to the acting user (store.DB.Audited), so that the audit log says who
// stored or changed what.
type Tx func(ctx context.Context, fn func(q store.Querier) error) error

// Result is what became of a document's new content.
type Result struct {
	ID int64
	// Warning says that the next run will mark the document failed, and
	// why, or that its text could not be read now; "" when the text was
	// extracted. The document is stored either way, so that a fixed file
	// stored again clears the failure.
	Warning string
	// Checked: the text was compared with the archive (new content, read,
	// and the document not deleted). NearDups are then the documents within
	// neardup.distance bits, nearest first.
	Checked  bool
	NearDups []engine.NearDuplicate
	// NearDupsErr says that the comparison failed; the document is stored
	// all the same, and the next run compares it again.
	NearDupsErr error
}

// Create stores a new document (a file, or plain text) in tx.
func (d *Documents) Create(ctx context.Context, tx Tx, in store.DocumentInput) (Result, error) {
	read, warning := d.readText(ctx, in.Content, in.Filename, in.ContentType, in.Text)
	res := Result{Warning: warning}
	err := tx(ctx, func(q store.Querier) (err error) {
		if res.ID, err = store.CreateDocument(ctx, q, in); err != nil || warning != "" {
			return err
		}
		return store.KeepExtracted(ctx, q, res.ID, in.Content, d.reader(), read.Text, read.Flags)
	})
	if err != nil {
		return res, err
	}
	if warning == "" {
		d.record(ctx, &res, read.Text)
	}
	return res, nil
}

// Change is an update of document ID: Patch's fields, then, with Delete,
// a soft delete, in one transaction.
type Change struct {
	ID     int64
	Patch  store.DocumentPatch
	Delete bool
	// Guard, when set, runs first in the transaction and may refuse the
	// change: the web server checks there that the caller may change the
	// restricted flag (store.LockRestricted).
	Guard func(ctx context.Context, q store.Querier) error
}

// Update applies c in tx. New content (a file or a text) is read first and
// compared with the archive after the change, unless it deleted the
// document.
func (d *Documents) Update(ctx context.Context, tx Tx, c Change) (Result, error) {
	p := c.Patch
	res := Result{ID: c.ID}
	newContent := p.Content != nil || p.Text != nil
	var read extract.Result
	if newContent {
		read, res.Warning = d.readText(ctx, p.Content, deref(p.Filename), deref(p.ContentType), deref(p.Text))
	}
	err := tx(ctx, func(q store.Querier) error {
		if c.Guard != nil {
			if err := c.Guard(ctx, q); err != nil {
				return err
			}
		}
		if err := store.UpdateDocument(ctx, q, c.ID, p); err != nil {
			return err
		}
		if c.Delete {
			return store.DeleteDocument(ctx, q, c.ID)
		}
		if newContent && res.Warning == "" {
			return store.KeepExtracted(ctx, q, c.ID, p.Content, d.reader(), read.Text, read.Flags)
		}
		return nil
	})
	if err != nil {
		return res, err
	}
	if newContent && res.Warning == "" && !c.Delete {
		d.record(ctx, &res, read.Text)
	}
	return res, nil
}

// readText tries what the next run will do with a document's content (a
// file, or plain text when content is nil): it returns the text and the
// document's flags, or says when the run will mark the document failed
// (warning; the result is then empty).
func (d *Documents) readText(ctx context.Context, content []byte, filename, contentType, text string) (extracted extract.Result, warning string) {
	if content == nil {
		content, filename, contentType = []byte(text), "", "text/plain; charset=utf-8"
	}
	extracted, reason, err := readText(ctx, d.extract, content, filename, contentType, d.opt)
	switch {
	case err != nil:
		// Not the file's fault (the request ended, the server is stopping):
		// the run will read it.
		return extract.Result{}, "its text could not be read now (" + err.Error() + "); the next run will read it"
	case reason != nil:
		return extract.Result{}, "the next run will mark it failed: " + reason.Error()
	}
	return extracted, ""
}

// record compares the text of document res.ID with the archive and records
// its hash.
func (d *Documents) record(ctx context.Context, res *Result, text string) {
	res.Checked = true
	res.NearDups, res.NearDupsErr = d.near.CheckAndRecord(ctx, res.ID, text)
}

// readText extracts one file with pool as the next run will: the text
// with the document's flags (disguise.Of: what extraction found hidden in
// the file and what the text shows), or the file's own reason it has none
// (an *extract.Error: unreadable, too large, no text), or an error that is
// not the file's (ctx ended, the pool could not start a process). Both ways
// into the archive read files here.
func readText(ctx context.Context, pool *sandbox.Pool, content []byte, filename, contentType string, opt extract.Options) (read extract.Result, reason, err error) {
	read, err = pool.Read(ctx, content, filename, contentType, opt)
	var xe *extract.Error
	switch {
	case err == nil:
		read.Flags = disguise.Of(read.Flags, read.Text)
		return read, nil, nil
	case errors.As(err, &xe):
		return extract.Result{}, err, nil
	}
	return extract.Result{}, nil, err
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
