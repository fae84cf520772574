package ingest

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/plagd/plagd/archive"
	"github.com/plagd/plagd/audit"
	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/disguise"
	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/extract/sandbox"
	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/store"
)

// TestDocuments: a document's new content is read once, stored in the
// caller's transaction and compared with the archive (its hash recorded,
// so the next copy is found before any run); an unreadable file is stored
// with a warning and not compared; a guard that refuses leaves everything
// as it was; an update that deletes compares nothing.
func TestDocuments(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(enginetest.Seed(t), 5))
	f := newFixture(t)
	db, docs := f.db, f.docs
	var txs int
	tx := Tx(func(ctx context.Context, fn func(q store.Querier) error) error {
		txs++
		return f.tx(ctx, fn)
	})

	essay := enginetest.EssayWords(r, 600)
	first, err := docs.Create(ctx, tx, store.DocumentInput{Header: archive.Header{Title: "first"}, Text: strings.Join(essay, " ")})
	if err != nil || first.Warning != "" || !first.Checked || first.NearDupsErr != nil || len(first.NearDups) != 0 {
		t.Fatalf("Create = %+v, %v; want a checked document without near-duplicates", first, err)
	}
	again, err := docs.Create(ctx, tx, store.DocumentInput{Header: archive.Header{Title: "again"}, Text: enginetest.Reformat(essay)})
	if err != nil || !again.Checked || len(again.NearDups) != 1 || again.NearDups[0].ID != first.ID {
		t.Fatalf("Create of a copy = %+v, %v; want %d as its near-duplicate", again, err, first.ID)
	}

	broken, err := docs.Create(ctx, tx, store.DocumentInput{Header: archive.Header{Title: "scan"}, Filename: "scan.pdf",
		ContentType: "application/pdf", Content: []byte("%PDF-1.4 broken")})
	if err != nil || broken.Checked || !strings.HasPrefix(broken.Warning, "the next run will mark it failed: ") {
		t.Fatalf("Create of an unreadable file = %+v, %v; want it stored with a warning, unchecked", broken, err)
	}
	if d, err := store.GetDocument(ctx, db, broken.ID); err != nil || d.Title != "scan" {
		t.Fatalf("the unreadable file was not stored: %+v, %v", d, err)
	}

	refused := errors.New("refused")
	title := "changed"
	_, err = docs.Update(ctx, tx, Change{ID: first.ID, Patch: store.DocumentPatch{Title: &title},
		Guard: func(context.Context, store.Querier) error { return refused }})
	if !errors.Is(err, refused) {
		t.Fatalf("Update with a refusing guard: %v", err)
	}
	if d, _ := store.GetDocument(ctx, db, first.ID); d.Title != "first" {
		t.Fatalf("a refused update changed the title to %q", d.Title)
	}

	text := strings.Join(enginetest.EssayWords(r, 600), " ")
	gone, err := docs.Update(ctx, tx, Change{ID: again.ID, Patch: store.DocumentPatch{Text: &text}, Delete: true})
	if err != nil || gone.Checked || gone.Warning != "" {
		t.Fatalf("Update that deletes = %+v, %v; want no comparison", gone, err)
	}
	if d, _ := store.GetDocument(ctx, db, again.ID); d.Status != "deleted" {
		t.Fatalf("document %d is %s, want deleted", again.ID, d.Status)
	}
	if txs != 5 {
		t.Errorf("%d transactions, want one per call", txs)
	}
}

