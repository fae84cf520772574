package invindex

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// proseDir holds the licence texts every Debian system ships: real English
// prose for the tokenizer benchmarks (docs/QUALITY.md, "Tokenizer speed").
const proseDir = "/usr/share/common-licenses"

// prose returns the seven longest texts of proseDir, joined (about 170 KB).
func prose(b *testing.B) string {
	files, _ := filepath.Glob(filepath.Join(proseDir, "*"))
	var texts []string
	for _, f := range files {
		if t, err := os.ReadFile(f); err == nil {
			texts = append(texts, string(t))
		}
	}
	if len(texts) < 7 {
		b.Skipf("fewer than seven texts in %s", proseDir)
	}
	slices.SortFunc(texts, func(x, y string) int { return len(y) - len(x) })
	return strings.Join(texts[:7], "\n")
}

func BenchmarkWordsProse(b *testing.B) {
	text := prose(b)
	tk := defaultTokenizer()
	var ws []Word
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		ws = tk.Words(text, ws)
	}
}

func BenchmarkDocChunksProse(b *testing.B) {
	text := prose(b)
	tk := defaultTokenizer()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		tk.DocChunks(text)
	}
}
