package wordscore

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Words tokenises text for scoring: NFC (so that a decomposed "ř" equals a
// precomposed one; NFKC is not used because it would expand the ligature
// characters "ﬁ" and "ﬂ", hiding exactly the defect the fixtures look for),
// lower case, maximal runs of letters, digits and combining marks. All other
// characters, punctuation and layout among them, separate words.
//
// Chinese and Japanese are written without spaces, so a "run of letters"
// there is a whole clause, and a line break a typesetter puts inside it would
// count as two wrong words: each Han, Hiragana or Katakana character is a
// word of its own instead (Korean puts spaces between words and is not split).
//
// Arabic presentation forms (the contextual shapes of letters, which some
// PDFs map their glyphs to) are folded to the letters they show, as NFKC
// would: the daemon's chunker folds them with NFKC too, so for plagiarism
// "ﺣﺪﻳﺜﺎ" and "حديثا" are the same word.
func Words(text string) []string {
	text = norm.NFC.String(foldPresentationForms(text))
	var out []string
	start := -1
	for i, r := range text {
		if isIdeographic(r) {
			if start >= 0 {
				out = append(out, strings.ToLower(text[start:i]))
				start = -1
			}
			out = append(out, string(r))
			continue
		}
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

// foldPresentationForms replaces Arabic presentation forms (U+FB50-U+FDFF,
// U+FE70-U+FEFF) by their NFKC decomposition and leaves all else alone.
func foldPresentationForms(text string) string {
	if !strings.ContainsFunc(text, isPresentationForm) {
		return text
	}
	var b strings.Builder
	for _, r := range text {
		if isPresentationForm(r) {
			b.WriteString(norm.NFKC.String(string(r)))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isPresentationForm(r rune) bool {
	return (r >= 0xFB50 && r <= 0xFDFF) || (r >= 0xFE70 && r <= 0xFEFF && r != 0xFEFF)
}

// isIdeographic reports the characters that are words on their own.
func isIdeographic(r rune) bool {
	return r >= 0x2E80 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}

// Score is precision, recall and F1 of one comparison.
type Score struct{ P, R, F1 float64 }

// F1 compares two multisets of items: an item counts as correct as
// many times as it occurs in both.
func F1(got, want []string) Score {
	if len(got) == 0 && len(want) == 0 {
		return Score{1, 1, 1}
	}
	if len(got) == 0 || len(want) == 0 {
		return Score{}
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
		return Score{}
	}
	return Score{p, r, 2 * p * r / (p + r)}
}

// Bigrams are the pairs of adjacent words. Their F1 sees what a bag of words
// cannot: glued or split words (each breaks two or three pairs), columns read
// across instead of down, and headers interrupting sentences.
func Bigrams(ws []string) []string {
	if len(ws) < 2 {
		return nil
	}
	out := make([]string, len(ws)-1)
	for i := range out {
		out[i] = ws[i] + " " + ws[i+1]
	}
	return out
}

// BoundaryErrors finds glued and split words: an extracted word that is not a
// true word but is two true words run together (glued), and two adjacent
// extracted words that are not both true words but together make one (split:
// a hyphenation not joined, a word broken at a ligature). Each list holds
// examples in extraction order.
func BoundaryErrors(got, want []string) (glued, split []string) {
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

// MissingIntact returns the words of check that occur fewer times in got
// than in want: words broken apart or glued to a neighbour somewhere.
func MissingIntact(check, got, want []string) []string {
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
