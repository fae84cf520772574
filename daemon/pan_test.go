package daemon

import (
	"context"
	"encoding/xml"
	"os"
	"path/filepath"
	"testing"

	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/ingest"
	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/store"
)

// panTruth is the part of a PAN truth file the test reads.
type panTruth struct {
	Reference string `xml:"reference,attr"`
	Features  []struct {
		Name        string `xml:"name,attr"`
		Type        string `xml:"type,attr"`
		Obfuscation string `xml:"obfuscation,attr"`
		Source      string `xml:"source_reference,attr"`
	} `xml:"feature"`
}

// TestEngine_FindsPANSources runs the default configuration over the sample
// PAN-format enginetest.Corpus (samples/pan-id) and checks detection at document level:
// the source of every unobfuscated case, and of at least 80 % of all cases,
// is in the suspicious document's similarity list.
func TestEngine_FindsPANSources(t *testing.T) {
	root := filepath.Join("..", "samples", "pan-id")
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	ctx := context.Background()
	if _, err := ingest.Files(ctx, store.NewDB(pool), ingest.Options{Roots: []string{
		filepath.Join(root, "source-documents"), filepath.Join(root, "suspicious-documents")}}, enginetest.Logger(t)); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.DatabaseURL, cfg.DataDir = url, t.TempDir()
	enginetest.MustRun(t, engine.NewEngine(cfg, pool, enginetest.Logger(t)).Run, false)

	truths, _ := filepath.Glob(filepath.Join(root, "suspicious-documents", "*.xml"))
	type key struct{ susp, src, kind string }
	cases := map[key]bool{}
	for _, f := range truths {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var tr panTruth
		if err := xml.Unmarshal(b, &tr); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, ft := range tr.Features {
			if ft.Name == "plagiarism" && ft.Source != "" {
				kind := ft.Obfuscation
				if kind == "" {
					kind = ft.Type
				}
				cases[key{filepath.Base(f[:len(f)-4]) + ".txt", ft.Source, kind}] = true
			}
		}
	}
	found, none, noneFound := 0, 0, 0
	for c := range cases {
		var hit bool
		err := pool.QueryRow(ctx, `
			select exists (select 1 from similarities s
				join documents a on a.id = s.doc_id join documents b on b.id = s.other_id
				where a.filename = $1 and b.filename = $2)`, c.susp, c.src).Scan(&hit)
		if err != nil {
			t.Fatal(err)
		}
		if hit {
			found++
		}
		if c.kind == "none" {
			none++
			if hit {
				noneFound++
			} else {
				t.Errorf("unobfuscated case %s ← %s not found", c.susp, c.src)
			}
		}
	}
	t.Logf("sources found for %d of %d cases (%.0f %%), unobfuscated %d of %d", found, len(cases),
		100*float64(found)/float64(len(cases)), noneFound, none)
	if len(cases) < 80 || none == 0 {
		t.Fatalf("read only %d cases (%d unobfuscated) from %s: enginetest.Corpus incomplete", len(cases), none, root)
	}
	if found*100 < len(cases)*80 {
		t.Fatalf("sources found for %d of %d cases, want at least 80 %%", found, len(cases))
	}
}
