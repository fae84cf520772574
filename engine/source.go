package engine

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/disguise"
	"github.com/plagd/plagd/extract"
	"github.com/plagd/plagd/extract/sandbox"
	"github.com/plagd/plagd/internal/safetext"
	"github.com/plagd/plagd/store"
)

// pgSource is the run's cluster.TextSource over PostgreSQL. Fresh texts are
// extracted from documents.content (or taken from documents.text) and staged
// in plagd_text_stage, so that the commit stores exactly the text that was
// chunked without the run holding every text in memory.
type pgSource struct {
	pool    *pgxpool.Pool
	run     int64
	opt     extract.Options
	extract *sandbox.Pool
	// reader is store.Reader(opt): a text read at upload by the same reader
	// from the same bytes (plagd_extracted) is taken instead of extracting
	// again; reused counts those.
	reader string
	reused atomic.Int64
	// templates are the registered templates the run applies: each text
	// carries the chunk filter of its document's kind (SourceText.Skip).
	templates *templateSet
}

// Fresh implements cluster.TextSource.
func (s *pgSource) Fresh(ctx context.Context, ids []int64) ([]cluster.SourceText, error) {
	rows, err := s.pool.Query(ctx, `
		select d.id, d.deleted_at is not null, d.content, d.filename, d.content_type, d.text, x.body, x.flags, coalesce(d.kind, '')
		from documents d
		left join plagd_extracted x on x.doc_id = d.id and x.reader = $2 and $2 <> ''
			and x.source_sha = sha256(d.content)
		where d.id = any($1)`, ids, s.reader)
	if err != nil {
		return nil, fmt.Errorf("read documents: %w", err)
	}
	byID := make(map[int64]cluster.SourceText, len(ids))
	flags := make(map[int64][]disguise.Flag, len(ids))
	for rows.Next() {
		var (
			id                  int64
			deleted             bool
			content             []byte
			filename, ctype, tx *string
			read                *string // the text read at upload, when it is valid
			readFlags           []byte  // its flags
			kind                string
		)
		if err := rows.Scan(&id, &deleted, &content, &filename, &ctype, &tx, &read, &readFlags, &kind); err != nil {
			rows.Close()
			return nil, err
		}
		t, f, err := s.textOf(ctx, id, deleted, content, store.Deref(filename), store.Deref(ctype), tx, read, readFlags)
		if err != nil {
			rows.Close()
			return nil, err
		}
		t.Skip = s.templates.skip(kind)
		byID[id], flags[id] = t, f
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]cluster.SourceText, len(ids))
	stage := make([][]any, 0, len(ids))
	for i, id := range ids {
		t, ok := byID[id]
		if !ok {
			t = cluster.SourceText{ID: id, Gone: true}
		}
		out[i] = t
		if !t.Gone && t.Failed == "" {
			f, err := store.FlagsValue(flags[id])
			if err != nil {
				return nil, err
			}
			stage = append(stage, []any{s.run, id, t.Text, f})
		}
	}
	if len(stage) > 0 {
		if _, err := s.pool.CopyFrom(ctx, pgx.Identifier{"plagd_text_stage"},
			[]string{"run_id", "doc_id", "body", "flags"}, pgx.CopyFromRows(stage)); err != nil {
			return nil, fmt.Errorf("stage texts: %w", err)
		}
	}
	return out, nil
}

