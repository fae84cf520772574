package daemon

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plagd/plagd/archive"
	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/ingest"
	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/hostile"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/store"
)

// hostilePDF is a PDF whose library error quotes raw bytes of the file.
func hostilePDF() []byte { return hostile.BadHexContentPDF() }

// hostileLine is a field value with everything a file name or title can
// carry that breaks a page, a terminal or PostgreSQL: NUL, invalid UTF-8,
// terminal escapes, a bidi override, zero-width and line-break characters,
// and 10,000 characters.
func hostileLine() string {
	return "A\x00B\xff\xfe\x1b[31mred\u202egnp.exe\u200b\r\nnext\x7f" + strings.Repeat("long", 2500)
}

// clean fails unless s is valid UTF-8 without control or format
// characters and at most max bytes long.
func clean(t *testing.T, what, s string, max int) {
	t.Helper()
	if !utf8.ValidString(s) || len(s) > max ||
		strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }) >= 0 {
		t.Errorf("%s is not clean or over %d bytes (%d bytes): %q", what, max, len(s), safeQuote(s))
	}
}

func safeQuote(s string) string {
	if len(s) > 200 {
		s = s[:200]
	}
	return fmt.Sprintf("%q", s)
}

// TestRun_HostileDocumentFields is issue 14 item 1b: documents whose every
// field is hostile, entered through the API's store functions, through
// ingest, and directly with SQL (what the API would refuse), must neither
// fail a run's commit nor reach PostgreSQL unsanitised; the other
// documents are indexed, the hostile ones failed with a clean reason, and
// the next run commits too.
func TestRun_HostileDocumentFields(t *testing.T) {
	ctx := context.Background()
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 2)
	c := enginetest.NewCorpus(enginetest.Seed(t))
	base := c.Text()
	for i := range 3 {
		pgtest.Exec(t, pool, `insert into documents (external_id, title, text) values ($1, $1, $2)`,
			fmt.Sprintf("good-%d", i), base+" "+c.Text())
	}

	// 1. The API's store function: every field hostile.
	h := hostileLine()
	apiID, err := store.CreateDocument(ctx, pool, store.DocumentInput{
		Header:   archive.Header{ExternalID: "ext" + h, Title: h, Author: h, Kind: h},
		Filename: h + ".pdf", ContentType: "application/pdf", Content: hostilePDF(),
	})
	if err != nil {
		t.Fatalf("store.CreateDocument with hostile fields: %v", err)
	}
	textID, err := store.CreateDocument(ctx, pool, store.DocumentInput{Header: archive.Header{Title: "text"}, Text: base + "\x00 \xff\xfe " + c.Text()})
	if err != nil {
		t.Fatalf("store.CreateDocument with a text holding NUL and invalid UTF-8: %v", err)
	}
	title := h
	if err := store.UpdateDocument(ctx, pool, textID, store.DocumentPatch{Title: &title, Author: &title}); err != nil {
		t.Fatalf("store.UpdateDocument with hostile fields: %v", err)
	}

	// 2. Ingest: a hostile file, a hostile name, a path too long for an id.
	dir := t.TempDir()
	enginetest.PutFile(t, filepath.Join(dir, "bad-hex.pdf"), string(hostilePDF()))
	enginetest.PutFile(t, filepath.Join(dir, "ok.txt"), base+" "+c.Text())
	enginetest.PutFile(t, filepath.Join(dir, "evil\u202egnp\x1b[2J\x01.txt"), c.Text())
	enginetest.PutFile(t, filepath.Join(dir, "bad\xff\xfe.txt"), c.Text())
	deep := dir
	for len(deep)-len(dir) < store.MaxExternalIDBytes+100 {
		deep = filepath.Join(deep, strings.Repeat("d", 200))
	}
	if err := os.MkdirAll(deep, 0o755); err == nil {
		enginetest.PutFile(t, filepath.Join(deep, "deep.txt"), c.Text())
	}
	// bad-hex.pdf has the bytes of the hostile document stored above:
	// stored anew all the same (an identical file is otherwise skipped).
	sum, err := ingest.Files(ctx, store.NewDB(pool), ingest.Options{Roots: []string{dir}, Duplicates: ingest.DuplicatesNew}, enginetest.Logger(t))
	if err != nil {
		t.Fatalf("ingest: %v", err)
	}
	if sum.Added != 2 || sum.Failed < 2 {
		t.Errorf("ingest: %+v, want 2 added (bad-hex.pdf, ok.txt) and the hostile names failed", sum)
	}
	for _, f := range append(sum.Failures, sum.Unreadable...) {
		clean(t, "ingest summary path", f.Path, store.MaxPathShownBytes)
		clean(t, "ingest summary reason", f.Reason, store.MaxReasonBytes)
	}

	// 3. Straight into the table, past every API check.
	ctrl := strings.Map(func(r rune) rune { // what a text column accepts of h
		if r == 0 || r == utf8.RuneError {
			return -1
		}
		return r
	}, h)
	var sqlID int64
	if err := pool.QueryRow(ctx, `insert into documents (external_id, title, author, kind, filename, content)
		values ($1, $2, $2, $2, $3, $4) returning id`, "sql"+ctrl, ctrl, ctrl+".pdf", hostilePDF()).Scan(&sqlID); err != nil {
		t.Fatal(err)
	}
	pgtest.Exec(t, pool, `insert into documents (external_id, filename, content) values
		('raw-bytes', $1, $2), ('nul-bytes', 'nul.txt', $3)`,
		ctrl+".txt", []byte(base+" \xff\xfe\xa0 "+c.Text()), []byte("\x00\x00\x00"+base+"\x00"))

	rep := enginetest.MustRun(t, engine.NewEngine(cfg, pool, enginetest.Logger(t)).Run, false)
	if rep.Indexed < 4 {
		t.Errorf("run 1 indexed %d documents, want the good ones at least", rep.Indexed)
	}
	checkStatuses(t, pool, apiID, sqlID)
	checkStoredFields(t, pool, apiID)
	st, err := store.LoadStatus(ctx, store.NewDB(pool), 5, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Failed) < 2 {
		t.Errorf("status lists %d failed documents, want the hostile PDFs", len(st.Failed))
	}
	for _, f := range st.Failed {
		clean(t, "status external id", f.ExternalID, store.MaxPathShownBytes)
		clean(t, "status file name", f.Filename, store.MaxPathShownBytes)
		clean(t, "status reason", f.Error, store.MaxReasonBytes)
	}

	// The next run must commit too (the bug made every later run fail).
	pgtest.Exec(t, pool, `insert into documents (external_id, text) values ('after', $1)`, base+" "+c.Text())
	enginetest.MustRun(t, engine.NewEngine(cfg, pool, enginetest.Logger(t)).Run, false)
	checkStatuses(t, pool, apiID, sqlID)
	enginetest.CheckSimilarities(t, pool, cfg, "after hostile documents")
}

