package extract

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/plagd/plagd/internal/wordscore"
)

// TestQuality measures extraction against the fixtures of extract/testdata
// (made by scripts/make-extract-fixtures.sh, described in docs/EXTRACTION.md).
//
// Every row of testdata/manifest.tsv is a subtest. Rows expecting "ok" are
// scored by word F1 (multiset of lower-cased letter/digit runs) against their
// source text and must reach minWordF1; word-bigram F1 and glued/split words
// are reported alongside. Fixtures with a .intact list (the typeset PDFs with
// hyphenation and ligatures) must also bring every listed word out whole and
// have no glued or split words at all. Rows expecting a failure must fail
// with that kind.
//
// go test ./extract -run Quality -v prints the per-fixture and per-format
// tables; PLAGD_TEST_OCR=1 also scores OCR of the scanned fixtures (slow).
func TestQuality(t *testing.T) {
	rows := loadManifest(t, filepath.Join("testdata", "manifest.tsv"))
	var results []qualityResult
	for _, row := range rows {
		t.Run(row.File, func(t *testing.T) {
			r := runQualityRow(t, row)
			results = append(results, r)
		})
	}
	logQualityTables(t, results)
}

// minWordF1 is the target for born-digital documents.
const minWordF1 = 0.98

// manifestRow is a fixture with the extraction options its notes ask for.
type manifestRow struct {
	wordscore.Fixture
	opt Options
}

type qualityResult struct {
	row            manifestRow
	group          string
	outcome        string // "ok", a kind name, or "skip"
	reason         string // the error's Reason
	word, bigram   wordscore.Score
	glued, split   int
	intactMissing  int
	intactChecked  int
	passed         bool
	ocr            *wordscore.Score // OCR wordscore.Score of a no_text_layer row, when tesseract is installed
	ocrUnsupported bool
}

func loadManifest(t *testing.T, path string) []manifestRow {
	t.Helper()
	fixtures, err := wordscore.ReadManifest(path)
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]manifestRow, len(fixtures))
	for i, f := range fixtures {
		for _, e := range f.Expect {
			if e != "ok" && kindByName(e) == 0 {
				t.Fatalf("%s: %s: unknown expectation %q", path, f.File, e)
			}
		}
		rows[i] = manifestRow{Fixture: f, opt: Options{Timeout: time.Minute, MaxUnzipped: f.MaxUnzipped}}
	}
	return rows
}

func kindByName(name string) Kind {
	for k := ErrEmpty; k <= ErrTooComplex; k++ {
		if k.String() == name {
			return k
		}
	}
	return 0
}

func readSources(t *testing.T, row manifestRow) string {
	t.Helper()
	text, err := row.TrueText("testdata")
	if err != nil {
		t.Fatal(err)
	}
	return text
}

func runQualityRow(t *testing.T, row manifestRow) qualityResult {
	res := qualityResult{row: row, group: row.Group(), outcome: "skip"}
	content, err := os.ReadFile(filepath.Join("testdata", row.File))
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(row.File)
	r, err := Read(context.Background(), content, name, ContentType(name), row.opt)
	text := r.Text
	if r.Flags != nil {
		// The fixtures are ordinary documents: nothing in them is hidden.
		t.Errorf("flags on an ordinary file: %+v", r.Flags)
	}

	var xerr *Error
	if err != nil && !errors.As(err, &xerr) {
		t.Fatalf("Text returned %T, not *extract.Error: %v", err, err)
	}
	if row.Expect[0] != "ok" {
		res.passed = true
		if err == nil {
			res.outcome = "ok"
			res.passed = false
			t.Errorf("want failure %s, got %d characters of text: %.80q", strings.Join(row.Expect, " or "), len(text), text)
			return res
		}
		res.outcome, res.reason = xerr.Kind.String(), xerr.Reason
		if !slices.Contains(row.Expect, xerr.Kind.String()) {
			res.passed = false
			t.Errorf("want failure %s, got %s: %v", strings.Join(row.Expect, " or "), xerr.Kind, err)
		}
		if strings.TrimSpace(xerr.Reason) == "" {
			t.Errorf("%s error without a reason for the archive staff", xerr.Kind)
		}
		t.Logf("%s: %s", xerr.Kind, xerr.Reason)
		if row.Sources != nil && errors.Is(err, ErrNoTextLayer) {
			res.ocr, res.ocrUnsupported = ocrScore(t, row, content, name)
		}
		return res
	}

	if err != nil {
		res.outcome, res.reason = xerr.Kind.String(), xerr.Reason
		t.Errorf("want text, got %s: %v", xerr.Kind, err)
		return res
	}
	res.outcome = "ok"
	want := wordscore.Words(readSources(t, row))
	got := wordscore.Words(text)
	res.word = wordscore.F1(got, want)
	res.bigram = wordscore.F1(wordscore.Bigrams(got), wordscore.Bigrams(want))
	glued, split := wordscore.BoundaryErrors(got, want)
	res.glued, res.split = len(glued), len(split)
	res.passed = res.word.F1 >= minWordF1
	t.Logf("words P %.4f R %.4f F1 %.4f; bigrams F1 %.4f; glued %d %v; split %d %v",
		res.word.P, res.word.R, res.word.F1, res.bigram.F1, len(glued), firstN(glued, 8), len(split), firstN(split, 8))
	if !res.passed {
		t.Errorf("word F1 %.4f < %.2f (P %.4f R %.4f)", res.word.F1, minWordF1, res.word.P, res.word.R)
	}

	intactPath := filepath.Join("testdata", strings.TrimSuffix(row.File, filepath.Ext(row.File))+".intact")
	if data, err := os.ReadFile(intactPath); err == nil {
		check := strings.Fields(string(data))
		missing := wordscore.MissingIntact(check, got, want)
		res.intactChecked, res.intactMissing = len(check), len(missing)
		if len(missing) > 0 {
			res.passed = false
			t.Errorf("%d of %d hyphenated or ligature words not extracted whole: %v", len(missing), len(check), missing)
		}
		glued, split = row.WithoutKnown(glued), row.WithoutKnown(split)
		if len(glued)+len(split) > 0 {
			res.passed = false
			t.Errorf("glued words %v, split words %v", glued, split)
		}
	}
	return res
}

