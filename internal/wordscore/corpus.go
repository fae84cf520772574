package wordscore

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// CorpusFile is one row of a real-world corpus manifest (made by
// scripts/make-pdf-corpus.sh): file, producer, script, source, expect, notes,
// tab-separated, after a header line. Unlike the fixtures' manifest it names
// the program that made each PDF and the writing system of its text, so that
// results can be grouped by both.
type CorpusFile struct {
	File     string   // relative to the manifest's folder
	Producer string   // "pdftex", "libreoffice", "ghostscript-groff", ...
	Script   string   // "latin", "cyrillic", "greek", "arabic", "cjk", "-" (no text)
	Source   string   // the true text, relative to the manifest's folder; "" when unknown
	Expect   []string // "ok", or the acceptable failure kinds ("no_text_layer|empty")
	Notes    string
}

// corpusColumns is the header a corpus manifest must start with.
var corpusColumns = []string{"file", "producer", "script", "source", "expect", "notes"}

// ReadCorpusManifest reads a corpus manifest. It checks the header, so that
// a fixtures' manifest (4 columns) given by mistake is refused with a clear
// message rather than misread.
func ReadCorpusManifest(path string) ([]CorpusFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w (make a corpus with scripts/make-pdf-corpus.sh)", err)
	}
	defer f.Close()
	var rows []CorpusFile
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if n == 1 {
			if got := strings.Split(line, "\t"); strings.Join(got, ",") != strings.Join(corpusColumns, ",") {
				return nil, fmt.Errorf("%s:1: want the header %q (tab-separated), got %q",
					path, strings.Join(corpusColumns, " "), line)
			}
			continue
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != len(corpusColumns) {
			return nil, fmt.Errorf("%s:%d: want %d tab-separated columns, got %d", path, n, len(corpusColumns), len(cols))
		}
		row := CorpusFile{File: cols[0], Producer: cols[1], Script: cols[2], Expect: strings.Split(cols[4], "|"), Notes: cols[5]}
		if cols[3] != "-" {
			row.Source = cols[3]
		}
		if row.File == "" || row.Producer == "" || row.Script == "" || cols[4] == "" {
			return nil, fmt.Errorf("%s:%d: file, producer, script and expect must not be empty", path, n)
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no files listed", path)
	}
	return rows, nil
}

// Expects reports whether outcome ("ok" or a failure kind) is one the row accepts.
func (c CorpusFile) Expects(outcome string) bool {
	for _, e := range c.Expect {
		if e == outcome {
			return true
		}
	}
	return false
}

// TooShortWords is the fewest words a text needs to be indexed: one chunk of
// engine.window_words (default 5). An extraction with fewer words is counted
// as "too_short", the failure kind the daemon records for it.
const TooShortWords = 5
