package invindex

import (
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/plagd/plagd/disguise"
	"golang.org/x/text/unicode/norm"
)

// Capital look-alikes. A few capitals look like other ASCII letters than
// their small letters do: Greek "Ν" looks like "N", its fold "ν" like "v";
// "Υ" like "Y", "υ" like "u" (disguise.CapitalPrototype). normalize folds
// case before it maps look-alikes, so a genuine Greek word hashes alike in
// capitals and in small letters, and "No" written with a Greek capital
// would hash as "vo". Words therefore maps such a capital as written,
// before folding, when the word is Latin: when it has a Latin letter, or
// when all its letters look like Latin ones and its nearest telling
// neighbours are Latin words (the mixed-script idea of Unicode TR39,
// "Unicode Security Mechanisms", Davis and Suignard: a look-alike word
// among Latin words is a disguised Latin word, among Greek ones a Greek
// word). A word with a letter that looks like no Latin one ("λ", "π") is
// genuine and keeps the fold's mapping.

// wordClass is what a word's letters say about its script.
type wordClass uint8

const (
	classNone   wordClass = iota // no letters: digits only
	classLatin                   // a Latin letter
	classNative                  // a letter of another script that looks like no Latin one
	classAlike                   // only letters of other scripts that look like Latin ones
)

// contextWords and contextBytes bound how far latinWord looks on each side
// for a word that tells (Latin or native): past words that do not
// (look-alike words, numbers), and past the separators between them.
const (
	contextWords = 4
	contextBytes = 256
)

// capitalSet has bit r set for every BMP rune r that is a capital
// look-alike (disguise.CapitalPrototype) or whose canonical decomposition
// starts with one (Greek "Ύ", "Ϋ"); runes above the BMP are asked directly.
var capitalSet = sync.OnceValue(func() *[0x10000 / 64]uint64 {
	var set [0x10000 / 64]uint64
	for r := rune(utf8.RuneSelf); r < 0x10000; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		first, _ := utf8.DecodeRuneInString(norm.NFD.String(string(r)))
		if _, ok := disguise.CapitalPrototype(first); ok {
			set[r/64] |= 1 << (r % 64)
		}
	}
	return &set
})

// isCapitalLookAlike reports whether r is in capitalSet.
func isCapitalLookAlike(r rune) bool {
	if r < utf8.RuneSelf {
		return false
	}
	if r >= 0x10000 {
		_, ok := disguise.CapitalPrototype(r)
		return ok
	}
	return capitalSet()[r/64]&(1<<(r%64)) != 0
}

// hasCapitalLookAlike reports whether word has a rune in capitalSet.
func hasCapitalLookAlike(word string) bool {
	for i := 0; i < len(word); i++ {
		if word[i] >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(word[i:])
			if isCapitalLookAlike(r) {
				return true
			}
			i += size - 1
		}
	}
	return false
}

// classify returns the class of word: Latin if it has a Latin letter,
// else native if it has a letter that looks like no Latin letter or a
// letter of another script with a diacritic (Greek "έ", "Ό": the tonos
// marks a Greek word; a disguised English word has no accents), else
// alike if it has letters, else none.
func classify(word string) wordClass {
	c := classNone
	for _, r := range word {
		switch {
		case r < utf8.RuneSelf:
			if 'a' <= r|0x20 && r|0x20 <= 'z' {
				return classLatin
			}
		case unicode.Is(unicode.Mn, r):
			if c == classAlike {
				c = classNative
			}
		case !unicode.IsLetter(r):
		case unicode.Is(unicode.Latin, r):
			return classLatin
		case norm.NFD.PropertiesString(string(r)).Decomposition() != nil:
			c = classNative
		case isCapitalLookAlike(r) || hasLookAlikeRune(unicode.ToLower(r)):
			if c == classNone {
				c = classAlike
			}
		default:
			c = classNative
		}
	}
	return c
}

// hasLookAlikeRune reports whether the letter r (lower case) is, or starts
// with, a look-alike (disguise.Prototype).
func hasLookAlikeRune(r rune) bool {
	var b [utf8.UTFMax]byte
	return hasLookAlike(b[:utf8.EncodeRune(b[:], r)])
}

// latinWord reports whether word, found at text[start:end), is to be read
// as Latin (see above). word is the word's letters (those of a
// letter-spaced run joined), so it may differ from text[start:end).
func latinWord(word, text string, start, end int) bool {
	switch classify(word) {
	case classLatin:
		return true
	case classNative, classNone:
		return false
	}
	left, right := neighbour(text, start, -1), neighbour(text, end, +1)
	return (left == classLatin || right == classLatin) && left != classNative && right != classNative
}

// neighbour returns the class of the nearest word before text[at] (dir -1)
// or from text[at] on (dir +1) that is Latin or native, or classNone if
// none is within contextWords words and contextBytes bytes.
func neighbour(text string, at, dir int) wordClass {
	limit := max(at-contextBytes, 0)
	if dir > 0 {
		limit = min(at+contextBytes, len(text))
	}
	i := at
	for n := 0; n < contextWords; n++ {
		// Skip to the next word.
		for i != limit {
			r := runeAt(text, i, dir)
			if isWordRune(r) {
				break
			}
			i += dir * runeLen(text, i, dir)
		}
		// Its extent: word runes and invisible characters.
		j := i
		for j != limit {
			r := runeAt(text, j, dir)
			if !isWordRune(r) && !disguise.IsInvisible(r) {
				break
			}
			j += dir * runeLen(text, j, dir)
		}
		if j == i {
			return classNone
		}
		// A single letter ("%s", an initial) tells nothing.
		w := text[min(i, j):max(i, j)]
		if c := classify(w); (c == classLatin || c == classNative) && utf8.RuneCountInString(w) > 1 {
			return c
		}
		i = j
	}
	return classNone
}

// runeAt returns the rune starting at text[i] (dir +1) or ending there
// (dir -1).
func runeAt(text string, i, dir int) rune {
	if dir > 0 {
		r, _ := utf8.DecodeRuneInString(text[i:])
		return r
	}
	r, _ := utf8.DecodeLastRuneInString(text[:i])
	return r
}

// runeLen returns the length of the rune runeAt returns.
func runeLen(text string, i, dir int) int {
	if dir > 0 {
		_, size := utf8.DecodeRuneInString(text[i:])
		return size
	}
	_, size := utf8.DecodeLastRuneInString(text[:i])
	return size
}

// latinCapitals returns word with each capital look-alike replaced by the
// upper-case ASCII letters it looks like (disguise.CapitalPrototype), in
// t.d; marks that follow it stay ("Ϋ" becomes "Y" and a diaeresis).
func (t *Tokenizer) latinCapitals(word string) string {
	t.d = t.d[:0]
	for _, r := range word {
		if !isCapitalLookAlike(r) {
			t.d = utf8.AppendRune(t.d, r)
			continue
		}
		d := norm.NFD.String(string(r))
		first, size := utf8.DecodeRuneInString(d)
		p, _ := disguise.CapitalPrototype(first)
		for i := 0; i < len(p); i++ {
			t.d = append(t.d, p[i]-'a'+'A')
		}
		t.d = append(t.d, d[size:]...)
	}
	return string(t.d)
}
