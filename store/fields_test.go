package store

import (
	"strings"
	"testing"
)

func TestFileNameFieldKeepsExtension(t *testing.T) {
	long := strings.Repeat("é", 400) + "\u202e\x1b.docx"
	got := FileNameField(long)
	if len(got) > MaxFileNameBytes || !strings.HasSuffix(got, ".docx") || strings.ContainsAny(got, "\u202e\x1b") {
		t.Fatalf("FileNameField = %q (%d bytes)", got, len(got))
	}
	if got := FileNameField("essay  final.pdf"); got != "essay final.pdf" {
		t.Fatalf("FileNameField(short) = %q", got)
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
		if got := ExternalIDProblem(id) != ""; got != bad {
			t.Errorf("ExternalIDProblem(%.40q) refuses=%v, want %v", id, got, bad)
		}
	}
	if got := ExternalIDField("ext\x00\u202eid"); got != "ext id" {
		t.Errorf("ExternalIDField = %q", got)
	}
}
