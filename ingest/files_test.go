package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/plagd/plagd/extract"
	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/store"
)

// ingestedDoc is what ingest stores, for comparisons.
type ingestedDoc struct {
	ExternalID, Title, Filename, ContentType, Content string
	Kind                                              *string
	Deleted                                           bool
}

func loadIngested(t *testing.T, pool *pgxpool.Pool) map[string]ingestedDoc {
	t.Helper()
	rows, err := pool.Query(context.Background(), `
		select external_id, title, filename, coalesce(content_type, ''), convert_from(content, 'UTF8'), kind, deleted_at is not null
		from documents`)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]ingestedDoc{}
	for _, r := range mustCollect(pgx.CollectRows(rows, pgx.RowToStructByPos[ingestedDoc]))(t) {
		out[r.ExternalID] = r
	}
	return out
}

func mustCollect[T any](v T, err error) func(*testing.T) T {
	return func(t *testing.T) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func changeOps(t *testing.T, pool *pgxpool.Pool, externalID string) []string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `
		select c.op from plagd_changes c join documents d on d.id = c.doc_id
		where d.external_id = $1 order by c.seq`, externalID)
	if err != nil {
		t.Fatal(err)
	}
	return mustCollect(pgx.CollectRows(rows, pgx.RowTo[string]))(t)
}

func TestIngest(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Pool(t, pgtest.NewDB(t))
	log := zerolog.New(zerolog.NewTestWriter(t))

	dir := t.TempDir()
	archive := filepath.Join(dir, "archive")
	enginetest.PutFile(t, filepath.Join(archive, "a.txt"), "alpha text")
	enginetest.PutFile(t, filepath.Join(archive, "sub", "b.md"), "beta text")
	enginetest.PutFile(t, filepath.Join(archive, "sub", "c.html"), "<p>gamma</p>")
	enginetest.PutFile(t, filepath.Join(archive, "image.png"), "\x89PNG")              // other extension: skipped
	enginetest.PutFile(t, filepath.Join(archive, ".hidden.txt"), "secret")             // hidden: ignored
	enginetest.PutFile(t, filepath.Join(archive, ".git", "x.txt"), "secret")           // hidden folder: ignored
	enginetest.PutFile(t, filepath.Join(archive, "big.txt"), strings.Repeat("x", 100)) // over MaxBytes
	single := filepath.Join(dir, "single.pdf")
	enginetest.PutFile(t, single, "%PDF-1.4 fake")
	// A symbolic link loop must not hang the walk.
	if err := os.Symlink(archive, filepath.Join(archive, "sub", "loop")); err != nil {
		t.Fatal(err)
	}

	opt := Options{Kind: "thesis", Roots: []string{archive, single}, MaxBytes: 50}
	sum, err := Files(ctx, store.NewDB(pool), opt, log)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Added != 4 || sum.Updated != 0 || sum.Unchanged != 0 || sum.Failed != 1 || sum.Skipped != 1 {
		t.Fatalf("first ingest: %+v, want 4 added, 1 failed (big.txt), 1 skipped (image.png)", sum)
	}
	if f := sum.Failures[0]; !strings.HasSuffix(f.Path, "big.txt") || !strings.Contains(f.Reason, "more than the limit") {
		t.Errorf("failure %+v, want big.txt over the limit", f)
	}
	if want := int64(len("alpha text") + len("beta text") + len("<p>gamma</p>") + len("%PDF-1.4 fake")); sum.Bytes != want {
		t.Errorf("Bytes = %d, want %d", sum.Bytes, want)
	}

	docs := loadIngested(t, pool)
	ids := make([]string, 0, len(docs))
	for id := range docs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if want := []string{"archive/a.txt", "archive/sub/b.md", "archive/sub/c.html", "single.pdf"}; !slices.Equal(ids, want) {
		t.Fatalf("external ids %q, want %q", ids, want)
	}
	b := docs["archive/sub/b.md"]
	if b.Title != "b" || b.Filename != "b.md" || b.ContentType != "text/markdown" || b.Content != "beta text" ||
		b.Kind == nil || *b.Kind != "thesis" {
		t.Errorf("stored %+v", b)
	}
	if ct := docs["single.pdf"].ContentType; ct != "application/pdf" {
		t.Errorf("single.pdf content type %q", ct)
	}

	// Unchanged files: nothing written, no new change-log entries.
	sum, err = Files(ctx, store.NewDB(pool), opt, log)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Added != 0 || sum.Updated != 0 || sum.Unchanged != 4 {
		t.Fatalf("re-ingest: %+v, want 4 unchanged", sum)
	}
	if ops := changeOps(t, pool, "archive/a.txt"); !slices.Equal(ops, []string{"insert"}) {
		t.Errorf("change log of an unchanged file: %q, want only the insert", ops)
	}

	// A modified file is updated, its stale text cleared, a change logged;
	// an integrator's edited title survives.
	pgtest.Exec(t, pool, `update documents set title = 'Edited', text = 'old text' where external_id = 'archive/a.txt'`)
	enginetest.PutFile(t, filepath.Join(archive, "a.txt"), "alpha text, revised")
	sum, err = Files(ctx, store.NewDB(pool), Options{Roots: []string{archive}, MaxBytes: 50}, log)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Updated != 1 || sum.Unchanged != 2 || sum.Added != 0 {
		t.Fatalf("after a modification: %+v, want 1 updated, 2 unchanged", sum)
	}
	a := loadIngested(t, pool)["archive/a.txt"]
	if a.Content != "alpha text, revised" || a.Title != "Edited" || a.Kind == nil || *a.Kind != "thesis" {
		t.Errorf("updated row %+v", a)
	}
	var text *string
	if err := pool.QueryRow(ctx, `select text from documents where external_id = 'archive/a.txt'`).Scan(&text); err != nil || text != nil {
		t.Errorf("text after update = %v (err %v), want NULL", text, err)
	}
	if ops := changeOps(t, pool, "archive/a.txt"); !slices.Equal(ops, []string{"insert", "update", "update"}) {
		// One update for the test's own edit of text, one for ingest's new content.
		t.Errorf("change log after modification: %q", ops)
	}

	// A soft-deleted document comes back when its file is ingested again,
	// even with the same content.
	pgtest.Exec(t, pool, `update documents set deleted_at = now() where external_id = 'single.pdf'`)
	sum, err = Files(ctx, store.NewDB(pool), Options{Roots: []string{single}}, log)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Updated != 1 {
		t.Fatalf("re-ingest of a deleted document: %+v, want 1 updated", sum)
	}
	if d := loadIngested(t, pool)["single.pdf"]; d.Deleted {
		t.Error("document still deleted after re-ingest")
	}
}

