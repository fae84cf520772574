package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/plagd/plagd/internal/cli"
	"github.com/plagd/plagd/internal/wordscore"

	"github.com/spf13/cobra"

	"github.com/plagd/plagd/extract"
)

// newExtractEvalCmd is `plagd-lab extract-eval`: the extraction quality report of
// docs/EXTRACTION.md. It reads the fixture manifest (extract/testdata, made by
// scripts/make-extract-fixtures.sh), extracts every fixture with plagd and the
// PDFs also with poppler's pdftotext, and prints word F1 per fixture and per
// format for both. It needs no database and no configuration.
func newExtractEvalCmd(_ *cli.Globals) *cobra.Command {
	var (
		dir       string
		pdftotext string
		ocr       bool
		markdown  bool
		corpus    corpusFlags
		pdfEngine string
	)
	cmd := &cobra.Command{
		Use:   "extract-eval [--testdata DIR | --corpus DIR] [--pdftotext PATH] [--ocr] [--markdown]",
		Short: "Measure text extraction against the fixtures (word F1, plagd vs pdftotext)",
		Long: `Extract every file listed in DIR/manifest.tsv (default extract/testdata) and
compare the text with the file's true source text: word precision, recall and
F1 over the multiset of lower-cased letter/digit runs, and F1 of adjacent word
pairs (which also sees glued or split words and reading-order errors). Files
expected to fail show the failure kind and the reason plagd gives.

PDFs are also extracted with pdftotext from poppler-utils, when it is
installed, for comparison. --ocr also reads the scanned fixtures with the
tesseract program (from PATH). --markdown prints the tables as Markdown, as in
docs/EXTRACTION.md.

--corpus DIR measures a folder of PDFs instead (extracteval_corpus.go): the
files of DIR/manifest.tsv (made by scripts/make-pdf-corpus.sh) or, without a
manifest, every *.pdf under DIR; each is compared with the best reference
text (its true text when known, else pdftotext's or mutool's, whichever
reads more words), with tables per file, producer and script.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return cli.UsageError{Msg: fmt.Sprintf("plagd-lab extract-eval takes no arguments, got %q", args)}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			engine, err := extract.ParsePDFEngine(pdfEngine)
			if err != nil {
				return cli.UsageError{Msg: "--pdf-engine: " + err.Error()}
			}
			corpus.engine = engine
			if corpus.dir != "" {
				corpus.pdftotext, corpus.markdown = pdftotext, markdown
				return runCorpusEval(cmd.Context(), os.Stdout, os.Stderr, corpus)
			}
			rows, err := readEvalManifest(filepath.Join(dir, "manifest.tsv"), engine)
			if err != nil {
				return err
			}
			if pdftotext != "" {
				if p, err := exec.LookPath(pdftotext); err == nil {
					pdftotext = p
				} else {
					fmt.Fprintf(os.Stderr, "plagd-lab: %s not found, PDFs are not compared with it\n", pdftotext)
					pdftotext = ""
				}
			}
			tesseract := ""
			if ocr {
				if tesseract, err = exec.LookPath("tesseract"); err != nil {
					return fmt.Errorf("--ocr: %w", err)
				}
			}
			var results []evalResult
			for _, row := range rows {
				r, err := runEvalRow(cmd.Context(), dir, row, pdftotext, tesseract)
				if err != nil {
					return err
				}
				results = append(results, r)
			}
			printEval(os.Stdout, results, pdftotext != "", markdown)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "testdata", filepath.Join("extract", "testdata"), "fixture directory with manifest.tsv")
	f.StringVar(&pdftotext, "pdftotext", "pdftotext", `pdftotext program to compare PDFs with ("" to skip)`)
	f.BoolVar(&ocr, "ocr", false, "read scanned PDFs with tesseract (from PATH)")
	f.BoolVar(&markdown, "markdown", false, "print Markdown tables")
	f.StringVar(&pdfEngine, "pdf-engine", string(extract.PDFEnginePDFium), `PDF reader to measure: "pdfium" or "go" (extract.pdf_engine)`)
	corpus.register(cmd)
	return cmd
}

// evalRow is a fixture with the extraction options its notes ask for.
type evalRow struct {
	wordscore.Fixture
	opt extract.Options
}

type evalOutcome struct {
	ran          bool   // false: not applicable (pdftotext on a DOCX)
	outcome      string // "ok" or a failure kind
	reason       string
	word, bigram wordscore.Score
	glued, split int
}

type evalResult struct {
	row            evalRow
	group          string
	plagd, poppler evalOutcome
	elapsed        time.Duration
}

func readEvalManifest(path string, engine extract.PDFEngine) ([]evalRow, error) {
	fixtures, err := wordscore.ReadManifest(path)
	if err != nil {
		return nil, fmt.Errorf("%w, or give --testdata", err)
	}
	rows := make([]evalRow, len(fixtures))
	for i, f := range fixtures {
		rows[i] = evalRow{Fixture: f, opt: extract.Options{Timeout: time.Minute, MaxUnzipped: f.MaxUnzipped, PDFEngine: engine}}
	}
	return rows, nil
}

func runEvalRow(ctx context.Context, dir string, row evalRow, pdftotext, tesseract string) (evalResult, error) {
	res := evalResult{row: row, group: row.Group()}
	path := filepath.Join(dir, row.File)
	content, err := os.ReadFile(path)
	if err != nil {
		return res, err
	}
	var truth []string
	if row.Sources != nil {
		text, err := row.TrueText(dir)
		if err != nil {
			return res, err
		}
		truth = wordscore.Words(text)
	}

	name := filepath.Base(row.File)
	opt := row.opt
	if tesseract != "" {
		opt.OCR = extract.OCROptions{Tesseract: tesseract,
			Languages: map[string][]string{"en": {"eng"}, "cs": {"ces"}, "de": {"deu"}}[name[:min(2, len(name))]]}
	}
	start := time.Now()
	text, err := extract.Text(content, name, extract.ContentType(name), opt)
	res.elapsed = time.Since(start)
	res.plagd = scoreOutcome(text, err, truth)

	if pdftotext != "" && extract.DetectFormat(content, name, "") == extract.FormatPDF {
		cmd := exec.CommandContext(ctx, pdftotext, "-enc", "UTF-8", path, "-")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			msg := strings.TrimSpace(stderr.String())
			if i := strings.IndexByte(msg, '\n'); i >= 0 {
				msg = msg[:i]
			}
			res.poppler = evalOutcome{ran: true, outcome: "error", reason: fmt.Sprintf("%v: %s", err, msg)}
		} else {
			res.poppler = scoreOutcome(string(out), nil, truth)
		}
	}
	return res, nil
}

// scoreOutcome scores one extraction; text with no words counts as "empty".
func scoreOutcome(text string, err error, truth []string) evalOutcome {
	o := evalOutcome{ran: true}
	if o.outcome, o.reason = failure(err); err != nil {
		return o
	}
	got := wordscore.Words(text)
	if len(got) == 0 {
		o.outcome = "empty"
		return o
	}
	o.outcome = "ok"
	if truth != nil {
		o.word = wordscore.F1(got, truth)
		o.bigram = wordscore.F1(wordscore.Bigrams(got), wordscore.Bigrams(truth))
		glued, split := wordscore.BoundaryErrors(got, truth)
		o.glued, o.split = len(glued), len(split)
	}
	return o
}

func printEval(w io.Writer, results []evalResult, withPoppler, markdown bool) {
	cell := func(o evalOutcome, scored bool) string {
		switch {
		case !o.ran:
			return ""
		case o.outcome != "ok" || !scored:
			return o.outcome
		}
		return fmt.Sprintf("%.4f / %.4f", o.word.F1, o.bigram.F1)
	}
	table := func(header []string, rows [][]string) { printTable(w, markdown, header, rows) }

	// Fixtures with a true text and expected to be read.
	header := []string{"fixture", "plagd F1 words / bigrams", "P", "R", "glued", "split"}
	if withPoppler {
		header = append(header, "pdftotext F1 words / bigrams", "glued", "split")
	}
	var rows [][]string
	for _, r := range results {
		if r.row.Expect[0] != "ok" {
			continue
		}
		p := r.plagd
		row := []string{r.row.File, cell(p, true), "", "", "", ""}
		if p.outcome == "ok" {
			row[2], row[3] = fmt.Sprintf("%.4f", p.word.P), fmt.Sprintf("%.4f", p.word.R)
			row[4], row[5] = strconv.Itoa(p.glued), strconv.Itoa(p.split)
		}
		if withPoppler {
			q := r.poppler
			row = append(row, cell(q, true), "", "")
			if q.outcome == "ok" {
				row[len(row)-2], row[len(row)-1] = strconv.Itoa(q.glued), strconv.Itoa(q.split)
			}
		}
		rows = append(rows, row)
	}
	fmt.Fprintln(w, "Readable fixtures (F1 of words / F1 of word bigrams against the source text):")
	table(header, rows)

	// Per format: mean and minimum word F1.
	type agg struct{ plagd, poppler f1Sums }
	groups := map[string]*agg{}
	for _, r := range results {
		if r.row.Expect[0] != "ok" {
			continue
		}
		g := groups[r.group]
		if g == nil {
			g = &agg{}
			groups[r.group] = g
		}
		g.plagd.add(r.plagd)
		if r.poppler.ran {
			g.poppler.add(r.poppler)
		}
	}
	names := make([]string, 0, len(groups))
	for n := range groups {
		names = append(names, n)
	}
	sort.Strings(names)
	header = []string{"format", "files", "plagd mean F1", "plagd min F1", "plagd bigram F1"}
	if withPoppler {
		header = append(header, "pdftotext mean F1", "pdftotext min F1", "pdftotext bigram F1")
	}
	rows = nil
	for _, n := range names {
		g := groups[n]
		row := append([]string{n, strconv.Itoa(g.plagd.n)}, g.plagd.cells()...)
		if withPoppler {
			if g.poppler.n == 0 {
				row = append(row, "", "", "")
			} else {
				row = append(row, g.poppler.cells()...)
			}
		}
		rows = append(rows, row)
	}
	fmt.Fprintln(w, "Per format (a fixture that fails counts as F1 0):")
	table(header, rows)

	// Fixtures expected to fail, and scanned ones (OCR), with what they yield.
	header = []string{"fixture", "expected", "plagd", "reason"}
	if withPoppler {
		header = append(header, "pdftotext")
	}
	rows = nil
	for _, r := range results {
		if r.row.Expect[0] == "ok" {
			continue
		}
		p := r.plagd
		got := p.outcome
		if got == "ok" && r.row.Sources != nil {
			got = fmt.Sprintf("ok (OCR), F1 %.4f", p.word.F1)
		}
		row := []string{r.row.File, strings.Join(r.row.Expect, " or "), got, strings.ReplaceAll(p.reason, "|", "/")}
		if withPoppler {
			q := r.poppler
			s := cell(q, r.row.Sources != nil)
			if q.outcome == "error" {
				s = "error: " + q.reason
			}
			row = append(row, strings.ReplaceAll(s, "|", "/"))
		}
		rows = append(rows, row)
	}
	fmt.Fprintln(w, "Fixtures that must fail:")
	table(header, rows)
}

// failure names what an extraction error is: the failure kind of an
// *extract.Error and plagd's reason, or "error" and the message of any
// other error.
func failure(err error) (kind, reason string) {
	var xerr *extract.Error
	switch {
	case err == nil:
		return "", ""
	case errors.As(err, &xerr):
		return xerr.Kind.String(), xerr.Reason
	}
	return "error", err.Error()
}

// f1Sums gathers one extractor's scores over the readable fixtures of a
// format.
type f1Sums struct {
	n, ok  int // fixtures, and those it read
	f1, bi float64
	min    float64
}

func (s *f1Sums) add(o evalOutcome) {
	if s.n == 0 {
		s.min = 1
	}
	s.n++
	if o.outcome != "ok" {
		s.min = 0
		return
	}
	s.ok++
	s.f1 += o.word.F1
	s.bi += o.bigram.F1
	s.min = min(s.min, o.word.F1)
}

// cells are the mean word F1, the minimum and the mean bigram F1; a
// fixture that failed counts as F1 0 in the means, which are "-" when none
// was read.
func (s *f1Sums) cells() []string {
	mean := func(sum float64) string {
		if s.ok == 0 {
			return "-"
		}
		return fmt.Sprintf("%.4f", sum/float64(s.n))
	}
	return []string{mean(s.f1), fmt.Sprintf("%.4f", s.min), mean(s.bi)}
}

// printTable prints a table as Markdown or as aligned columns, then a blank
// line.
func printTable(w io.Writer, markdown bool, header []string, rows [][]string) {
	if markdown {
		fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(header, " | "), strings.Repeat(" --- |", len(header)))
		for _, r := range rows {
			fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
		}
		fmt.Fprintln(w)
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
	fmt.Fprintln(w)
}
