package reportpdf

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plagd/plagd/archive"
	"github.com/plagd/plagd/invindex"
	"github.com/plagd/plagd/passage"
	"github.com/plagd/plagd/report"
)

// sample builds a real report: an essay that copies a paragraph of each of
// two sources, quotes a sentence, and ends with a bibliography.
func sample(t testing.TB) report.Report {
	t.Helper()
	srcA := "Water mills turned the grain of the valley for six centuries before the railway brought flour from the plains. " +
		"Their wheels were fed by leats dug along the hillside, and the millers kept the weirs in repair every spring."
	srcB := "Řeka Sázava pohání mlýny od středověku; mlynáři platili vrchnosti poplatek z každého kola a udržovali jezy na vlastní náklady."
	own := "This essay looks at the mills of two rivers and what remains of them today. "
	text := "Introduction\n\n" + own + srcA + "\n\nIn Bohemia: " + srcB + "\n\nAs one miller said, \"the wheel never sleeps\". " +
		own + "\n\nBibliography\n\nSmith, J. Mills of the valley. 1999."
	srcs := []report.SourceReport{
		{ID: 11, Header: archive.Header{Title: "Mills of the Valley", Author: "J. Smith", Year: 1999}, Similarity: 0.5, Reverse: 0.9, Shared: 40, Text: "Preface. " + srcA},
		{ID: 12, Header: archive.Header{Title: "Sázava a její mlýny", Author: "Jana Nováková"}, Similarity: 0.3, Reverse: 0.8, Shared: 20, Text: srcB + " Konec."},
		{ID: 13, Header: archive.Header{Title: "A stray neighbour"}, Similarity: 0.01, Reverse: 0.01, Shared: 1, Text: "nothing in common here at all"},
	}
	rep := report.Build(context.Background(), invindex.DefaultParams(), text, srcs, report.Options{Exclusions: passage.AllExclusions()})
	rep.Doc = 42
	rep.Header = archive.Header{Title: "Mills essay", Author: "Student Example", Kind: "essay", Year: 2026}
	if len(rep.Sources[0].Passages) == 0 || len(rep.Sources[1].Passages) == 0 {
		t.Fatalf("the sample report has no passages: %+v", rep.Sources)
	}
	return rep
}

func input(rep report.Report) Input {
	return Input{Report: rep, Name: "Mills essay", Exclusions: "quotations, the bibliography",
		GeneratedBy: "teacher1", GeneratedAt: time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC), Default: true}
}

// TestRender: the PDF is one, of the pages it names, and its text (read
// back with pdftotext when installed) holds the index, the exclusions, who
// generated it, every source, the numbered passages and page numbers.
func TestRender(t *testing.T) {
	rep := sample(t)
	b, err := Render(input(rep))
	if err != nil {
		t.Fatal(err)
	}
	// Other filters: the figure is the filtered one, the index beside it.
	in := input(rep)
	idx := 0.713
	in.Default, in.Index = false, &idx
	other, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	if got := pdfToText(t, other); !strings.Contains(got, pct(rep.Coverage)+" with these filters") ||
		!strings.Contains(got, "Similarity index (the default filters") || !strings.Contains(got, "71.3 %") ||
		strings.Contains(got, pct(rep.Coverage)+" similarity index") {
		t.Errorf("a report with other filters does not print its figure and the index apart:\n%s", got)
	}
	if !bytes.HasPrefix(b, []byte("%PDF-")) || !bytes.Contains(b[len(b)-64:], []byte("%%EOF")) {
		t.Fatalf("not a PDF file: %.20q … %q", b, b[max(0, len(b)-20):])
	}
	got := pdfToText(t, b)
	for _, want := range []string{
		"Similarity report", "Mills essay", pct(rep.Coverage) + " similarity index",
		"Left out of the figures: quotations, the bibliography", "by teacher1",
		"Mills of the Valley", "Sázava a její mlýny", "A stray neighbour (scattered phrases only)",
		"[1] Water mills turned", "[2] Řeka Sázava", "Passage 1.1", "Passage 2.1", "page 1 of",
		"the millers kept the weirs in repair every spring",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the PDF's text lacks %q:\n%s", want, got)
		}
	}
}

// TestRender_Withheld: a restricted text is left out, figures stay; a
// restricted source's excerpts are left out with a note.
func TestRender_Withheld(t *testing.T) {
	rep := sample(t)
	in := input(rep)
	in.TextHidden = true
	in.SourceHidden = func(s report.SourceReport) bool { return s.ID == 12 }
	b, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	pdftotext, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Skip("pdftotext (poppler-utils) is not installed")
	}
	f := filepath.Join(t.TempDir(), "r.pdf")
	os.WriteFile(f, b, 0o600)
	out, err := exec.Command(pdftotext, f, "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(strings.Fields(string(out)), " ")
	if strings.Contains(got, "This essay looks at the mills") || strings.Contains(got, "Řeka Sázava pohání") {
		t.Fatalf("withheld text printed:\n%s", got)
	}
	if !strings.Contains(got, "Source: restricted; only admins can read its text.") || !strings.Contains(got, "Mills of the Valley") {
		t.Fatalf("figures or note missing:\n%s", got)
	}
}

// TestRender_LongAndHostile: a long text with very long words, tabs,
// carriage returns and characters the font lacks lays out on many pages
// without error.
func TestRender_LongAndHostile(t *testing.T) {
	rep := sample(t)
	var b strings.Builder
	for i := range 3000 {
		b.WriteString("word\tword\r\n")
		if i%100 == 0 {
			b.WriteString(strings.Repeat("x", 400) + " 漢字 🙂 \u200b\n\n")
		}
	}
	rep.Text = b.String()
	rep.Sources = nil
	rep.Excluded = nil
	pdf, err := Render(input(rep))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(pdf, []byte("/Type /Page\n")) + bytes.Count(pdf, []byte("/Type /Page ")); n < 10 {
		t.Logf("%d page objects counted (format-dependent)", n)
	}
	if len(pdf) < 10_000 {
		t.Fatalf("%d bytes for a long text", len(pdf))
	}
}

// pdfToText is the text of a PDF, words separated by single spaces
// (pdftotext -layout); the test is skipped where poppler-utils is missing.
func pdfToText(t *testing.T, b []byte) string {
	t.Helper()
	pdftotext, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Skip("pdftotext (poppler-utils) is not installed: the PDF's text is not checked")
	}
	f := filepath.Join(t.TempDir(), "r.pdf")
	if err := os.WriteFile(f, b, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(pdftotext, "-layout", f, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return strings.Join(strings.Fields(string(out)), " ")
}