func TestIngestFilters(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Pool(t, pgtest.NewDB(t))
	log := zerolog.New(zerolog.NewTestWriter(t))
	dir := t.TempDir()
	enginetest.PutFile(t, filepath.Join(dir, "f", "a.TXT"), "a")
	enginetest.PutFile(t, filepath.Join(dir, "f", "b.pdf"), "b")
	enginetest.PutFile(t, filepath.Join(dir, "f", "c.xml"), "c")
	named := filepath.Join(dir, "notes.xml")
	enginetest.PutFile(t, named, "<notes/>")

	// Default: supported extensions in folders, any file named directly.
	sum, err := Files(ctx, store.NewDB(pool), Options{Roots: []string{filepath.Join(dir, "f"), named}}, log)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Added != 3 || sum.Skipped != 1 {
		t.Errorf("default filter: %+v, want a.TXT, b.pdf, notes.xml added, c.xml skipped", sum)
	}

	// --ext applies everywhere, with or without the dot.
	sum, err = Files(ctx, store.NewDB(pool), Options{Roots: []string{filepath.Join(dir, "f"), named}, Exts: []string{"xml"}}, log)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Added != 1 || sum.Unchanged != 1 || sum.Skipped != 2 {
		t.Errorf("--ext xml: %+v, want c.xml added, notes.xml unchanged, 2 skipped", sum)
	}

	// Missing paths are failures, not errors; two folders with one base name collide.
	enginetest.PutFile(t, filepath.Join(dir, "x", "f", "a.TXT"), "other a")
	sum, err = Files(ctx, store.NewDB(pool), Options{Roots: []string{filepath.Join(dir, "missing"), filepath.Join(dir, "f"), filepath.Join(dir, "x", "f")}}, log)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 2 || sum.Unchanged != 2 {
		t.Fatalf("%+v, want 2 failures (missing, duplicate id) and 2 unchanged", sum)
	}
	if r := sum.Failures[0].Reason; !strings.Contains(r, "no such file") {
		t.Errorf("missing path reason %q", r)
	}
	if r := sum.Failures[1].Reason; !strings.Contains(r, `same external id "f/a.TXT"`) {
		t.Errorf("duplicate reason %q", r)
	}
}

func TestIngestCancelled(t *testing.T) {
	pool := pgtest.Pool(t, pgtest.NewDB(t))
	dir := t.TempDir()
	enginetest.PutFile(t, filepath.Join(dir, "a.txt"), "a")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Files(ctx, store.NewDB(pool), Options{Roots: []string{dir}}, zerolog.Nop())
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "run the same command again") {
		t.Fatalf("err = %v, want a cancellation that says what to do", err)
	}
}

// The failure reason for an oversized file is extract's, so that ingest and
// a run describe it the same way.
func TestIngestTooLargeIsExtractError(t *testing.T) {
	_, err := readLimited(ingestFile{path: "/nonexistent", size: 10}, 5)
	if !errors.Is(err, extract.ErrTooLarge) {
		t.Fatalf("err = %v, want extract.ErrTooLarge", err)
	}
}
