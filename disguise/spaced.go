package disguise

import (
	"unicode"
	"unicode/utf8"

	"github.com/plagd/plagd/disguise/wordseg"
)

// MinSpacedRun is the fewest single letters, one space apart, that make a
// letter-spaced word on their own (see SpacedRuns).
const MinSpacedRun = 3

// SpacedRuns finds the letter-spaced words among n consecutive words of
// text, word i spanning text[start:end) for start, end := span(i), and calls
// found(i, n) for each, in text order: words i to i+n-1 are the letters of
// one word. Package invindex joins them into that word; Scan flags them.
//
//   - A run is a maximal sequence of single-letter words (SingleLetter)
//     each separated from the next by exactly one space-like character
//     (OneSpace).
//   - A run of at least MinSpacedRun letters is a word; so is a run of two
//     next to such a run across wide gaps (WideGap), possibly with other
//     runs of one or two letters between: the way " ".join(words) spaces a
//     sentence, letters one space apart and words three ("I t   i s   a
//     C o n t r a c t").
//
// A wider gap (two or more spaces) or any other separator ends a run, so the
// words of a letter-spaced sentence stay apart when the writer left a wider
// gap between them. When the gap between words is as narrow as the one
// between letters ("t h e c a t"), the run holds several words: SpacedWords
// cuts it into them with an English lexicon (package wordseg), or keeps it
// one word when the cut is not confident. Ordinary prose almost never has
// three single letters in a row one space apart (enumerations are written
// "a, b, c"); a test over the repository's sample texts checks that nothing
// there is joined.
func SpacedRuns(text string, n int, span func(i int) (start, end int), found func(i, n int)) {
	run := func(i int) int { // the length of the run starting at word i (1: none)
		s, e := span(i)
		if !SingleLetter(text[s:e]) {
			return 1
		}
		k := 1
		for ; i+k < n; k++ {
			_, pe := span(i + k - 1)
			s, e := span(i + k)
			if !OneSpace(text[pe:s]) || !SingleLetter(text[s:e]) {
				break
			}
		}
		return k
	}
	singleAt := func(i int) bool {
		s, e := span(i)
		return SingleLetter(text[s:e])
	}
	prevLong, prevEnd := false, -1 // the last run found had >= MinSpacedRun letters, and where it ended
	for i := 0; i < n; {
		k := run(i)
		long := k >= MinSpacedRun
		join := long
		if k == 2 {
			s, _ := span(i)
			join = prevLong && prevEnd >= 0 && WideGap(text[prevEnd:s])
			// Or a long run ahead, across wide gaps and short runs only
			// ("I t   i s   a n   a c t").
			for j := i + 2; !join && j < n; {
				_, e := span(j - 1)
				s2, _ := span(j)
				if !WideGap(text[e:s2]) {
					break
				}
				kj := run(j)
				if kj >= MinSpacedRun {
					join = true
				} else if kj > 2 || !singleAt(j) {
					break
				}
				j += kj
			}
		}
		if !join {
			prevLong = false
			i++
			continue
		}
		found(i, k)
		_, prevEnd = span(i + k - 1)
		prevLong = true
		i += k
	}
}

// SingleLetter reports whether w (a word, invisible characters inside
// included) is one ASCII digit (numbers are spaced with the words: "1 9 9
// 1"), or one letter of a cased script, optionally followed by combining
// marks. Scripts without case (CJK, Thai, Arabic) are left out:
// their words are not written with spaces between letters.
func SingleLetter(w string) bool {
	if len(w) == 1 {
		c := w[0]
		return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
	}
	// Fast rejects: two ASCII bytes are two runes; a letter with a few
	// marks is short.
	if len(w) == 0 || len(w) > 16 || w[0] < utf8.RuneSelf && w[1] < utf8.RuneSelf {
		return false
	}
	r, size := utf8.DecodeRuneInString(w)
	if !unicode.IsLetter(r) || !(unicode.IsUpper(r) || unicode.IsLower(r)) {
		return false
	}
	for _, m := range w[size:] {
		if !unicode.IsMark(m) && !IsInvisible(m) {
			return false
		}
	}
	return true
}

// OneSpace reports whether gap is exactly one space-like character
// (IsSpaceLike), invisible characters aside.
func OneSpace(gap string) bool {
	return gap == " " || spaces(gap) == 1
}

// WideGap reports whether gap has two space-like characters in a row
// (invisible characters aside): the gap between two words of a sentence
// spaced the way " ".join(sentence) spaces it, where the punctuation
// between words is spaced too ("o r   ( b )   a n y").
func WideGap(gap string) bool {
	n := 0
	for _, r := range gap {
		switch {
		case IsSpaceLike(r):
			if n++; n == 2 {
				return true
			}
		case IsInvisible(r):
		default:
			n = 0
		}
	}
	return false
}

// spaces counts the space-like characters of gap, or returns -1 if it has
// anything but them and invisible characters.
func spaces(gap string) int {
	n := 0
	for _, r := range gap {
		switch {
		case IsSpaceLike(r):
			n++
		case IsInvisible(r):
		default:
			return -1
		}
	}
	return n
}

// SpacedWords splits a letter-spaced run into its words when the gap between
// words was as narrow as the gap between letters ("t h e c a t"): letters
// is the run's letters, lower-case ASCII letters and digits (a look-alike
// as its prototype), before and after the gaps around the run. It appends
// the end of each word in letters to dst[:0], or returns nil to keep the
// run one word: when either gap is wide (the run is one word of a sentence
// spaced like " ".join(words)), or when package wordseg is not confident
// of the cut (a short run, a name, no English words).
func SpacedWords(letters, before, after string, dst []int) []int {
	if len(letters) < wordseg.MinLetters || WideGap(before) || WideGap(after) {
		return nil
	}
	return wordseg.Segment(letters, dst)
}
