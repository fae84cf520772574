package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/plagd/plagd/internal/safetext"
)

// FileInput is a file as `plagd ingest` stores it: keyed by its external
// id (a path, checked by ExternalIDProblem before), with the title its
// name gives, the kind the import was told, and the file itself.
type FileInput struct {
	ExternalID  string
	Title       string // the file name without its extension
	Kind        string // "" keeps an existing document's kind (NULL for a new one)
	Filename    string
	ContentType string
	Content     []byte
}

// Stored is what StoreFiles did with one file.
type Stored struct {
	// ID is the document's; 0 when the file was Unchanged.
	ID int64
	// Inserted: a new document; else, with ID set, an updated one.
	Inserted bool
	// Unchanged: the stored document has this content and is live; nothing
	// was written.
	Unchanged bool
}

// FileError is a statement of StoreFiles that failed, with the index of
// its file; nothing of the batch was stored.
type FileError struct {
	Index int
	Err   error
}

func (e *FileError) Error() string { return fmt.Sprintf("file %d: %v", e.Index, e.Err) }
func (e *FileError) Unwrap() error { return e.Err }

// upsertFile stores one file. A row whose content is unchanged is left
// alone, so re-running an import is cheap and creates no change-log entries
// (the trigger fires only on a real update); a changed or soft-deleted
// document gets the new content, loses its old plain text (which came from
// the old content) and is undeleted. The title and kind an integrator may
// have edited are kept. xmax = 0 tells an inserted row from an updated one.
const upsertFile = `
insert into documents as d (external_id, title, kind, filename, content_type, content)
values ($1, $2, $3, $4, $5, $6)
on conflict (external_id) do update set
    content      = excluded.content,
    filename     = excluded.filename,
    content_type = excluded.content_type,
    kind         = coalesce(excluded.kind, d.kind),
    title        = coalesce(d.title, excluded.title),
    text         = null,
    deleted_at   = null,
    updated_at   = now()
where d.content is distinct from excluded.content or d.deleted_at is not null
returning id, (xmax = 0) as inserted`

// StoreFiles upserts files by external id in one transaction (one round
// trip: a batch) and says what it did with each, in order. The text fields
// are made clean bounded lines (fields.go) first. On an error nothing is
// stored; a *FileError names the file whose statement failed.
func StoreFiles(ctx context.Context, db *DB, files []FileInput) ([]Stored, error) {
	var batch pgx.Batch
	for _, f := range files {
		batch.Queue(upsertFile, f.ExternalID, safetext.Line(f.Title, MaxTitleBytes), NullIfEmpty(safetext.Line(f.Kind, MaxKindBytes)),
			FileNameField(f.Filename), NullIfEmpty(safetext.Line(f.ContentType, MaxKindBytes)), f.Content)
	}
	tx, err := db.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("begin transaction: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	out := make([]Stored, len(files))
	results := tx.SendBatch(ctx, &batch)
	for i := range files {
		err := results.QueryRow().Scan(&out[i].ID, &out[i].Inserted)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			out[i] = Stored{Unchanged: true}
		case err != nil:
			results.Close()
			return nil, &FileError{Index: i, Err: err}
		}
	}
	if err := results.Close(); err != nil {
		return nil, fmt.Errorf("store batch: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	return out, nil
}
