package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/plagd/plagd/disguise"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/report"
	"github.com/plagd/plagd/store"
)

// TestCLI_Flags: plagd check prints the flags of a disguised file (text
// and --json), plagd status counts the archive's flagged documents per
// kind with their ids, and plagd similar --passages shows a stored
// document's flags.
func TestCLI_Flags(t *testing.T) {
	url := pgtest.NewDB(t)
	dir := t.TempDir()
	clean := "the committee examined the thesis in detail and found the methodology sound and the results reproducible in every respect"
	disguised := "the com\u200bmittee examined the the\u200bsis in detail and found the metho\u00addology sound and the results reproducible"
	os.WriteFile(filepath.Join(dir, "clean.txt"), []byte("A clean report. "+clean+". The end."), 0o644)
	os.WriteFile(filepath.Join(dir, "disguised.txt"), []byte("A student essay. "+disguised+". My end."), 0o644)
	if out, code := plagd(t, url, "ingest", dir); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, out)
	}
	if out, code := plagd(t, url, "run"); code != 0 {
		t.Fatalf("run: exit %d: %s", code, out)
	}

	stored := disguise.Of(nil, "A student essay. "+disguised+". My end.")
	if len(stored) != 1 || stored[0].Kind != disguise.Invisible {
		t.Fatalf("the fixture's flags: %+v", stored)
	}
	out, code := plagd(t, url, "status")
	if code != 0 || !strings.Contains(out, "Disguised:  1 document whose text was disguised") ||
		!strings.Contains(out, fmt.Sprintf("invisible: 1 document (%d in all): ", stored[0].Count)) {
		t.Fatalf("status: exit %d:\n%s", code, out)
	}
	out, _ = plagd(t, url, "status", "--json")
	var st store.Status
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &st); err != nil {
		t.Fatal(err)
	}
	if st.Flagged.Documents != 1 || len(st.Flagged.Kinds) != 1 || st.Flagged.Kinds[0].Kind != disguise.Invisible ||
		st.Flagged.Kinds[0].Count != stored[0].Count || len(st.Flagged.Kinds[0].First) != 1 {
		t.Fatalf("status --json flagged: %+v", st.Flagged)
	}

	essay := filepath.Join(t.TempDir(), "essay.txt")
	text := "My own opening words. " + disguised + ". My own end."
	os.WriteFile(essay, []byte(text), 0o644)
	out, code = plagd(t, url, "check", essay)
	checked := disguise.Of(nil, text)
	if code != 0 || !strings.Contains(out, "DISGUISED") || !strings.Contains(out, fmt.Sprintf("invisible: %d ", checked[0].Count)) ||
		!strings.Contains(out, ", at ") {
		t.Fatalf("check: exit %d:\n%s", code, out)
	}
	out, code = plagd(t, url, "check", "--json", essay)
	var got struct {
		Report report.Report `json:"report"`
	}
	if code != 0 || json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &got) != nil {
		t.Fatalf("check --json: exit %d: %s", code, out)
	}
	if want := disguise.Of(nil, text); !reflect.DeepEqual(got.Report.Flags, want) {
		t.Fatalf("check --json flags %+v, want %+v", got.Report.Flags, want)
	}
	out, code = plagd(t, url, "similar", "--passages", filepath.Base(dir)+"/disguised.txt")
	if code != 0 || !strings.Contains(out, "DISGUISED") {
		t.Fatalf("similar --passages of the disguised document: exit %d:\n%s", code, out)
	}
	if out, _ := plagd(t, url, "check", filepath.Join(dir, "clean.txt")); strings.Contains(out, "DISGUISED") {
		t.Fatalf("a clean file is flagged:\n%s", out)
	}
}

// TestWriteFlagSummary: no flag says so; ids are listed with "…" when
// there are more.
func TestWriteFlagSummary(t *testing.T) {
	var b strings.Builder
	writeFlagSummary(&b, store.FlagSummary{})
	if !strings.Contains(b.String(), "none") {
		t.Errorf("empty summary: %q", b.String())
	}
	b.Reset()
	writeFlagSummary(&b, store.FlagSummary{Documents: 9, Kinds: []store.FlagCount{
		{Kind: disguise.Confusable, Documents: 7, Count: 412, First: []int64{1, 2, 3, 4, 5}}}})
	if want := "confusable: 7 documents (412 in all): 1, 2, 3, 4, 5, …"; !strings.Contains(b.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, b.String())
	}
}
