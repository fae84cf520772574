package daemon

import (
	"errors"
	"strings"
	"testing"

	"github.com/plagd/plagd/extract"
)

func TestFileNameFieldKeepsExtension(t *testing.T) {
	long := strings.Repeat("é", 400) + "\u202e\x1b.docx"
	got := fileNameField(long)
	if len(got) > MaxFileNameBytes || !strings.HasSuffix(got, ".docx") || strings.ContainsAny(got, "\u202e\x1b") {
		t.Fatalf("fileNameField = %q (%d bytes)", got, len(got))
	}
	if got := fileNameField("essay  final.pdf"); got != "essay final.pdf" {
		t.Fatalf("fileNameField(short) = %q", got)
	}
}

func TestExternalIDProblem(t *testing.T) {
	for id, bad := range map[string]bool{
		"archive/sub/essay  v2.pdf":            false, // spaces are fine
		"archive/žluťoučký kůň.pdf":            false,
		"bad\xff.txt":                          true,
		"evil\u202etxt.exe":                    true,
		"esc\x1b[2J.txt":                       true,
		"a/" + strings.Repeat("d", 1000) + "x": true,
	} {
		if got := externalIDProblem(id) != ""; got != bad {
			t.Errorf("externalIDProblem(%.40q) refuses=%v, want %v", id, got, bad)
		}
	}
	if got := externalIDField("ext\x00\u202eid"); got != "ext id" {
		t.Errorf("externalIDField = %q", got)
	}
}

func TestSourceTextIsStorable(t *testing.T) {
	st, _ := sourceText(1, "nul\x00 and \xff bytes\nkept lines", nil)
	if st.Failed != "" || st.Text != "nul and \uFFFD bytes\nkept lines" {
		t.Fatalf("sourceText text = %+v", st)
	}
	err := &extract.Error{Kind: extract.ErrCorrupt, Reason: "malformed hex string \x10 % \x1f0/\xa0\x00\r\n" + strings.Repeat("x", 5000)}
	st, _ = sourceText(2, "", err)
	if st.FailedKind != "corrupt" || len(st.Failed) > maxReasonBytes || strings.ContainsAny(st.Failed, "\x00\x10\r\n") ||
		!strings.HasPrefix(st.Failed, "malformed hex string % 0/\uFFFD") {
		t.Fatalf("sourceText failure = %q (%s)", st.Failed, st.FailedKind)
	}
	// An error that is not the file's (a cancelled run) is the run's.
	if _, err := sourceText(3, "", errors.New("context canceled")); err == nil {
		t.Fatal("sourceText kept a run's error as a document's failure")
	}
}