// TestRunTakesTheTextReadAtUpload: the run that indexes a file stored
// through ingest takes the text ingest read (plagd_extracted) instead of
// extracting the same bytes again, and only while the bytes and the
// reader are the same; its commit clears what it took.
func TestRunTakesTheTextReadAtUpload(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(enginetest.Seed(t), 6))
	f := newFixture(t)
	pool, docs, tx := f.db.Pool, f.docs, f.tx
	e := engine.NewEngine(f.cfg, pool, enginetest.Logger(t))
	defer e.Close()
	file := func(title string) store.DocumentInput {
		return store.DocumentInput{Header: archive.Header{Title: title}, Filename: title + ".txt",
			ContentType: "text/plain; charset=utf-8", Content: []byte(strings.Join(enginetest.EssayWords(r, 300), " "))}
	}
	stored := func(id int64) string {
		var body string
		if err := pool.QueryRow(ctx, `select body from document_texts where doc_id = $1`, id).Scan(&body); err != nil {
			t.Fatal(err)
		}
		return body
	}
	kept := func() int {
		var n int
		if err := pool.QueryRow(ctx, `select count(*) from plagd_extracted`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	// Three files through ingest; each one's text is kept for the run. The
	// kept texts are marked, so that the stored texts say which were taken.
	var ids []int64
	for _, title := range []string{"taken", "bytes-changed", "other-reader"} {
		res, err := docs.Create(ctx, tx, file(title))
		if err != nil || res.Warning != "" {
			t.Fatalf("Create %s = %+v, %v", title, res, err)
		}
		ids = append(ids, res.ID)
	}
	if n := kept(); n != 3 {
		t.Fatalf("%d texts kept for the run, want 3", n)
	}
	pgtest.Exec(t, pool, `update plagd_extracted set body = 'kept ' || body`)
	// An integrator rewrites the second file's bytes; the third's text was
	// read by another reader (other options or another plagd build).
	changed := strings.Join(enginetest.EssayWords(r, 300), " ")
	pgtest.Exec(t, pool, `update documents set content = $2 where id = $1`, ids[1], []byte(changed))
	pgtest.Exec(t, pool, `update plagd_extracted set reader = 'another reader' where doc_id = $1`, ids[2])

	rep := enginetest.MustRun(t, e.Run, false)
	if rep.TextsReused != 1 {
		t.Fatalf("the run took %d texts read at upload, want 1", rep.TextsReused)
	}
	if !strings.HasPrefix(stored(ids[0]), "kept ") {
		t.Fatal("the run extracted the file again instead of taking the text read at upload")
	}
	if got := stored(ids[1]); got != changed {
		t.Fatalf("a file whose bytes changed after the upload was indexed from the old text: %.40q", got)
	}
	if strings.HasPrefix(stored(ids[2]), "kept ") {
		t.Fatal("the run took a text another reader made")
	}
	if n := kept(); n != 0 {
		t.Fatalf("%d texts read at upload are left after the run that indexed them", n)
	}
}

// fixture is a migrated database and the document entry of a process over
// it, with the extraction pool the engine would use.
type fixture struct {
	db   *store.DB
	cfg  config.Config
	docs *Documents
	tx   Tx // audited as the command line
}

func newFixture(t *testing.T) *fixture {
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	f := &fixture{db: store.NewDB(pool), cfg: enginetest.Config(t, url, 1)}
	log := enginetest.Logger(t)
	ex := sandbox.New(f.cfg.SandboxConfig(), log)
	t.Cleanup(ex.Close)
	f.docs = New(ex, f.cfg.ExtractOptions(), engine.NewNearDups(pool, f.cfg), log)
	f.tx = func(ctx context.Context, fn func(q store.Querier) error) error {
		_, err := f.db.Audited(ctx, audit.CLIActor(), fn)
		return err
	}
	return f
}

// TestRunTakesTheFlagsReadAtUpload: the flags ingest found with a text it
// kept go with it into the run's commit; new clean content clears them; a
// full run computes them again from the bytes.
func TestRunTakesTheFlagsReadAtUpload(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(enginetest.Seed(t), 7))
	f := newFixture(t)
	pool, docs, tx := f.db.Pool, f.docs, f.tx
	e := engine.NewEngine(f.cfg, pool, enginetest.Logger(t))
	defer e.Close()
	words := enginetest.EssayWords(r, 300)
	words[10] = "pla\u200bgia\u200brism"
	disguised := strings.Join(words, " ")
	res, err := docs.Create(ctx, tx, store.DocumentInput{Header: archive.Header{Title: "disguised"}, Filename: "d.txt",
		ContentType: "text/plain; charset=utf-8", Content: []byte(disguised)})
	if err != nil || res.Warning != "" {
		t.Fatalf("Create = %+v, %v", res, err)
	}
	flagsOf := func(table string) []disguise.Flag {
		var b []byte
		if err := pool.QueryRow(ctx, `select flags from `+table+` where doc_id = $1`, res.ID).Scan(&b); err != nil {
			t.Fatal(err)
		}
		fl, err := store.ParseFlags(b)
		if err != nil {
			t.Fatal(err)
		}
		return fl
	}
	if got, want := flagsOf("plagd_extracted"), disguise.Of(nil, disguised); !reflect.DeepEqual(got, want) || len(got) == 0 {
		t.Fatalf("kept flags %+v, want %+v", got, want)
	}
	// Marked, so that the stored flags say they were taken, not computed again.
	pgtest.Exec(t, pool, `update plagd_extracted set flags = jsonb_set(flags, '{0,count}', '999')`)
	if rep := enginetest.MustRun(t, e.Run, false); rep.TextsReused != 1 {
		t.Fatalf("the run took %d texts read at upload, want 1", rep.TextsReused)
	}
	if got := flagsOf("document_texts"); len(got) != 1 || got[0].Count != 999 {
		t.Fatalf("stored flags %+v, want the kept ones (count 999)", got)
	}

	clean := strings.Join(enginetest.EssayWords(r, 300), " ")
	if _, err := docs.Update(ctx, tx, Change{ID: res.ID, Patch: store.DocumentPatch{Content: []byte(clean)}}); err != nil {
		t.Fatal(err)
	}
	enginetest.MustRun(t, e.Run, false)
	if got := flagsOf("document_texts"); got != nil {
		t.Fatalf("clean new content keeps flags %+v", got)
	}
	pgtest.Exec(t, pool, `update documents set content = $2 where id = $1`, res.ID, []byte(disguised))
	enginetest.MustRun(t, e.Run, true)
	if got, want := flagsOf("document_texts"), disguise.Of(nil, disguised); !reflect.DeepEqual(got, want) {
		t.Fatalf("after a full run: flags %+v, want %+v", got, want)
	}
}
