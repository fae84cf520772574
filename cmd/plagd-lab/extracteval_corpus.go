package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/plagd/plagd/extract"
	"github.com/plagd/plagd/internal/wordscore"
)

// The corpus mode of `plagd-lab extract-eval --corpus DIR`: how well plagd reads
// a folder of real-world PDFs, against the best reference text per file.
//
// A corpus made by scripts/make-pdf-corpus.sh has a manifest naming, per
// file, its producer, its script, its true text and the outcome it must have.
// Any other folder of PDFs (a public viewer's test files, an archive's
// sample) works too: its files are then grouped by the Producer that pdfinfo
// reads from them and by the script of their reference text, and judged by
// what the reference engines read alone.
//
// The references are the file's true text when the manifest knows it, and the
// output of reference engines (poppler's pdftotext, MuPDF's mutool), cached
// under DIR/.ref so that a rerun only extracts with plagd again.

// corpusFlags are the flags of the corpus mode.
type corpusFlags struct {
	dir       string
	timeout   time.Duration
	noCache   bool
	all       bool
	worst     int
	jsonPath  string
	mutool    string
	pdfinfo   string
	jobs      int
	pdftotext string            // the fixture mode's --pdftotext
	markdown  bool              // the fixture mode's --markdown
	engine    extract.PDFEngine // --pdf-engine
}

func (c *corpusFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&c.dir, "corpus", "", "measure the PDFs of DIR (its manifest.tsv, or every *.pdf under it) instead of the fixtures")
	f.DurationVar(&c.timeout, "timeout", time.Minute, "--corpus: time allowed to plagd and to each reference engine per file")
	f.BoolVar(&c.noCache, "no-cache", false, "--corpus: run the reference engines again instead of reading DIR/.ref")
	f.BoolVar(&c.all, "all", false, "--corpus: list every file, not only the worst")
	f.IntVar(&c.worst, "worst", 25, "--corpus: how many of the worst files to list")
	f.StringVar(&c.jsonPath, "json", "", "--corpus: also write the per-file rows as JSON to this file")
	f.StringVar(&c.mutool, "mutool", "mutool", `--corpus: MuPDF's mutool, a second reference engine ("" to skip)`)
	f.StringVar(&c.pdfinfo, "pdfinfo", "pdfinfo", "--corpus: poppler's pdfinfo, which names the producer of files without a manifest")
	f.IntVar(&c.jobs, "jobs", runtime.NumCPU(), "--corpus: files measured at once")
}

// corpusEntry is one file to measure.
type corpusEntry struct {
	wordscore.CorpusFile
	listed bool // from a manifest: Producer, Script and Expect are known
}

// engineResult is what one reference engine made of a file.
type engineResult struct {
	Outcome string  `json:"outcome"` // "ok", "error" (with Reason), "empty"
	Reason  string  `json:"reason,omitempty"`
	Words   int     `json:"words"`
	F1      float64 `json:"f1"` // against the best reference
	words   []string
}

// corpusRow is the measure of one file: a row of the per-file table and of --json.
type corpusRow struct {
	File      string                  `json:"file"`
	Producer  string                  `json:"producer"`
	Script    string                  `json:"script"`
	Expect    []string                `json:"expect,omitempty"`
	Outcome   string                  `json:"outcome"` // plagd: "ok", a failure kind, or "too_short"
	Reason    string                  `json:"reason,omitempty"`
	Words     int                     `json:"words"`
	Seconds   float64                 `json:"seconds"`
	Reference string                  `json:"reference"` // "true text", an engine's name, or "" when none read anything
	RefWords  int                     `json:"reference_words"`
	F1        float64                 `json:"f1"`
	P         float64                 `json:"precision"`
	R         float64                 `json:"recall"`
	Engines   map[string]engineResult `json:"engines"`
	Readable  bool                    `json:"readable"`   // the best reference reads >= readableWords words
	Failed    bool                    `json:"failed"`     // readable, and plagd gave no text
	Unexpect  bool                    `json:"unexpected"` // the manifest expects another outcome
}

// Thresholds of the report (issue 15).
const (
	readableWords = 20  // a file whose best reference has fewer words is not counted as readable
	scoredWords   = 200 // the summary's mean F1 is over files whose reference has at least this many
)

