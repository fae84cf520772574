package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/internal/pgtest"
)

// TestCLI_Related: two essays on one topic are each other's most related
// document after a run, a third on another topic comes last, and --files
// finds the topic for a file that is not stored.
func TestCLI_Related(t *testing.T) {
	url := pgtest.NewDB(t)
	dir := t.TempDir()
	other := strings.ReplaceAll(essay(9, 600), "w", "z")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte(essay(1, 600)), 0o644)
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte(essay(2, 600)), 0o644)
	os.WriteFile(filepath.Join(dir, "c.txt"), []byte(other+" "+essay(3, 30)), 0o644)
	if out, code := plagd(t, url, "ingest", "--no-check", dir); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, out)
	}
	if out, code := plagd(t, url, "run"); code != 0 {
		t.Fatalf("run: exit %d: %s", code, out)
	}
	out, code := plagd(t, url, "related", "--json", filepath.Base(dir)+"/a.txt")
	var rep struct {
		Related []engine.RelatedDoc `json:"related"`
	}
	if code != 0 || json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &rep) != nil {
		t.Fatalf("related --json: exit %d: %s", code, out)
	}
	if len(rep.Related) != 2 || !strings.HasSuffix(rep.Related[0].ExternalID, "b.txt") || rep.Related[0].Cosine < 0.05 ||
		rep.Related[1].Cosine*3 >= rep.Related[0].Cosine {
		t.Fatalf("related of a: %+v, want b first (cosine >= 0.05), then c", rep.Related)
	}
	q := filepath.Join(t.TempDir(), "proposal.txt")
	os.WriteFile(q, []byte(essay(4, 400)), 0o644)
	out, code = plagd(t, url, "related", "--files", q, "-k", "1")
	if code != 0 || !strings.Contains(out, "a.txt") && !strings.Contains(out, "b.txt") {
		t.Fatalf("related --files: exit %d: %s", code, out)
	}
	if _, code := plagd(t, url, "related", "-k", "0", "1"); code != 2 {
		t.Fatalf("related -k 0: exit %d, want 2", code)
	}
}
