package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/plagd/plagd/archive"
	"github.com/plagd/plagd/disguise"
	"github.com/plagd/plagd/internal/safetext"
)

// The documents table is the integrator's (docs/integration.md); these
// functions are how plagd's own web interface and JSON API write and read
// it, through the same contract: a write is picked up by the change-log
// trigger and processed by the next run. They take a pool or a transaction:
// the web server writes inside a transaction bound to the acting user, so
// that the audit log (package audit) records who made the change.

// Errors of the document functions, for callers to map to a status.
var (
	ErrNoDocument      = errors.New("no such document")
	ErrExternalIDTaken = errors.New("another document has this external id")
)

// DocumentInput is a new document: a file (Content, with Filename for the
// format) or plain text, with what the archive knows about it.
type DocumentInput struct {
	// Header: ExternalID "" is none (NULL), Year 0 unknown.
	archive.Header
	Filename    string
	ContentType string
	Content     []byte // the file; nil when Text is given
	Text        string
}

// CreateDocument stores a new document; the next run indexes it.
func CreateDocument(ctx context.Context, pool Querier, in DocumentInput) (int64, error) {
	in = in.sanitized()
	var id int64
	var content any
	if in.Content != nil {
		content = in.Content
	}
	err := pool.QueryRow(ctx, `
		insert into documents (external_id, title, author, kind, year, filename, content_type, content, text, restricted)
		values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning id`,
		NullIfEmpty(in.ExternalID), NullIfEmpty(in.Title), NullIfEmpty(in.Author), NullIfEmpty(in.Kind), nullIfZero(in.Year),
		NullIfEmpty(in.Filename), NullIfEmpty(in.ContentType), content, textOrNil(in), in.Restricted).Scan(&id)
	if isUniqueViolation(err) {
		return 0, fmt.Errorf("%w: %q", ErrExternalIDTaken, in.ExternalID)
	}
	if err != nil {
		return 0, fmt.Errorf("store document: %w", err)
	}
	return id, nil
}

// sanitized is in as it may be stored: every text field valid UTF-8
// without NUL, the one-line fields without control characters and bounded
// (fields.go), so that no client or file name can fail the insert or carry
// escapes into a page, a log or a terminal.
func (in DocumentInput) sanitized() DocumentInput {
	in.ExternalID = ExternalIDField(in.ExternalID)
	in.Title, in.Author = safetext.Line(in.Title, MaxTitleBytes), safetext.Line(in.Author, MaxTitleBytes)
	in.Kind = safetext.Line(in.Kind, MaxKindBytes)
	in.Filename = FileNameField(in.Filename)
	in.ContentType = safetext.Line(in.ContentType, MaxKindBytes)
	in.Text = safetext.Text(in.Text)
	return in
}

// sanitizedPtr applies clean to *s, keeping nil.
func sanitizedPtr(s *string, clean func(string) string) *string {
	if s == nil {
		return nil
	}
	v := clean(*s)
	return &v
}

// textOrNil is the text column of a new document: NULL when a file is given.
func textOrNil(in DocumentInput) any {
	if in.Content != nil {
		return nil
	}
	return in.Text
}

// DocumentPatch changes some fields of a document; nil fields stay. A new
// file (Content) or Text replaces the document's content and makes the next
// run re-index it; metadata and Restricted do not touch the index.
type DocumentPatch struct {
	ExternalID, Title, Author, Kind *string
	Year                            *int
	Restricted                      *bool
	// Content, with Filename and ContentType, replaces the file (and clears
	// a plain text); Text replaces the plain text (and drops the file).
	Content               []byte
	Filename, ContentType *string
	Text                  *string
	// Undelete brings back a soft-deleted document.
	Undelete bool
}

