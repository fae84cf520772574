package extract

import (
	"fmt"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Scoring of extracted text against the true text, used by TestQuality.
// cmd/plagd/extracteval.go carries a copy of these functions (a test file
// cannot be imported); keep the two the same, or the documented numbers and
// the test disagree.

// scoreWords tokenises text for scoring: NFC (so that a decomposed "ř" equals a
// precomposed one; NFKC is not used because it would expand the ligature
// characters "ﬁ" and "ﬂ", hiding exactly the defect the fixtures look for),
// lower case, maximal runs of letters, digits and combining marks. All other
// characters, punctuation and layout among them, separate words.
func scoreWords(text string) []string {
	text = norm.NFC.String(text)
	var out []string
	start := -1
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, strings.ToLower(text[start:i]))
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, strings.ToLower(text[start:]))
	}
	return out
}

// f1Score is precision, recall and F1 of one comparison.
type f1Score struct{ P, R, F1 float64 }

// multisetF1 compares two multisets of items: an item counts as correct as
// many times as it occurs in both.
func multisetF1(got, want []string) f1Score {
	if len(got) == 0 && len(want) == 0 {
		return f1Score{1, 1, 1}
	}
	if len(got) == 0 || len(want) == 0 {
		return f1Score{}
	}
	count := make(map[string]int, len(want))
	for _, w := range want {
		count[w]++
	}
	common := 0
	for _, g := range got {
		if count[g] > 0 {
			count[g]--
			common++
		}
	}
	p := float64(common) / float64(len(got))
	r := float64(common) / float64(len(want))
	if common == 0 {
		return f1Score{}
	}
	return f1Score{p, r, 2 * p * r / (p + r)}
}

// wordBigrams are the pairs of adjacent words. Their F1 sees what a bag of words
// cannot: glued or split words (each breaks two or three pairs), columns read
// across instead of down, and headers interrupting sentences.
func wordBigrams(ws []string) []string {
	if len(ws) < 2 {
		return nil
	}
	out := make([]string, len(ws)-1)
	for i := range out {
		out[i] = ws[i] + " " + ws[i+1]
	}
	return out
}

// boundaryErrors finds glued and split words: an extracted word that is not a
// true word but is two true words run together (glued), and two adjacent
// extracted words that are not both true words but together make one (split:
// a hyphenation not joined, a word broken at a ligature). Each list holds
// examples in extraction order.
func boundaryErrors(got, want []string) (glued, split []string) {
	vocab := make(map[string]bool, len(want))
	for _, w := range want {
		vocab[w] = true
	}
	for i, g := range got {
		if !vocab[g] {
			for j := 1; j < len(g); j++ {
				if vocab[g[:j]] && vocab[g[j:]] {
					glued = append(glued, g[:j]+"|"+g[j:])
					break
				}
			}
		}
		if i+1 < len(got) {
			a, b := g, got[i+1]
			if (!vocab[a] || !vocab[b]) && vocab[a+b] {
				split = append(split, a+"|"+b)
			}
		}
	}
	return glued, split
}

// missingIntact returns the words of check that occur fewer times in got
// than in want: words broken apart or glued to a neighbour somewhere.
func missingIntact(check, got, want []string) []string {
	count := func(ws []string) map[string]int {
		m := make(map[string]int)
		for _, w := range ws {
			m[w]++
		}
		return m
	}
	g, w := count(got), count(want)
	var out []string
	for _, c := range check {
		if g[c] < w[c] {
			out = append(out, c)
		}
	}
	return out
}

// TestScoring checks the measure itself on hand-made damage, so that a
// perfect score in TestQuality means something.
func TestScoring(t *testing.T) {
	want := scoreWords("An efficient office; the difficult flight of Příliš žluťoučký kůň.")
	cases := []struct {
		name, got    string
		word, bigram float64 // expected F1, to 4 places
		glued, split int
	}{
		{"identical, other layout", "AN EFFICIENT\noffice — the diffi\u00adcult? No: difficult flight of Pr\u030ci\u0301lis\u030c žluťoučký kůň", -1, -1, 0, 1},
		{"exact", "an efficient office the difficult flight of příliš žluťoučký kůň", 1, 1, 0, 0},
		{"ligature lost", "an ecient oce the dicult ight of příliš žluťoučký kůň", 0.6, 0.3333, 0, 0},
		{"glued", "an efficientoffice the difficult flight of příliš žluťoučký kůň", 0.8421, 0.7059, 1, 0},
		{"split", "an effi cient office the difficult flight of příliš žluťoučký kůň", 0.8571, 0.7368, 0, 1},
		{"order", "the difficult flight of příliš žluťoučký kůň an efficient office", 1, 0.8889, 0, 0},
	}
	for _, c := range cases {
		got := scoreWords(c.got)
		w := multisetF1(got, want).F1
		b := multisetF1(wordBigrams(got), wordBigrams(want)).F1
		glued, split := boundaryErrors(got, want)
		if c.word >= 0 && (fmt.Sprintf("%.4f", w) != fmt.Sprintf("%.4f", c.word) || fmt.Sprintf("%.4f", b) != fmt.Sprintf("%.4f", c.bigram)) {
			t.Errorf("%s: F1 words %.4f bigrams %.4f, want %.4f %.4f", c.name, w, b, c.word, c.bigram)
		}
		if len(glued) != c.glued || len(split) != c.split {
			t.Errorf("%s: glued %v split %v, want %d and %d", c.name, glued, split, c.glued, c.split)
		}
	}
}
