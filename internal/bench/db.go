package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plagd/plagd/internal/synth"
)

// LoadFigures is the loading of the archive into documents: not part of any
// run, reported so that it is never mistaken for one.
type LoadFigures struct {
	Docs          int     `json:"docs"`
	TextBytes     int64   `json:"text_bytes"`
	CopySeconds   float64 `json:"copy_seconds"`
	CopyMBps      float64 `json:"copy_mb_per_s"`
	VacuumSeconds float64 `json:"vacuum_analyze_seconds"`
}

// ChangeFigures is the change applied before the incremental run.
type ChangeFigures struct {
	Modified    int     `json:"modified"`
	Added       int     `json:"added"`
	SoftDeleted int     `json:"soft_deleted"`
	HardDeleted int     `json:"hard_deleted"`
	Seconds     float64 `json:"seconds"`
}

// checkEmpty refuses to overwrite an archive unless told to: the bench
// truncates every plagd table.
func checkEmpty(ctx context.Context, pool *pgxpool.Pool, force bool) error {
	var n int64
	if err := pool.QueryRow(ctx, `select count(*) from (select 1 from documents limit 1) d`).Scan(&n); err != nil {
		return fmt.Errorf("read documents: %w", err)
	}
	if n > 0 && !force {
		return errors.New("the documents table is not empty: plagd-lab bench needs an empty, migrated database of its own " +
			"(or --force, which TRUNCATES documents and all of plagd's tables)")
	}
	if n > 0 || force {
		if _, err := pool.Exec(ctx, `truncate documents, similarities, document_texts, document_status,
			plagd_changes, plagd_text_stage, runs restart identity cascade`); err != nil {
			return fmt.Errorf("truncate: %w", err)
		}
	}
	return nil
}

// docSource streams generated documents to COPY in index order, generating
// them in parallel ahead of the stream.
type docSource struct {
	docs  chan synth.Doc
	cur   synth.Doc
	bytes int64
	err   error
}

func (s *docSource) Next() bool {
	d, ok := <-s.docs
	s.cur = d
	s.bytes += int64(len(d.Text))
	return ok
}
func (s *docSource) Values() ([]any, error) {
	return []any{s.cur.ExternalID, s.cur.Title, s.cur.Kind, s.cur.Text}, nil
}
func (s *docSource) Err() error { return s.err }

// copyDocs COPYs documents [from, to) of g into documents.
func copyDocs(ctx context.Context, pool *pgxpool.Pool, g *synth.Generator, from, to int) (int64, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	src := &docSource{docs: make(chan synth.Doc, 256)}
	genErr := make(chan error, 1)
	go func() {
		defer close(src.docs)
		genErr <- g.Each(ctx, from, to, 0, func(_ int, d synth.Doc) error {
			select {
			case src.docs <- d:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	_, err := pool.CopyFrom(ctx, pgx.Identifier{"documents"}, []string{"external_id", "title", "kind", "text"}, src)
	cancel()
	for range src.docs { // let the generator finish
	}
	if gerr := <-genErr; err == nil && gerr != nil && !errors.Is(gerr, context.Canceled) {
		err = gerr
	}
	return src.bytes, err
}

// load fills documents with the archive.
func load(ctx context.Context, pool *pgxpool.Pool, g *synth.Generator, docs int, w io.Writer) (LoadFigures, error) {
	f := LoadFigures{Docs: docs}
	t := time.Now()
	n, err := copyDocs(ctx, pool, g, 0, docs)
	if err != nil {
		return f, fmt.Errorf("load documents: %w", err)
	}
	f.TextBytes = n
	f.CopySeconds = time.Since(t).Seconds()
	f.CopyMBps = float64(n) / 1e6 / f.CopySeconds
	fmt.Fprintf(w, "  COPY %d documents (%.0f MB of text) in %.1fs, %.1f MB/s\n", docs, float64(n)/1e6, f.CopySeconds, f.CopyMBps)
	// A live archive is vacuumed by autovacuum; a freshly loaded one would
	// make the first run pay for setting hint bits on every page.
	t = time.Now()
	if _, err := pool.Exec(ctx, `vacuum (analyze) documents`); err != nil {
		return f, fmt.Errorf("vacuum: %w", err)
	}
	if _, err := pool.Exec(ctx, `vacuum (analyze) plagd_changes`); err != nil {
		return f, fmt.Errorf("vacuum: %w", err)
	}
	f.VacuumSeconds = time.Since(t).Seconds()
	return f, nil
}

// applyChanges modifies, adds and deletes documents, n in all, chosen by
// the seed. Modified documents keep two thirds of their text and get a new
// last third (from a document beyond the archive), as a resubmitted thesis
// would; added ones are the next documents of the generator, so they copy
// from the archive as the generator plants.
func applyChanges(ctx context.Context, pool *pgxpool.Pool, g *synth.Generator, docs, n int, seed uint64) (ChangeFigures, error) {
	var f ChangeFigures
	f.Added = int(float64(n) * ChangeMix.Added)
	f.SoftDeleted = int(float64(n) * ChangeMix.SoftDeleted)
	f.HardDeleted = int(float64(n) * ChangeMix.HardDeleted)
	f.Modified = n - f.Added - f.SoftDeleted - f.HardDeleted
	pick := pickDistinct(docs, f.Modified+f.SoftDeleted+f.HardDeleted, seed)
	mod, soft, hard := pick[:f.Modified], pick[f.Modified:f.Modified+f.SoftDeleted], pick[f.Modified+f.SoftDeleted:]

	exts := make([]string, len(mod))
	texts := make([]string, len(mod))
	for k, i := range mod {
		old := g.Doc(i).Text
		fresh := g.Doc(docs + f.Added + k).Text
		cut := len(old) * 2 / 3
		exts[k] = g.Doc(i).ExternalID
		texts[k] = old[:cut] + "\n\n" + fresh[:min(len(fresh), len(old)-cut)]
	}
	ids := func(is []int) []string {
		out := make([]string, len(is))
		for k, i := range is {
			out[k] = fmt.Sprintf("synth-%08d", i)
		}
		return out
	}
	t := time.Now()
	if _, err := pool.Exec(ctx, `update documents d set text = u.text, updated_at = now()
		from unnest($1::text[], $2::text[]) as u(ext, text) where d.external_id = u.ext`, exts, texts); err != nil {
		return f, fmt.Errorf("modify: %w", err)
	}
	if _, err := copyDocs(ctx, pool, g, docs, docs+f.Added); err != nil {
		return f, fmt.Errorf("add: %w", err)
	}
	if _, err := pool.Exec(ctx, `update documents set deleted_at = now() where external_id = any($1)`, ids(soft)); err != nil {
		return f, fmt.Errorf("soft-delete: %w", err)
	}
	if _, err := pool.Exec(ctx, `delete from documents where external_id = any($1)`, ids(hard)); err != nil {
		return f, fmt.Errorf("hard-delete: %w", err)
	}
	f.Seconds = time.Since(t).Seconds()
	return f, nil
}

// pickDistinct returns n distinct indices of [0, docs), deterministic in seed.
func pickDistinct(docs, n int, seed uint64) []int {
	n = min(n, docs)
	seen := make(map[int]bool, n)
	out := make([]int, 0, n)
	x := seed*0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019
	for len(out) < n {
		x ^= x >> 33
		x *= 0xFF51AFD7ED558CCD
		x ^= x >> 29
		x += 0x9E3779B97F4A7C15
		i := int(x % uint64(docs))
		if !seen[i] {
			seen[i] = true
			out = append(out, i)
		}
	}
	return out
}
