package invindex

import (
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/plagd/plagd/disguise"
)

// spacedTextsEnv names a file listing, one path a line, the texts
// TestMeasureSpaced reads (docs/QUALITY.md, "False joins", gives the
// commands that make the lists).
const spacedTextsEnv = "PLAGD_SPACED_TEXTS"

// TestMeasureSpaced measures letter-spaced joining and cutting on text that
// is not disguised: how many words Words makes, how many runs of single
// letters it joins into one word, and how many it cuts into several
// (disguise.SpacedWords), with the cut runs logged (-v) to judge them. A
// run's words are consecutive words one space apart that contain a space
// or are one letter, one of them with a space: a run SpacedRuns finds is
// maximal, so words that follow each other like that were cut.
func TestMeasureSpaced(t *testing.T) {
	list := os.Getenv(spacedTextsEnv)
	if list == "" {
		t.Skipf("set %s to a file listing texts", spacedTextsEnv)
	}
	b, err := os.ReadFile(list)
	if err != nil {
		t.Fatal(err)
	}
	tk := defaultTokenizer()
	var files, words, joined, joinedLetters, cut int
	var ws []Word
	for _, path := range strings.Fields(string(b)) {
		text, err := os.ReadFile(path)
		if err != nil || !utf8.Valid(text) {
			continue
		}
		files++
		s := string(text)
		ws = tk.Words(s, ws)
		words += len(ws)
		spaced := func(w Word) bool { return strings.IndexFunc(s[w.Start:w.End], disguise.IsSpaceLike) >= 0 }
		for i := 0; i < len(ws); {
			if !spaced(ws[i]) {
				i++
				continue
			}
			// The group: back over single letters one space before, on
			// over spaced words and single letters one space after.
			start := i
			for start > 0 && disguise.OneSpace(s[ws[start-1].End:ws[start].Start]) && disguise.SingleLetter(s[ws[start-1].Start:ws[start-1].End]) {
				start--
			}
			end := i + 1
			for end < len(ws) && disguise.OneSpace(s[ws[end-1].End:ws[end].Start]) &&
				(spaced(ws[end]) || disguise.SingleLetter(s[ws[end].Start:ws[end].End])) {
				end++
			}
			if end-start == 1 {
				joined++
				if strings.Trim(strings.ToLower(s[ws[i].Start:ws[i].End]), " abcdefghijklmnopqrstuvwxyz") == "" {
					joinedLetters++
				}
			} else {
				cut++
				var pieces []string
				for _, w := range ws[start:end] {
					pieces = append(pieces, strings.Join(strings.FieldsFunc(s[w.Start:w.End], disguise.IsSpaceLike), ""))
				}
				t.Logf("cut %s: %q", path, strings.Join(pieces, " "))
			}
			i = end
		}
	}
	t.Logf("%d files, %d words: %d runs joined (%d of letters only), %d cut into words", files, words, joined, joinedLetters, cut)
}