func runCorpusEval(ctx context.Context, out, errOut io.Writer, fl corpusFlags) error {
	start := time.Now()
	entries, err := corpusEntries(fl.dir)
	if err != nil {
		return err
	}
	engines, warnings := referenceEngines(fl)
	for _, w := range warnings {
		fmt.Fprintln(errOut, "plagd-lab:", w)
	}
	pdfinfo := ""
	if fl.pdfinfo != "" {
		pdfinfo = lookTool(fl.pdfinfo)
	}
	cache := newRefCache(fl.dir, !fl.noCache, errOut)

	rows := make([]corpusRow, len(entries))
	var (
		wg   sync.WaitGroup
		next = make(chan int)
		done = make(chan struct{}, len(entries))
	)
	for range max(1, fl.jobs) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				rows[i] = measureCorpusFile(ctx, fl, entries[i], engines, pdfinfo, cache)
				done <- struct{}{}
			}
		}()
	}
	go func() {
		for n := 1; n <= len(entries); n++ {
			<-done
			if n%100 == 0 {
				fmt.Fprintf(errOut, "plagd-lab: %d of %d files measured\n", n, len(entries))
			}
		}
	}()
	for i := range entries {
		select {
		case next <- i:
		case <-ctx.Done():
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}

	if fl.jsonPath != "" {
		data, err := json.MarshalIndent(rows, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(fl.jsonPath, append(data, '\n'), 0o644); err != nil {
			return fmt.Errorf("--json: %w", err)
		}
	}
	names := make([]string, len(engines))
	for i, e := range engines {
		names[i] = e.name
	}
	printCorpusReport(out, rows, names, fl, time.Since(start))
	return nil
}

// corpusEntries lists the files to measure: the manifest's rows when DIR has
// one, otherwise every PDF under DIR (hidden folders such as .ref skipped).
func corpusEntries(dir string) ([]corpusEntry, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("--corpus: %w (give a folder of PDFs, e.g. one made by scripts/make-pdf-corpus.sh DIR)", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("--corpus: %s is not a folder (give the folder that holds the PDFs)", dir)
	}
	manifest := filepath.Join(dir, "manifest.tsv")
	if _, err := os.Stat(manifest); err == nil {
		files, err := wordscore.ReadCorpusManifest(manifest)
		if err != nil {
			return nil, err
		}
		entries := make([]corpusEntry, len(files))
		for i, f := range files {
			entries[i] = corpusEntry{CorpusFile: f, listed: true}
		}
		return entries, nil
	}
	var entries []corpusEntry
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.EqualFold(filepath.Ext(path), ".pdf") {
			rel, _ := filepath.Rel(dir, path)
			entries = append(entries, corpusEntry{CorpusFile: wordscore.CorpusFile{File: rel}})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("--corpus: %w", err)
	}
	if len(entries) == 0 {
		return nil, fmt.Errorf("--corpus: %s has no manifest.tsv and no *.pdf files (make a corpus with scripts/make-pdf-corpus.sh %s)", dir, dir)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].File < entries[j].File })
	return entries, nil
}

// measureCorpusFile extracts one file with plagd and the reference engines
// and scores plagd and each engine against the best reference.
func measureCorpusFile(ctx context.Context, fl corpusFlags, e corpusEntry, engines []refEngine, pdfinfo string, cache *refCache) corpusRow {
	row := corpusRow{File: e.File, Producer: e.Producer, Script: e.Script, Engines: map[string]engineResult{}}
	if e.listed {
		row.Expect = e.Expect
	}
	path := filepath.Join(fl.dir, e.File)
	content, err := os.ReadFile(path)
	if err != nil {
		row.Outcome, row.Reason = "error", err.Error()
		return row
	}
	info, _ := os.Stat(path)

	// plagd, within the per-file timeout.
	fctx, cancel := context.WithTimeout(ctx, fl.timeout)
	t0 := time.Now()
	text, xerr := extract.TextContext(fctx, content, filepath.Base(e.File), extract.ContentType(e.File), extract.Options{Timeout: fl.timeout, PDFEngine: fl.engine})
	row.Seconds = time.Since(t0).Seconds()
	cancel()
	got := wordscore.Words(text)
	row.Outcome, row.Reason = plagdOutcome(got, xerr)
	row.Words = len(got)

	// The references: the true text, then every engine. A file the manifest
	// expects to fail (a password, a scan) is judged by what the engines read
	// alone: its true text says what the pages show, not what can be read.
	var best []string
	if e.Source != "" && (!e.listed || e.Expects("ok")) {
		truth, err := os.ReadFile(filepath.Join(fl.dir, e.Source))
		if err != nil {
			row.Reason = strings.TrimSpace(row.Reason + "; true text unreadable: " + err.Error())
		} else {
			best, row.Reference = wordscore.Words(string(truth)), "true text"
		}
	}
	for _, eng := range engines {
		r := cache.run(ctx, eng, path, e.File, info, fl.timeout)
		row.Engines[eng.name] = r
		if row.Reference != "true text" && r.Words > len(best) {
			best, row.Reference = r.words, eng.name
		}
	}
	row.RefWords = len(best)
	row.Readable = row.RefWords >= readableWords
	if len(best) > 0 {
		s := wordscore.F1(got, best)
		row.F1, row.P, row.R = s.F1, s.P, s.R
		for name, r := range row.Engines {
			r.F1 = wordscore.F1(r.words, best).F1
			row.Engines[name] = r
		}
	}
	row.Failed = row.Readable && row.Outcome != "ok"
	if e.listed {
		row.Unexpect = !e.Expects(row.Outcome)
	} else {
		row.Producer = producerOf(ctx, pdfinfo, path, e.File, info, cache)
		row.Script = scriptOf(best)
	}
	return row
}

// plagdOutcome names what plagd made of a file: "ok", the failure kind of its
// error, or "too_short" for a text with fewer words than one chunk needs (the
// daemon indexes nothing from it and records that kind).
func plagdOutcome(words []string, err error) (outcome, reason string) {
	if err != nil {
		return failure(err)
	}
	if len(words) < wordscore.TooShortWords {
		return "too_short", fmt.Sprintf("%d words, a chunk needs %d", len(words), wordscore.TooShortWords)
	}
	return "ok", ""
}
