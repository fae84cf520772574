package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/plagd/plagd/internal/hostile"
	"github.com/plagd/plagd/internal/pgtest"
)

// TestCLI_IngestPrintsNoRawBytes is issue 14 item 1b on the terminal: a PDF
// whose parser error quotes the file's bytes, and file names holding a
// terminal escape and a bidi override, reach the output of ingest, run and
// status only as clean lines: valid UTF-8, no control characters but line
// ends, no invisible formatting characters.
func TestCLI_IngestPrintsNoRawBytes(t *testing.T) {
	// PDFium reads what precedes the damage, as viewers show it; the Go
	// reader fails the file with the library's error quoting its bytes,
	// the reason this test is about.
	t.Setenv("PLAGD_EXTRACT_PDF_ENGINE", "go")
	url := pgtest.NewDB(t)
	dir := t.TempDir()
	text := "the committee examined the thesis and found the methodology sound and the results reproducible"
	os.WriteFile(filepath.Join(dir, "bad-hex.pdf"), hostile.BadHexContentPDF(), 0o644)
	os.WriteFile(filepath.Join(dir, "fine.txt"), []byte(text), 0o644)
	os.WriteFile(filepath.Join(dir, "evil\x1b[2J\u202etxt.exe\x07.txt"), []byte(text), 0o644)
	os.WriteFile(filepath.Join(dir, "bad\xff\xfe.txt"), []byte(text), 0o644)

	out, code := plagd(t, url, "ingest", dir)
	if code != 0 || !strings.Contains(out, "added 2") || !strings.Contains(out, "bad-hex.pdf: ") {
		t.Fatalf("ingest: exit %d: %q", code, out)
	}
	terminalSafe(t, "ingest", out)
	out, code = plagd(t, url, "run")
	if code != 0 || !strings.Contains(out, "committed") {
		t.Fatalf("run: exit %d: %q", code, out)
	}
	terminalSafe(t, "run", out)
	out, code = plagd(t, url, "status")
	if code != 0 || !strings.Contains(out, "malformed hex string") {
		t.Fatalf("status: exit %d, want the PDF's failure listed: %q", code, out)
	}
	terminalSafe(t, "status", out)
}

// terminalSafe fails when out holds what a terminal would interpret.
func terminalSafe(t *testing.T, what, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("%s printed invalid UTF-8: %q", what, out)
	}
	for _, r := range out {
		if (unicode.IsControl(r) && r != '\n' && r != '\t') || unicode.Is(unicode.Cf, r) {
			t.Errorf("%s printed %U: %q", what, r, out)
			return
		}
	}
}
