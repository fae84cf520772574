package related

// A light stemmer for Indonesian, after Tala (2003) and Asian (2007) as
// Lucene's IndonesianStemmer implements them: inflectional particles (-kah,
// -lah, -pun) and possessives (-ku, -mu, -nya), then derivational prefixes
// (meN-, peN-, di-, ter-, ke-, ber-, per-) and suffixes (-kan, -an, -i). It
// uses no dictionary, so it over- and under-stems some words; for topic
// similarity that matters little: what counts is that "pembangunan",
// "membangun" and "dibangun" meet in "bangun". No Indonesian stemmer is
// published as a Go module (the Sastrawi port is not on the module proxy),
// hence this one. Syllables are counted as vowels, and nothing is stripped
// from a word of two syllables or fewer, which keeps short roots intact.

import "strings"

// stemIndonesian returns the stem of a lower-case word.
func stemIndonesian(w string) string {
	s := syllables(w)
	if s <= 2 {
		return w
	}
	for _, p := range [...]string{"kah", "lah", "pun"} {
		if strings.HasSuffix(w, p) {
			w = w[:len(w)-len(p)]
			s--
			break
		}
	}
	if s > 2 {
		for _, p := range [...]string{"nya", "ku", "mu"} {
			if strings.HasSuffix(w, p) {
				w = w[:len(w)-len(p)]
				s--
				break
			}
		}
	}
	if s <= 2 {
		return w
	}
	if v, ok := firstOrderPrefix(w); ok {
		w = v
		if syllables(w) > 2 {
			w = stripSuffix(w)
		}
		return w
	}
	if v, ok := secondOrderPrefix(w); ok {
		w = v
	}
	if syllables(w) > 2 {
		w = stripSuffix(w)
	}
	return w
}

func isVowel(c byte) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u':
		return true
	}
	return false
}

func syllables(w string) int {
	n := 0
	for i := 0; i < len(w); i++ {
		if isVowel(w[i]) {
			n++
		}
	}
	return n
}

// firstOrderPrefix strips meN-, peN-, di-, ter-, ke-, restoring the initial
// consonant the nasal replaced (menyapu → sapu, memukul → pukul).
func firstOrderPrefix(w string) (string, bool) {
	vowelAt := func(i int) bool { return i < len(w) && isVowel(w[i]) }
	switch {
	case strings.HasPrefix(w, "meng"), strings.HasPrefix(w, "peng"):
		return w[4:], true
	case strings.HasPrefix(w, "meny") && vowelAt(4), strings.HasPrefix(w, "peny") && vowelAt(4):
		return "s" + w[4:], true
	case strings.HasPrefix(w, "men"), strings.HasPrefix(w, "pen"):
		return w[3:], true
	case strings.HasPrefix(w, "mem") && vowelAt(3), strings.HasPrefix(w, "pem") && vowelAt(3):
		return "p" + w[3:], true
	case strings.HasPrefix(w, "mem"), strings.HasPrefix(w, "pem"):
		return w[3:], true
	case strings.HasPrefix(w, "me"):
		return w[2:], true
	case strings.HasPrefix(w, "di"), strings.HasPrefix(w, "ke"):
		return w[2:], true
	case strings.HasPrefix(w, "ter"):
		return w[3:], true
	}
	return w, false
}

// secondOrderPrefix strips ber-, per-, be-, pe- (belajar, pelajar → ajar).
func secondOrderPrefix(w string) (string, bool) {
	switch {
	case w == "belajar" || w == "pelajar":
		return "ajar", true
	case strings.HasPrefix(w, "ber"), strings.HasPrefix(w, "per"):
		return w[3:], true
	case strings.HasPrefix(w, "be") || strings.HasPrefix(w, "pe"):
		return w[2:], true
	}
	return w, false
}

// stripSuffix strips -kan, -an, or -i (not after s: "manusia" keeps its i...
// as far as a dictionary-free rule can tell).
func stripSuffix(w string) string {
	switch {
	case strings.HasSuffix(w, "kan"):
		return w[:len(w)-3]
	case strings.HasSuffix(w, "an"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "i") && !strings.HasSuffix(w, "si"):
		return w[:len(w)-1]
	}
	return w
}
