package wordscore

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Fixture is one row of the extraction fixtures' manifest
// (extract/testdata/manifest.tsv): file, source, expect, notes, tab-separated.
type Fixture struct {
	File        string   // relative to the manifest's folder
	Sources     []string // the true text files ("a.txt+b.txt"); nil for "-"
	Expect      []string // "ok", or the acceptable failure kinds ("too_large|corrupt")
	Notes       string
	MaxUnzipped int64 // "opt:max_unzipped=N" in the notes; 0 when absent
}

// ReadManifest reads a manifest, skipping its header line and blank lines.
func ReadManifest(path string) ([]Fixture, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w (run scripts/make-extract-fixtures.sh)", err)
	}
	defer f.Close()
	var rows []Fixture
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if n == 1 || strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 4 {
			return nil, fmt.Errorf("%s:%d: want 4 tab-separated columns, got %d", path, n, len(cols))
		}
		row := Fixture{File: cols[0], Expect: strings.Split(cols[2], "|"), Notes: cols[3]}
		if cols[1] != "-" {
			row.Sources = strings.Split(cols[1], "+")
		}
		if row.Expect[0] == "ok" && row.Sources == nil {
			return nil, fmt.Errorf("%s:%d: an ok row needs a source text", path, n)
		}
		for _, field := range strings.FieldsFunc(row.Notes, func(r rune) bool { return r == ';' || r == ' ' }) {
			if v, ok := strings.CutPrefix(field, "opt:max_unzipped="); ok {
				if row.MaxUnzipped, err = strconv.ParseInt(v, 10, 64); err != nil {
					return nil, fmt.Errorf("%s:%d: %v", path, n, err)
				}
			}
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no fixtures", path)
	}
	return rows, nil
}

// Group names the kind of fixture for per-format tables: the extension and
// the variant before it ("pdf lo", "pdf 2col", "txt cp1250"), or "broken".
func (f Fixture) Group() string {
	if strings.HasPrefix(f.File, "broken/") {
		return "broken"
	}
	parts := strings.Split(filepath.Base(f.File), ".")
	if len(parts) >= 3 {
		return parts[len(parts)-1] + " " + parts[len(parts)-2]
	}
	return parts[len(parts)-1]
}

// TrueText is the concatenation of the fixture's source texts, read from dir.
func (f Fixture) TrueText(dir string) (string, error) {
	var b strings.Builder
	for _, s := range f.Sources {
		data, err := os.ReadFile(filepath.Join(dir, s))
		if err != nil {
			return "", err
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// WithoutKnown drops the boundary errors the fixture lists as known
// ("known:word|level" in its notes): a compound broken at its own hyphen at a
// line end cannot be told from a hyphenated word without a dictionary
// (docs/EXTRACTION.md); such a case is reported, not failed.
func (f Fixture) WithoutKnown(errs []string) []string {
	var out []string
	for _, e := range errs {
		if !strings.Contains(" "+f.Notes+" ", " known:"+e+" ") && !strings.Contains(f.Notes, "known:"+e+";") {
			out = append(out, e)
		}
	}
	return out
}