// UpdateDocument applies p to document id in one statement.
func UpdateDocument(ctx context.Context, pool Querier, id int64, p DocumentPatch) error {
	p.ExternalID = sanitizedPtr(p.ExternalID, ExternalIDField)
	p.Title = sanitizedPtr(p.Title, func(s string) string { return safetext.Line(s, MaxTitleBytes) })
	p.Author = sanitizedPtr(p.Author, func(s string) string { return safetext.Line(s, MaxTitleBytes) })
	p.Kind = sanitizedPtr(p.Kind, func(s string) string { return safetext.Line(s, MaxKindBytes) })
	p.Filename = sanitizedPtr(p.Filename, FileNameField)
	p.ContentType = sanitizedPtr(p.ContentType, func(s string) string { return safetext.Line(s, MaxKindBytes) })
	p.Text = sanitizedPtr(p.Text, safetext.Text)
	var sets []string
	var args []any
	set := func(col string, v any) {
		args = append(args, v)
		sets = append(sets, fmt.Sprintf("%s = $%d", col, len(args)))
	}
	if p.ExternalID != nil {
		set("external_id", NullIfEmpty(*p.ExternalID))
	}
	if p.Title != nil {
		set("title", NullIfEmpty(*p.Title))
	}
	if p.Author != nil {
		set("author", NullIfEmpty(*p.Author))
	}
	if p.Kind != nil {
		set("kind", NullIfEmpty(*p.Kind))
	}
	if p.Year != nil {
		set("year", nullIfZero(*p.Year))
	}
	if p.Restricted != nil {
		set("restricted", *p.Restricted)
	}
	switch {
	case p.Content != nil:
		set("content", p.Content)
		set("text", nil)
		if p.Filename != nil {
			set("filename", NullIfEmpty(*p.Filename))
		}
		if p.ContentType != nil {
			set("content_type", NullIfEmpty(*p.ContentType))
		}
	case p.Text != nil:
		set("text", *p.Text)
		set("content", nil)
	}
	if p.Undelete {
		sets = append(sets, "deleted_at = null")
	}
	if len(sets) == 0 {
		_, err := GetDocument(ctx, pool, id)
		return err
	}
	sets = append(sets, "updated_at = now()")
	args = append(args, id)
	tag, err := pool.Exec(ctx, fmt.Sprintf("update documents set %s where id = $%d", strings.Join(sets, ", "), len(args)), args...)
	if isUniqueViolation(err) {
		return fmt.Errorf("%w: %q", ErrExternalIDTaken, *p.ExternalID)
	}
	if err != nil {
		return fmt.Errorf("update document %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%w: %d", ErrNoDocument, id)
	}
	return nil
}

// DeleteDocument soft-deletes document id: it leaves the index and every
// similarity list at the next run, and can be brought back (Undelete) until
// an integrator deletes the row.
func DeleteDocument(ctx context.Context, pool Querier, id int64) error {
	tag, err := pool.Exec(ctx, `update documents set deleted_at = coalesce(deleted_at, now()), updated_at = now() where id = $1`, id)
	if err != nil {
		return fmt.Errorf("delete document %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%w: %d", ErrNoDocument, id)
	}
	return nil
}

// Document is a document's header and processing state, without its text.
// It declares Header's fields one by one instead of embedding it: JSON
// keeps the fields' order, and the API's documents have restricted after
// size, which an embedded Header would move (the answers must not change);
// Head returns them as a Header.
type Document struct {
	ID          int64   `json:"id"`
	ExternalID  string  `json:"external_id,omitempty"`
	Title       string  `json:"title,omitempty"`
	Author      string  `json:"author,omitempty"`
	Kind        string  `json:"kind,omitempty"`
	Year        int     `json:"year,omitempty"`
	Filename    string  `json:"filename,omitempty"`
	ContentType string  `json:"content_type,omitempty"`
	Size        int     `json:"size"` // bytes of the file, or of the plain text
	Restricted  bool    `json:"restricted"`
	Status      string  `json:"status"` // indexed, failed, pending or deleted (as DocInfo)
	Error       string  `json:"error,omitempty"`
	ErrorKind   string  `json:"error_kind,omitempty"`
	Words       int     `json:"words"`
	Chunks      int     `json:"chunks"`
	TopMatch    float64 `json:"top_match"` // highest chunk containment of this document in another (its list's first row)
	// SimilarityIndex is the document's similarity index (report.Index) as
	// the last run stored it; nil when it has none yet (pending, failed,
	// deleted, or queued behind a run that just committed).
	SimilarityIndex *SimilarityIndex `json:"similarity_index"`
	Created         time.Time        `json:"created"`
	Updated         time.Time        `json:"updated"`
	Deleted         *time.Time       `json:"deleted,omitempty"`
	// Flags say how the document's text was disguised (package disguise),
	// as the last run that indexed it found; spans are offsets of its
	// stored text. None when it was not disguised or has no stored text.
	Flags []disguise.Flag `json:"flags,omitempty"`
}

