package ingest

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/plagd/plagd/archive"
	"github.com/plagd/plagd/audit"
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
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	db := store.NewDB(pool)
	cfg := enginetest.Config(t, url, 1)
	log := enginetest.Logger(t)
	ex := sandbox.New(cfg.SandboxConfig(), log)
	defer ex.Close()
	docs := New(ex, cfg.ExtractOptions(), engine.NewNearDups(pool, cfg), log)
	var txs int
	tx := Tx(func(ctx context.Context, fn func(q store.Querier) error) error {
		txs++
		_, err := db.Audited(ctx, audit.CLIActor(), fn)
		return err
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
