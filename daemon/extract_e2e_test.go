package daemon

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/ingest"
	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/internal/wordscore"
	"github.com/plagd/plagd/store"
)

// TestEngine_ExtractionFixtures ingests every extraction fixture (PDF, DOCX,
// ODT, RTF, HTML, legacy encodings, and the broken files) and runs once: each
// readable file is indexed, each bad one is marked failed with the kind the
// manifest expects, and the run goes on regardless (a bad file fails alone).
func TestEngine_ExtractionFixtures(t *testing.T) {
	root := filepath.Join("..", "extract", "testdata")
	fixtures, err := wordscore.ReadManifest(filepath.Join(root, "manifest.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	ctx := context.Background()
	if _, err := ingest.Files(ctx, store.NewDB(pool), ingest.Options{Roots: []string{root}}, enginetest.Logger(t)); err != nil {
		t.Fatal(err)
	}
	cfg := enginetest.Config(t, url, 2)
	rep := enginetest.MustRun(t, engine.NewEngine(cfg, pool, enginetest.Logger(t)).Run, false)
	t.Logf("run: %d indexed, %d failed", rep.Indexed, rep.Failed)
	rows := 0
	for _, fx := range fixtures {
		file, expect := fx.File, fx.Expect
		var status string
		var kind, reason *string
		err := pool.QueryRow(ctx, `
			select s.status, s.error_kind, s.error from documents d join document_status s on s.doc_id = d.id
			where d.external_id = $1`, "testdata/"+file).Scan(&status, &kind, &reason)
		if err != nil {
			t.Errorf("%s: no status after the run: %v", file, err)
			continue
		}
		rows++
		if expect[0] == "ok" {
			if status != "indexed" {
				t.Errorf("%s: %s (%s), want indexed", file, status, store.Deref(reason))
			}
			continue
		}
		if status != "failed" || !slices.Contains(expect, store.Deref(kind)) {
			t.Errorf("%s: %s with kind %q (%s), want failed with %v", file, status, store.Deref(kind), store.Deref(reason), expect)
		}
	}
	if rows < 30 {
		t.Fatalf("only %d manifest rows checked", rows)
	}
}