// checkStatuses: every good document is indexed, the hostile PDFs failed
// with a clean reason, and every stored reason and kind is clean.
func checkStatuses(t *testing.T, pool *pgxpool.Pool, failed ...int64) {
	t.Helper()
	rows, err := pool.Query(context.Background(), `select d.id, coalesce(d.external_id, ''), s.status,
		coalesce(s.error, ''), coalesce(s.error_kind, '') from documents d left join document_status s on s.doc_id = d.id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var ext, status, reason, kind string
		if err := rows.Scan(&id, &ext, &status, &reason, &kind); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(ext, "good-") || ext == "after" || strings.HasSuffix(ext, "ok.txt") {
			if status != "indexed" {
				t.Errorf("document %d (%s): status %q (%s), want indexed", id, ext, status, reason)
			}
		}
		for _, f := range failed {
			if id == f && (status != "failed" || reason == "") {
				t.Errorf("hostile PDF %d: status %q, reason %q, want failed with a reason", id, status, reason)
			}
		}
		clean(t, fmt.Sprintf("document %d error", id), reason, store.MaxReasonBytes)
		clean(t, fmt.Sprintf("document %d error kind", id), kind, store.MaxKindBytes)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}

// checkStoredFields: what plagd itself stored (through the API's store
// functions and ingest) is clean and bounded, and a cut file name keeps
// its extension.
func checkStoredFields(t *testing.T, pool *pgxpool.Pool, apiID int64) {
	t.Helper()
	rows, err := pool.Query(context.Background(), `select id, coalesce(external_id, ''), coalesce(title, ''),
		coalesce(author, ''), coalesce(kind, ''), coalesce(filename, '') from documents where external_id not like 'sql%'
		and external_id is distinct from 'raw-bytes'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var ext, title, author, kind, fn string
		if err := rows.Scan(&id, &ext, &title, &author, &kind, &fn); err != nil {
			t.Fatal(err)
		}
		clean(t, fmt.Sprintf("document %d external id", id), ext, store.MaxExternalIDBytes)
		clean(t, fmt.Sprintf("document %d title", id), title, store.MaxTitleBytes)
		clean(t, fmt.Sprintf("document %d author", id), author, store.MaxTitleBytes)
		clean(t, fmt.Sprintf("document %d kind", id), kind, store.MaxKindBytes)
		clean(t, fmt.Sprintf("document %d file name", id), fn, store.MaxFileNameBytes)
		if id == apiID && !strings.HasSuffix(fn, ".pdf") {
			t.Errorf("document %d file name %s lost its extension (plagd detects the format by it)", id, safeQuote(fn))
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}
