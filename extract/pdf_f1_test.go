package extract

import (
	"strings"
	"unicode"
)

// pdfWordF1 is the word-level F1 of extracted text against the true text:
// both are lower-cased and cut into runs of letters and digits, and the
// multisets of words compared. A glued or split word costs a miss and a
// false word, so F1 falls below 1 for exactly the faults the PDF reader
// must avoid.
func pdfWordF1(got, want string) float64 {
	words := func(s string) map[string]int {
		m := map[string]int{}
		for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r)
		}) {
			m[w]++
		}
		return m
	}
	g, w := words(got), words(want)
	var common, ng, nw int
	for k, n := range g {
		ng += n
		common += min(n, w[k])
	}
	for _, n := range w {
		nw += n
	}
	if ng == 0 || nw == 0 {
		return 0
	}
	p, r := float64(common)/float64(ng), float64(common)/float64(nw)
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}
