package extract_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/plagd/plagd/extract"
	"github.com/plagd/plagd/internal/wordscore"
)

// TestRealWorld reads the CI slice of the real-world PDF corpus
// (testdata/realworld, made by scripts/make-pdf-corpus.sh --slice; its
// README.md says where every text comes from) and asserts, per file:
//
//   - the outcome the manifest expects ("ok", or a failure kind; fewer
//     words than one chunk counts as "too_short", as in the daemon);
//   - no readable file fails: a file whose true text has at least 20 words
//     and that the manifest expects to be read must give text;
//   - word F1 against the true text at least the floor of its producer.
//
// The floors and knownToday are what the reader met when the slice was
// made; they are meant to rise (and knownToday to empty) as the reader
// improves: a file of knownToday that comes out right fails the test until it
// is taken off the list, so the list cannot hide a fixed bug. The test needs
// no external tool: the true texts are committed with the PDFs.
func TestRealWorld(t *testing.T) {
	dir := filepath.Join("testdata", "realworld")
	files, err := wordscore.ReadCorpusManifest(filepath.Join(dir, "manifest.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	seenProducers := map[string]bool{}
	var report []string
	for _, f := range files {
		seenProducers[f.Producer] = true
		t.Run(f.File, func(t *testing.T) {
			line := checkRealWorldFile(t, dir, f)
			report = append(report, line)
		})
	}
	for p := range realWorldFloors {
		if !seenProducers[p] {
			t.Errorf("realWorldFloors names producer %q, which no file of the slice has: drop it", p)
		}
	}
	for file := range knownToday {
		found := false
		for _, f := range files {
			found = found || f.File == file
		}
		if !found {
			t.Errorf("knownToday names %s, which is not in the slice: drop it", file)
		}
	}
	sort.Strings(report)
	t.Logf("file | producer | outcome | word F1 | floor\n%s", strings.Join(report, "\n"))
}

// realWorldFloors is the lowest word F1 against the true text allowed per
// producer (the manifest's producer column). Producers not listed must
// reach defaultRealWorldFloor.
var realWorldFloors = map[string]float64{
	"libreoffice":          0.94, // lo.ko_faq.pdf: 0.948 (Korean)
	"libreoffice-form":     0.99,
	"libreoffice-pdfa":     0.99,
	"libreoffice-tagged":   0.99,
	"pdftex":               0.99,
	"pdftex-2col":          0.99,
	"pdftex-foot":          0.98,
	"xetex":                0.99,
	"ghostscript-groff":    0.99,
	"ghostscript-enscript": 0.99,
	"ghostscript-a2ps":     0.99,
	"ghostscript-reprint":  0.99,
	"ocrmypdf":             0.99,
	"tesseract":            0.99,
	"qpdf":                 0.98, // qpdf-owner.xetex.mk_man.pdf: 0.982 (Macedonian, as xetex.mk_man)
	"broken-badstartxref":  0.99,
	"broken-noxref":        0.99,
	"broken-shifted":       0.99,
	"broken-truncated":     0.99,
}

// defaultRealWorldFloor is the floor of producers without one of their own.
const defaultRealWorldFloor = 0.95

// knownToday lists the files whose outcome differs from the manifest's with
// today's reader, each with what it does instead. They are reported, not
// failed; one that comes out as expected fails until taken off the list.
// PDFium emptied it: the Arabic files (visual order, words cut at joins),
// ocrmypdf's Cyrillic layer, outlined letters (then "empty"), the four
// damaged files and the two encrypted ones all read now.
var knownToday = map[string]string{}

// realWorldScriptFloors lower the floor of a script whose true text no
// reader reaches: Arabic's optional vowel marks and joining forms differ
// between the message catalogues and what the fonts draw (pdftotext 0.61
// to 0.90 on these files, plagd 0.90).
var realWorldScriptFloors = map[string]float64{
	"arabic": 0.88,
}

// readableWords: a true text with at least this many words makes a file
// "readable", one that must not fail (issue 15).
const readableWords = 20

func checkRealWorldFile(t *testing.T, dir string, f wordscore.CorpusFile) string {
	t.Helper()
	content, err := os.ReadFile(filepath.Join(dir, f.File))
	if err != nil {
		t.Fatal(err)
	}
	var truth []string
	if f.Source != "" {
		data, err := os.ReadFile(filepath.Join(dir, f.Source))
		if err != nil {
			t.Fatalf("true text: %v", err)
		}
		truth = wordscore.Words(string(data))
	}

	start := time.Now()
	res, err := extract.Read(context.Background(), content, filepath.Base(f.File), "application/pdf", extract.Options{Timeout: 30 * time.Second})
	elapsed := time.Since(start)
	text := res.Text
	if res.Flags != nil {
		// Real documents from real producers hide nothing.
		t.Errorf("flags on an ordinary file: %+v", res.Flags)
	}
	got := wordscore.Words(text)
	outcome, reason := realWorldOutcome(got, err)

	floor, ok := realWorldFloors[f.Producer]
	if !ok {
		floor = defaultRealWorldFloor
	}
	if sf, ok := realWorldScriptFloors[f.Script]; ok {
		floor = min(floor, sf)
	}
	score := wordscore.F1(got, truth)
	f1 := "-"
	if outcome == "ok" && truth != nil {
		f1 = fmt.Sprintf("%.4f", score.F1)
	}
	line := fmt.Sprintf("%s | %s | %s | %s | %.2f | %s", f.File, f.Producer, outcome, f1, floor, elapsed.Round(time.Millisecond))

	if known, isKnown := knownToday[f.File]; isKnown {
		if f.Expects(outcome) && (outcome != "ok" || truth == nil || score.F1 >= floor) {
			t.Errorf("%s now comes out as the manifest expects (%s): take it off knownToday (%q)", f.File, outcome, known)
		}
		t.Logf("known today: %s: %s (%s)", outcome, reason, known)
		return line + " | known: " + known
	}
	if !f.Expects(outcome) {
		readable := len(truth) >= readableWords && f.Expects("ok")
		what := "outcome"
		if readable {
			what = "readable file failed"
		}
		t.Fatalf("%s: got %s (%s), the manifest expects %s (%s)", what, outcome, reason, strings.Join(f.Expect, " or "), f.Notes)
	}
	if outcome == "ok" && truth != nil && score.F1 < floor {
		t.Errorf("word F1 %.4f (P %.4f, R %.4f) against the true text is below the floor %.2f of producer %s",
			score.F1, score.P, score.R, floor, f.Producer)
	}
	if outcome != "ok" && reason == "" {
		t.Errorf("failure %s without a reason", outcome)
	}
	return line
}

// realWorldOutcome is "ok", the failure kind of err, or "too_short" for a
// text with fewer words than one chunk (the kind the daemon records).
func realWorldOutcome(words []string, err error) (outcome, reason string) {
	var xerr *extract.Error
	switch {
	case errors.As(err, &xerr):
		return xerr.Kind.String(), xerr.Reason
	case err != nil:
		return "error", err.Error()
	case len(words) < wordscore.TooShortWords:
		return "too_short", fmt.Sprintf("%d words", len(words))
	}
	return "ok", ""
}
