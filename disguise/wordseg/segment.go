package wordseg

import (
	"bytes"
	"compress/flate"
	_ "embed" // the lexicon
	"io"
	"sync"
)

// MaxWord is the longest word the lexicon holds and Segment looks for.
const MaxWord = 24

// MinLetters is the shortest run Segment cuts: shorter runs are more often
// one letter-spaced word (a name, a code) than a sentence.
const MinLetters = 3

// Costs, in tenths of a bit, of what is not a word of the lexicon (a word
// costs tierCost of its tier, generated): a number (a maximal run of
// digits) costs like a common word; any other piece costs unknownCost plus
// unknownPerLetter per letter (log2 26 bits, a letter drawn at random),
// more than two common words, so that a sentence of known words is seldom
// explained by an unknown piece.
const (
	unknownCost      = 400
	unknownPerLetter = 47
)

// shortRun is the length under which a run is kept whole rather than cut
// with a word of one letter ("don" + "i" for a letter-spaced name "D O N
// I"): such a run is more often one spaced word than two words, and a
// one-letter word is little evidence.
const shortRun = 8

// minUnknown is the shortest piece that may be no word: a cut that
// leaves one or two letters over ("li" + "censor" for "licensor") is
// less likely than the unknown word whole.
const minUnknown = 3

// maxUnknownShare is the share of a run's letters that may lie in pieces
// that are no words for its segmentation to be accepted.
const maxUnknownShare = 0.4

//go:embed english.lex
var englishLex []byte

// lexicon maps the FNV-1a 64 hash of each word to its tier + 1, and of
// each proper prefix of a word that is no word to 0: a piece whose hash is
// missing starts no word, so Segment stops looking words up past it.
var lexicon = sync.OnceValue(func() map[uint64]uint8 {
	raw, err := io.ReadAll(flate.NewReader(bytes.NewReader(englishLex)))
	if err != nil {
		panic("wordseg: the embedded lexicon is corrupt: " + err.Error())
	}
	m := make(map[uint64]uint8, 400000)
	var word []byte
	tier := uint8(1)
	for i := 0; i < len(raw); {
		if raw[i] == 0 {
			tier++
			i++
			continue
		}
		word = word[:int(raw[i])-32]
		i++
		for i < len(raw) && 0 < raw[i] && raw[i] <= 26 {
			word = append(word, raw[i]-1+'a')
			i++
		}
		h := uint64(fnvOffset)
		for k, c := range word {
			h = (h ^ uint64(c)) * fnvPrime
			if _, ok := m[h]; !ok && k < len(word)-1 {
				m[h] = 0
			}
		}
		m[h] = tier
	}
	return m
})

// fnv is FNV-1a 64 over b.
func fnv(b []byte) uint64 {
	h := uint64(fnvOffset)
	for _, c := range b {
		h = (h ^ uint64(c)) * fnvPrime
	}
	return h
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// Tier returns the tier of word (lower-case ASCII letters) in the lexicon,
// or -1 if it is not there.
func Tier(word string) int {
	return int(lexicon()[fnv([]byte(word))]) - 1
}

// Segment cuts s, a run of lower-case ASCII letters and digits, into words
// and appends the end offset of each word to dst[:0] (the last is len(s));
// it returns nil when it is not confident: s is shorter than MinLetters,
// has another byte, or its best cut is one word, leaves more than
// maxUnknownShare of its letters in pieces that are no words, or has a
// word of one letter in a run shorter than shortRun. A number
// (digits) is always a word of its own.
func Segment(s string, dst []int) []int {
	n := len(s)
	if n < MinLetters {
		return nil
	}
	for i := 0; i < n; i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			return nil
		}
	}
	lex := lexicon()
	const inf = int(^uint(0) >> 2)
	// best[j] is the least cost of s[:j]; from[j] where its last word
	// starts, unknown[j] how many letters of that cut are no words.
	best := make([]int, n+1)
	from := make([]int, n+1)
	unknown := make([]int, n+1)
	for j := 1; j <= n; j++ {
		best[j] = inf
	}
	digit := func(c byte) bool { return c <= '9' }
	for i := 0; i < n; i++ {
		if best[i] == inf || i > 0 && digit(s[i]) && digit(s[i-1]) {
			continue // a number starts at its first digit only
		}
		if digit(s[i]) {
			j := i + 1
			for j < n && digit(s[j]) {
				j++
			}
			if c := best[i] + tierCost[0]; c < best[j] {
				best[j], from[j], unknown[j] = c, i, unknown[i]
			}
			continue
		}
		h, prefix := uint64(fnvOffset), true
		for j := i + 1; j <= n && j-i <= MaxWord && !digit(s[j-1]); j++ {
			var t uint8
			if prefix {
				h = (h ^ uint64(s[j-1])) * fnvPrime
				t, prefix = lex[h]
			}
			c, u := 0, 0
			if t > 0 {
				c = tierCost[t-1]
			} else if j-i >= minUnknown {
				c, u = unknownCost+unknownPerLetter*(j-i), j-i
			} else {
				continue
			}
			if c += best[i]; c < best[j] {
				best[j], from[j], unknown[j] = c, i, unknown[i]+u
			}
		}
	}
	if best[n] == inf || from[n] == 0 || float64(unknown[n]) > maxUnknownShare*float64(n) {
		return nil
	}
	dst = dst[:0]
	for j := n; j > 0; j = from[j] {
		if n < shortRun && j-from[j] == 1 && s[j-1] > '9' {
			return nil // "don i" for "doni": a short run is more often a name
		}
		dst = append(dst, j)
	}
	for a, b := 0, len(dst)-1; a < b; a, b = a+1, b-1 {
		dst[a], dst[b] = dst[b], dst[a]
	}
	return dst
}
