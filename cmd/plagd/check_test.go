package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/report"
	"github.com/plagd/plagd/store"
)

// TestCLI_CheckAndPassages: plagd check finds where a new file copies the
// archive, without storing it; plagd similar --passages shows the same for
// an archived document.
func TestCLI_CheckAndPassages(t *testing.T) {
	url := pgtest.NewDB(t)
	dir := t.TempDir()
	copied := "the committee examined the thesis in detail and found the methodology sound and the results reproducible in every respect"
	quoted := "rivers that drain the northern slopes carry more sediment in spring when the snow melts faster than the soil absorbs it"
	source := "An old report on many things. " + copied + ". It also says that " + quoted + ", which matters. More text follows here."
	os.WriteFile(filepath.Join(dir, "source.txt"), []byte(source), 0o644)
	os.WriteFile(filepath.Join(dir, "unrelated.txt"), []byte("Nothing in this file resembles anything else in the archive at all, not a single phrase."), 0o644)
	essay := filepath.Join(t.TempDir(), "essay.txt")
	os.WriteFile(essay, []byte("My own opening words come first. "+copied+". Then my own paragraph goes on for a good while, with my own thoughts and arguments, "+
		"long enough to keep the two borrowed parts apart. As the report put it, “"+quoted+".” My own ending."), 0o644)

	if out, code := plagd(t, url, "check", essay); code != 1 || !strings.Contains(out, "no usable index") {
		t.Fatalf("check before any run: exit %d: %s", code, out)
	}
	if out, code := plagd(t, url, "ingest", dir); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, out)
	}
	if out, code := plagd(t, url, "run"); code != 0 {
		t.Fatalf("run: exit %d: %s", code, out)
	}

	out, code := plagd(t, url, "check", essay)
	if code != 0 {
		t.Fatalf("check: exit %d: %s", code, out)
	}
	t.Logf("plagd check %s:\n%s", filepath.Base(essay), out)
	for _, want := range []string{"matching text:", "source.txt", "»" + copied + "«", "quotations, block quotes, bibliography, common text excluded", "1 passage"} {
		if !strings.Contains(out, want) {
			t.Errorf("check output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "»"+quoted) {
		t.Errorf("check shows the quotation as a passage:\n%s", out)
	}

	out, code = plagd(t, url, "check", "--json", "--no-quotes", essay)
	var got struct {
		File   string        `json:"file"`
		Report report.Report `json:"report"`
	}
	if code != 0 || json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &got) != nil {
		t.Fatalf("check --json: exit %d: %s", code, out)
	}
	if len(got.Report.Sources) != 1 || len(got.Report.Sources[0].Passages) != 2 || got.Report.Coverage <= 0.5 {
		t.Fatalf("check --json --no-quotes: %+v; want one source with two passages covering most of the essay", got.Report)
	}
	p := got.Report.Sources[0].Passages[0]
	if !strings.Contains(source, copied) || source[p.BStart:p.BEnd] != copied {
		t.Fatalf("passage offsets in the source: %+v", p)
	}

	// Nothing was stored: the archive still holds two documents.
	out, _ = plagd(t, url, "status", "--json")
	var st store.Status
	json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &st)
	if st.Documents.Indexed != 2 {
		t.Fatalf("after check: %+v, want the 2 ingested documents only", st.Documents)
	}

	ext := filepath.Base(dir) + "/source.txt"
	if err := os.WriteFile(filepath.Join(dir, "copy.txt"), []byte("A student copy. "+copied+". The end of it."), 0o644); err != nil {
		t.Fatal(err)
	}
	plagd(t, url, "ingest", dir)
	plagd(t, url, "run")
	out, code = plagd(t, url, "similar", "--passages", ext)
	if code != 0 || !strings.Contains(out, "»"+copied+"«") || !strings.Contains(out, "copy.txt") {
		t.Fatalf("similar --passages: exit %d:\n%s", code, out)
	}
	t.Logf("plagd similar --passages %s:\n%s", ext, out)

	if out, code := plagd(t, url, "check"); code != 2 {
		t.Fatalf("check without a file: exit %d: %s", code, out)
	}
	if out, code := plagd(t, url, "check", filepath.Join(dir, "missing.txt")); code != 1 || !strings.Contains(out, "missing.txt") {
		t.Fatalf("check of a missing file: exit %d: %s", code, out)
	}
}
