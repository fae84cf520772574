package daemon

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/internal/wordscore"
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
	if _, err := Ingest(ctx, pool, IngestOptions{Roots: []string{root}}, testLogger(t)); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, url, 2)
	rep := mustRun(t, NewEngine(cfg, pool, testLogger(t)), false)
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
				t.Errorf("%s: %s (%s), want indexed", file, status, deref(reason))
			}
			continue
		}
		if status != "failed" || !slices.Contains(expect, deref(kind)) {
			t.Errorf("%s: %s with kind %q (%s), want failed with %v", file, status, deref(kind), deref(reason), expect)
		}
	}
	if rows < 30 {
		t.Fatalf("only %d manifest rows checked", rows)
	}
}
