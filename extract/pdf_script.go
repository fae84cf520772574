package extract

import (
	"strings"
	"unicode"
)

// Cyrillic fonts of TeX (the T2A, T2B and X2 encodings) put letters that
// look like Latin ones at the Latin codes, and their Unicode maps say the
// Latin letter: Ukrainian "із" comes out of every PDF reader as Latin "i"
// and Cyrillic "з", "параметрiв" with a Latin "i". Such a word matches the
// same word typed in a word processor in no chunk. latinInCyrillic puts
// the Cyrillic letter back in words that are otherwise Cyrillic; a word
// with a Latin letter that has no Cyrillic twin, or with no Cyrillic
// letter at all, is left alone.
var cyrillicTwin = map[rune]rune{
	'a': 'а', 'c': 'с', 'e': 'е', 'i': 'і', 'j': 'ј', 'o': 'о', 'p': 'р', 's': 'ѕ', 'x': 'х', 'y': 'у',
	'A': 'А', 'B': 'В', 'C': 'С', 'E': 'Е', 'H': 'Н', 'I': 'І', 'J': 'Ј', 'K': 'К', 'M': 'М',
	'O': 'О', 'P': 'Р', 'S': 'Ѕ', 'T': 'Т', 'X': 'Х', 'Y': 'У',
}

// latinInCyrillic returns line with the Latin look-alikes inside Cyrillic
// words replaced by their Cyrillic twins.
func latinInCyrillic(line string) string {
	if !strings.ContainsFunc(line, isCyrillic) {
		return line
	}
	words := strings.Split(line, " ")
	for i, w := range words {
		if strings.ContainsFunc(w, isCyrillic) && strings.ContainsFunc(w, isLatinLetter) && allTwinned(w) {
			words[i] = strings.Map(func(r rune) rune {
				if c, ok := cyrillicTwin[r]; ok {
					return c
				}
				return r
			}, w)
		}
	}
	return strings.Join(words, " ")
}

// allTwinned reports whether every Latin letter of w has a Cyrillic twin.
func allTwinned(w string) bool {
	for _, r := range w {
		if _, ok := cyrillicTwin[r]; isLatinLetter(r) && !ok {
			return false
		}
	}
	return true
}

func isCyrillic(r rune) bool    { return unicode.Is(unicode.Cyrillic, r) }
func isLatinLetter(r rune) bool { return r < 0x250 && unicode.IsLetter(r) }
