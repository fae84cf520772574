package wordseg

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func cut(s string, ends []int) []string {
	var out []string
	prev := 0
	for _, e := range ends {
		out = append(out, s[prev:e])
		prev = e
	}
	return out
}

func TestSegment(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string // words separated by spaces, "" for nil
	}{
		{"thecatsatonthetable", "the cat sat on the table"},
		{"youmaynotcopythisprogram", "you may not copy this program"},
		{"section2ofthelicence", "section 2 of the licence"},
		{"thiswarrantyisvoid", "this warranty is void"},
		{"together", ""},        // one word
		{"notwithstanding", ""}, // one word
		{"thecat", "the cat"},
		{"doni", ""}, // a name, not "don i"
		{"ora", ""},  // "or a", too short to tell
		{"asis", "as is"},
		{"dontincludethebrackets", "don t include the brackets"}, // "Don't include"
		{"xqzvbrtplkwj", ""}, // no words
		{"The cat sat", ""},  // not lower-case letters
	} {
		got := strings.Join(cut(c.in, Segment(c.in, nil)), " ")
		if got != c.want {
			t.Errorf("Segment(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestTier(t *testing.T) {
	for w, want := range map[string]int{"the": 0, "licensee": 4, "hereunder": 6, "li": -1, "x": -1, "a": 0, "Apache": -1} {
		if got := Tier(w); got != want {
			t.Errorf("Tier(%q) = %d, want %d", w, got, want)
		}
	}
}

// BenchmarkSegment segments a sentence of 77 letters.
func BenchmarkSegment(b *testing.B) {
	s := "youmaynotcopymodifysublicenseordistributetheprogramexceptasexpresslyprovided"
	Segment(s, nil)
	dst := make([]int, 0, 32)
	b.ResetTimer()
	for range b.N {
		dst = Segment(s, dst)
	}
}

// heldOutEnv names the files TestHeldOut measures on: English prose the
// lexicon and the costs were not tuned on (docs/QUALITY.md uses Go's
// documentation, /usr/local/go/doc/*.html).
const heldOutEnv = "PLAGD_WORDSEG_TEXTS"

// TestHeldOut measures Segment the way letter spacing with single spaces
// hides a text: each run of words between punctuation marks is written
// without its spaces, lower-cased, and segmented; a word is recovered when
// a cut starts and ends where it does. Runs Segment declines count as
// not recovered (the tokenizer keeps them whole).
func TestHeldOut(t *testing.T) {
	pattern := os.Getenv(heldOutEnv)
	if pattern == "" {
		t.Skipf("set %s to a glob of English text files", heldOutEnv)
	}
	files, _ := filepath.Glob(pattern)
	tag := regexp.MustCompile(`<[^>]*>|&[a-z]+;`)
	word := regexp.MustCompile(`[A-Za-z0-9]+`)
	var words, recovered, runs, declined, runWords int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := tag.ReplaceAllString(string(b), " ")
		// Runs: words separated by single spaces only.
		for _, run := range regexp.MustCompile(`[A-Za-z0-9]+(?: [A-Za-z0-9]+)*`).FindAllString(text, -1) {
			ws := word.FindAllString(strings.ToLower(run), -1)
			joined := strings.Join(ws, "")
			if len(ws) < 2 {
				continue
			}
			runs++
			words += len(ws)
			var want []int
			e := 0
			for _, w := range ws {
				e += len(w)
				want = append(want, e)
			}
			got := Segment(joined, nil)
			if got == nil {
				declined++
				continue
			}
			runWords += len(ws)
			prev := 0
			gotSet := map[[2]int]bool{}
			for _, g := range got {
				gotSet[[2]int{prev, g}] = true
				prev = g
			}
			prev = 0
			for _, w := range want {
				if gotSet[[2]int{prev, w}] {
					recovered++
				}
				prev = w
			}
			if testing.Verbose() && !slices.Equal(got, want) && runs%50 == 0 {
				t.Logf("%q -> %q", strings.Join(ws, " "), strings.Join(cut(joined, got), " "))
			}
		}
	}
	t.Logf("%d files, %d runs of %d words: %d runs declined; %d words recovered (%.1f %% of all, %.1f %% of the segmented runs' %d)",
		len(files), runs, words, declined, recovered, 100*float64(recovered)/float64(max(words, 1)),
		100*float64(recovered)/float64(max(runWords, 1)), runWords)
}