// textOf turns one documents row into the text to chunk, or a failure
// reason, and the document's flags (disguise.Of: what extraction found in
// the file and what the text itself shows; none for a failed or deleted
// document). The file is read by the extraction pool, where a hostile file
// costs its own child process, not the run. An error is not the document's
// fault (the run was cancelled, the pool closed or unable to start a
// process): the run fails and the document stays pending. read is the text
// ingest read from the same content with the same reader, if any, and
// readFlags its flags: taken instead of reading the file again.
func (s *pgSource) textOf(ctx context.Context, id int64, deleted bool, content []byte, filename, ctype string, text, read *string,
	readFlags []byte) (cluster.SourceText, []disguise.Flag, error) {
	switch {
	case deleted:
		return cluster.SourceText{ID: id, Gone: true}, nil, nil
	case content != nil && read != nil:
		s.reused.Add(1)
		t, err := sourceText(id, *read, nil)
		if err != nil || t.Failed != "" {
			return t, nil, err
		}
		f, err := store.ParseFlags(readFlags)
		return t, f, err
	case content != nil:
		r, err := s.extract.Read(ctx, content, filename, ctype, s.opt)
		return flagged(id, r, err)
	case text != nil:
		// Plain text from the integrator goes through the same clean-up as files.
		r, err := s.extract.Read(ctx, []byte(*text), "", "text/plain; charset=utf-8", s.opt)
		return flagged(id, r, err)
	default:
		return cluster.SourceText{ID: id, Failed: "the row has neither content nor text", FailedKind: "no_content"}, nil, nil
	}
}

// flagged is sourceText of a text read now, with its flags: what extraction found
// hidden in the file (r.Flags) merged with what the text as it is staged
// shows (disguise.Of), spans being offsets of the stored text.
func flagged(id int64, r extract.Result, err error) (cluster.SourceText, []disguise.Flag, error) {
	t, err := sourceText(id, r.Text, err)
	if err != nil || t.Gone || t.Failed != "" {
		return t, nil, err
	}
	return t, disguise.Of(r.Flags, t.Text), nil
}

// sourceText turns an extraction result into a SourceText whose text can
// be staged and stored (valid UTF-8, no NUL, bounded) and whose reason can
// be stored and shown (one clean bounded line): a parser's error quoting the
// file's bytes fails its document, never the staging or the run's commit.
// An error that is not an *extract.Error (the run was cancelled, no
// extraction process could start) is returned as the run's.
func sourceText(id int64, text string, err error) (cluster.SourceText, error) {
	if err == nil {
		t, tooLong := store.StorableText(text)
		if tooLong == "" {
			return cluster.SourceText{ID: id, Text: t}, nil
		}
		return cluster.SourceText{ID: id, Failed: tooLong, FailedKind: extract.ErrTooLarge.String()}, nil
	}
	var xe *extract.Error
	if !errors.As(err, &xe) {
		return cluster.SourceText{}, fmt.Errorf("extract document %d: %w", id, err)
	}
	return cluster.SourceText{ID: id, Failed: store.ReasonField(err.Error()), FailedKind: safetext.Line(xe.Kind.String(), store.MaxKindBytes)}, nil
}

// Stored implements cluster.TextSource.
func (s *pgSource) Stored(ctx context.Context, ids []int64) ([]cluster.SourceText, error) {
	rows, err := s.pool.Query(ctx, `
		select d.id, t.body, coalesce(d.kind, '') from documents d left join document_texts t on t.doc_id = d.id
		where d.id = any($1)`, ids)
	if err != nil {
		return nil, fmt.Errorf("read stored texts: %w", err)
	}
	byID := make(map[int64]*string, len(ids))
	kinds := make(map[int64]string, len(ids))
	for rows.Next() {
		var id int64
		var body *string
		var kind string
		if err := rows.Scan(&id, &body, &kind); err != nil {
			rows.Close()
			return nil, err
		}
		byID[id], kinds[id] = body, kind
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]cluster.SourceText, len(ids))
	for i, id := range ids {
		body, ok := byID[id]
		switch {
		case !ok:
			out[i] = cluster.SourceText{ID: id, Gone: true}
		case body == nil:
			out[i] = cluster.SourceText{ID: id, Failed: "no stored text"}
		default:
			out[i] = cluster.SourceText{ID: id, Text: *body, Skip: s.templates.skip(kinds[id])}
		}
	}
	return out, nil
}
