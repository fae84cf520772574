package extract

import (
	"strings"
	"testing"
)

// TestLogicalOrder: a right-to-left line, spelled in the left-to-right
// order of its glyphs, is read in its own order; numbers and Latin words
// keep theirs; a left-to-right line is left alone.
func TestLogicalOrder(t *testing.T) {
	cases := []struct{ visual, want, ligature string }{
		{"םלוע םולש", "שלום עולם", ""},
		{"2026 תנש", "שנת 2026", ""},
		{"PDF ץבוק הז", "זה קובץ PDF", ""},
		{"مالس", "سلام", ""},
		{"م", "ملا", "لا"}, // a lam-alef glyph (two letters) keeps its own order
		{"hello world", "hello world", ""},
		{"Tel Aviv לא", "Tel Aviv לא", ""}, // mostly left-to-right
	}
	for _, c := range cases {
		var words [][]string
		for _, w := range strings.Fields(c.visual) {
			var glyphs []string
			for _, r := range w {
				glyphs = append(glyphs, string(r))
			}
			words = append(words, glyphs)
		}
		if c.ligature != "" { // one glyph standing for two letters
			words[0] = append([]string{c.ligature}, words[0]...)
		}
		logicalOrder(words)
		var got []string
		for _, w := range words {
			got = append(got, strings.Join(w, ""))
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("logicalOrder(%q) = %q, want %q", c.visual, g, c.want)
		}
	}
}