// ocrScore extracts a scanned fixture again with OCR on, when PLAGD_TEST_OCR=1
// and the tesseract program is installed, and scores it. OCR quality is
// reported, not asserted.
func ocrScore(t *testing.T, row manifestRow, content []byte, name string) (*wordscore.Score, bool) {
	if os.Getenv("PLAGD_TEST_OCR") != "1" {
		t.Log("OCR not measured (slow: set PLAGD_TEST_OCR=1, or run plagd-lab extract-eval --ocr)")
		return nil, false
	}
	bin, err := exec.LookPath("tesseract")
	if err != nil {
		t.Log("tesseract not installed: OCR not measured")
		return nil, false
	}
	langs := map[string][]string{"en": {"eng"}, "cs": {"ces"}, "de": {"deu"}}[name[:2]]
	opt := row.opt
	opt.OCR = OCROptions{Tesseract: bin, Languages: langs}
	text, err := Text(content, name, ContentType(name), opt)
	if errors.Is(err, ErrNoTextLayer) || errors.Is(err, ErrUnsupported) {
		t.Logf("OCR not available in the PDF parser yet: %v", err)
		return nil, true
	}
	if err != nil {
		t.Logf("with OCR: %v", err)
		return &wordscore.Score{}, false
	}
	s := wordscore.F1(wordscore.Words(text), wordscore.Words(readSources(t, row)))
	t.Logf("with OCR (%s): words P %.4f R %.4f F1 %.4f", strings.Join(langs, "+"), s.P, s.R, s.F1)
	return &s, false
}

func logQualityTables(t *testing.T, results []qualityResult) {
	var b strings.Builder
	fmt.Fprintf(&b, "\nper fixture:\n%-32s %-22s %8s %8s %8s %8s %6s %6s %7s\n",
		"file", "result", "P", "R", "F1", "bigramF1", "glued", "split", "intact")
	for _, r := range results {
		out := r.outcome
		if r.row.Expect[0] != "ok" {
			out += " (want " + strings.Join(r.row.Expect, "|") + ")"
		}
		if r.outcome != "ok" || r.row.Expect[0] != "ok" {
			extra := ""
			if r.ocr != nil {
				extra = fmt.Sprintf("  OCR F1 %.4f", r.ocr.F1)
			}
			fmt.Fprintf(&b, "%-32s %-22s %s%s\n", r.row.File, out, r.reason, extra)
			continue
		}
		intact := ""
		if r.intactChecked > 0 {
			intact = fmt.Sprintf("%d/%d", r.intactChecked-r.intactMissing, r.intactChecked)
		}
		fmt.Fprintf(&b, "%-32s %-22s %8.4f %8.4f %8.4f %8.4f %6d %6d %7s\n",
			r.row.File, out, r.word.P, r.word.R, r.word.F1, r.bigram.F1, r.glued, r.split, intact)
	}

	type agg struct {
		n, scored, skipped, passed int
		f1, bi, minF1              float64
	}
	groups := map[string]*agg{}
	for _, r := range results {
		g := groups[r.group]
		if g == nil {
			g = &agg{minF1: 1}
			groups[r.group] = g
		}
		g.n++
		switch {
		case r.outcome == "skip":
			g.skipped++
		case r.row.Expect[0] == "ok" && r.outcome == "ok":
			g.scored++
			g.f1 += r.word.F1
			g.bi += r.bigram.F1
			g.minF1 = min(g.minF1, r.word.F1)
		}
		if r.passed {
			g.passed++
		}
	}
	names := make([]string, 0, len(groups))
	for n := range groups {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintf(&b, "\nper format (word F1 target %.2f):\n%-16s %5s %7s %7s %10s %10s %10s\n",
		minWordF1, "format", "files", "passed", "skipped", "mean F1", "min F1", "bigram F1")
	for _, n := range names {
		g := groups[n]
		if g.scored == 0 {
			fmt.Fprintf(&b, "%-16s %5d %7d %7d %10s %10s %10s\n", n, g.n, g.passed, g.skipped, "-", "-", "-")
			continue
		}
		fmt.Fprintf(&b, "%-16s %5d %7d %7d %10.4f %10.4f %10.4f\n", n, g.n, g.passed, g.skipped,
			g.f1/float64(g.scored), g.minF1, g.bi/float64(g.scored))
	}
	t.Log(b.String())
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