// documentStatus is a document's status (DocInfo's rule) over documents d
// left join document_status s.
const documentStatus = `case when d.deleted_at is not null then 'deleted'
	     when s.doc_id is null or exists (select 1 from plagd_changes c where c.doc_id = d.id and ` + changedEntry + `) then 'pending'
	     else s.status end`

// DocumentStatuses are the statuses of ids (indexed, failed, pending or
// deleted), for pages that wait for a run; an id that is no document's is
// missing from the map.
func DocumentStatuses(ctx context.Context, q Querier, ids []int64) (map[int64]string, error) {
	rows, err := q.Query(ctx, `select d.id, `+documentStatus+`
		from documents d left join document_status s on s.doc_id = d.id where d.id = any($1)`, ids)
	if err != nil {
		return nil, fmt.Errorf("read document statuses: %w", err)
	}
	defer rows.Close()
	out := make(map[int64]string, len(ids))
	for rows.Next() {
		var id int64
		var st string
		if err := rows.Scan(&id, &st); err != nil {
			return nil, fmt.Errorf("read document statuses: %w", err)
		}
		out[id] = st
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read document statuses: %w", err)
	}
	return out, nil
}

// documentColumns selects a Document from documents d left join
// document_status s; the status rule is DocInfo's.
const documentColumns = `
	d.id, coalesce(d.external_id, ''), coalesce(d.title, ''), coalesce(d.author, ''), coalesce(d.kind, ''),
	coalesce(d.year, 0), coalesce(d.filename, ''), coalesce(d.content_type, ''),
	coalesce(octet_length(d.content), octet_length(d.text), 0), d.restricted,
	` + documentStatus + `,
	coalesce(s.error, ''), coalesce(s.error_kind, ''), coalesce(s.words, 0), coalesce(s.chunks, 0),
	coalesce((select max(x.similarity) from similarities x where x.doc_id = d.id), 0),
	d.created_at, d.updated_at, d.deleted_at, (select t.flags from document_texts t where t.doc_id = d.id) as flags,
	i.value as index_value, i.sources, i.versions, i.top_source, i.top_share, i.run_id`

// documentFrom joins what documentColumns reads.
const documentFrom = `documents d left join document_status s on s.doc_id = d.id left join similarity_index i on i.doc_id = d.id`

func scanDocument(row pgx.Row) (Document, error) {
	var d Document
	var flags []byte
	var idx nullIndex
	err := row.Scan(&d.ID, &d.ExternalID, &d.Title, &d.Author, &d.Kind, &d.Year, &d.Filename, &d.ContentType,
		&d.Size, &d.Restricted, &d.Status, &d.Error, &d.ErrorKind, &d.Words, &d.Chunks, &d.TopMatch,
		&d.Created, &d.Updated, &d.Deleted, &flags,
		&idx.value, &idx.sources, &idx.versions, &idx.top, &idx.share, &idx.run)
	if err == nil {
		d.Flags, err = ParseFlags(flags)
		d.SimilarityIndex = idx.index()
	}
	return d, err
}

