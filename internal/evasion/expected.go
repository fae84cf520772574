package evasion

import (
	"math/rand/v2"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Expected returns the coverage, in percent, that a perfect checker reports
// for the essay disguised by the variant with the random source r: the
// clean essay's coverage clean (percent of its characters in passages,
// covered[i] telling whether byte i of essay is in one) carried through
// the disguise. A disguise that adds characters changes the share of the
// text that is copied: letter spacing doubles the characters of the
// sentences it spaces, copied or not, and invisible characters add to the
// words they are put in. The figure is the clean coverage scaled by the
// share of covered characters after the disguise over the share before.
//
// The essay's letters are replaced by markers ('q' in a passage, 'w'
// outside: letters no variant replaces, so that a variant sees the same
// letters and spaces and draws the same random numbers as on the essay);
// a character counts as covered when it lies between two covered markers
// with no uncovered one between them. r must be in the state the variant
// was applied with.
func Expected(v Variant, essay string, covered []bool, clean float64, r *rand.Rand) float64 {
	var sb strings.Builder
	for i, c := range essay {
		switch {
		case !unicode.IsLetter(c):
			sb.WriteRune(c)
		case covered[i]:
			sb.WriteByte('q')
		default:
			sb.WriteByte('w')
		}
	}
	marked := sb.String()
	before := markedShare(marked)
	if before == 0 {
		return clean
	}
	return clean * markedShare(v.Apply(marked, r)) / before
}

// markedShare is the share of text's characters between two 'q' markers
// with no 'w' between them, a lone 'q' included.
func markedShare(text string) float64 {
	n, total, last, uncovered := 0, 0, -1, false
	for _, c := range text {
		switch c {
		case 'q':
			if last >= 0 && !uncovered {
				n += total - last
			} else {
				n++
			}
			last, uncovered = total, false
		case 'w':
			uncovered = true
		}
		total++
	}
	return float64(n) / float64(max(utf8.RuneCountInString(text), 1))
}