// GetDocument reads document id (ErrNoDocument when there is none).
func GetDocument(ctx context.Context, pool Querier, id int64) (Document, error) {
	d, err := scanDocument(pool.QueryRow(ctx, `select `+documentColumns+` from `+documentFrom+` where d.id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return d, fmt.Errorf("%w: %d", ErrNoDocument, id)
	}
	if err != nil {
		return d, fmt.Errorf("read document %d: %w", id, err)
	}
	return d, nil
}

// DocumentQuery selects documents for a list: a search term matched against
// title, author and external id (case-insensitive substring), a status,
// flagged documents only, a least similarity index, an order and a page.
type DocumentQuery struct {
	Search  string
	Status  string // "" any; indexed, failed, pending or deleted
	Flagged bool   // only documents whose stored text carries a flag
	// MinIndex keeps the documents whose similarity index is at least
	// this share (0-1); 0 keeps all, those without an index too.
	MinIndex float64
	// ByIndex orders by similarity index, highest first (ties newest
	// first); otherwise newest first.
	ByIndex bool
	Limit   int // at most 500; 0 = 50
	Offset  int
}

// ListDocuments returns one page of documents, newest first, and whether
// more follow.
func ListDocuments(ctx context.Context, pool Querier, q DocumentQuery) (docs []Document, more bool, err error) {
	if q.Limit <= 0 {
		q.Limit = 50
	}
	q.Limit = min(q.Limit, 500)
	order := `x.id desc`
	if q.ByIndex {
		order = `x.index_value desc nulls last, x.id desc`
	}
	rows, err := pool.Query(ctx, `select * from (select `+documentColumns+` from `+documentFrom+`
		where ($1 = '' or d.title ilike '%' || $1 || '%' or d.author ilike '%' || $1 || '%' or d.external_id ilike '%' || $1 || '%')
		) x
		where ($2 = '' or x.status = $2) and (not $5 or x.flags is not null) and ($6::float8 <= 0 or x.index_value >= $6::float8)
		order by `+order+` limit $3 offset $4`, escapeLike(q.Search), q.Status, q.Limit+1, max(q.Offset, 0), q.Flagged, q.MinIndex)
	if err != nil {
		return nil, false, fmt.Errorf("list documents: %w", err)
	}
	defer rows.Close()
	docs = []Document{}
	for rows.Next() {
		d, err := scanDocument(rows)
		if err != nil {
			return nil, false, fmt.Errorf("list documents: %w", err)
		}
		docs = append(docs, d)
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("list documents: %w", err)
	}
	if len(docs) > q.Limit {
		return docs[:q.Limit], true, nil
	}
	return docs, false, nil
}

// escapeLike makes a search term match literally inside ilike.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

func nullIfZero(n int) any {
	if n == 0 {
		return nil
	}
	return n
}

func isUniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// NullIfEmpty is s for a nullable text column: NULL for "".
func NullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// ErrNoText is a document without a stored text: not processed yet, failed
// or deleted (Document.Status says which).
var ErrNoText = errors.New("no stored text")

// DocumentText is the text the last run extracted and stored for document
// id (document_texts), or ErrNoText.
func DocumentText(ctx context.Context, q Querier, id int64) (string, error) {
	var body string
	err := q.QueryRow(ctx, `select body from document_texts where doc_id = $1`, id).Scan(&body)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return "", fmt.Errorf("document %d: %w", id, ErrNoText)
	case err != nil:
		return "", fmt.Errorf("read the text of document %d: %w", id, err)
	}
	return body, nil
}

// LockRestricted locks document id's row in the caller's transaction tx
// (until it ends) and says whether the document is restricted, so that a
// change of the flag can be checked against the value it replaces.
func LockRestricted(ctx context.Context, tx Querier, id int64) (bool, error) {
	var current bool
	err := tx.QueryRow(ctx, `select restricted from documents where id = $1 for update`, id).Scan(&current)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, fmt.Errorf("%w: %d", ErrNoDocument, id)
	}
	if err != nil {
		return false, fmt.Errorf("read document %d: %w", id, err)
	}
	return current, nil
}

// Headers reads the headers of ids as they are now; an id that is no
// document's is missing from the map.
func Headers(ctx context.Context, q Querier, ids []int64) (map[int64]archive.Header, error) {
	rows, err := q.Query(ctx, `select id, coalesce(external_id, ''), coalesce(title, ''), coalesce(author, ''),
		coalesce(kind, ''), coalesce(year, 0), restricted from documents where id = any($1)`, ids)
	if err != nil {
		return nil, fmt.Errorf("read document headers: %w", err)
	}
	defer rows.Close()
	out := make(map[int64]archive.Header, len(ids))
	for rows.Next() {
		var id int64
		var h archive.Header
		if err := rows.Scan(&id, &h.ExternalID, &h.Title, &h.Author, &h.Kind, &h.Year, &h.Restricted); err != nil {
			return nil, fmt.Errorf("read document headers: %w", err)
		}
		out[id] = h
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read document headers: %w", err)
	}
	return out, nil
}

// CountOutside counts the live documents whose external id starts with
// none of prefixes, with the smallest such id as an example: an evaluation
// refuses a database that holds documents of another corpus.
func CountOutside(ctx context.Context, q Querier, prefixes ...string) (n int, example string, err error) {
	err = q.QueryRow(ctx, `select count(*), coalesce(min(external_id), '') from documents d
		where deleted_at is null and not exists (select 1 from unnest($1::text[]) p where starts_with(coalesce(d.external_id, ''), p))`,
		prefixes).Scan(&n, &example)
	if err != nil {
		return 0, "", fmt.Errorf("count documents: %w", err)
	}
	return n, example, nil
}

// Head is d's header.
func (d Document) Head() archive.Header {
	return archive.Header{ExternalID: d.ExternalID, Title: d.Title, Author: d.Author, Kind: d.Kind, Year: d.Year, Restricted: d.Restricted}
}
