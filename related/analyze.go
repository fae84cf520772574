package related

// Text analysis: text → lower-cased words → language → terms (stop words
// dropped, stems) → hashed term counts. Terms are identified by a 64-bit hash
// of the stem, not by a dense ID, so that a term keeps its identity across
// model versions and across processes: the daemon can store document
// frequencies keyed by hash without a shared dictionary.

import (
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/french"
	"github.com/kljensen/snowball/hungarian"
	"github.com/kljensen/snowball/norwegian"
	"github.com/kljensen/snowball/russian"
	"github.com/kljensen/snowball/spanish"
	"github.com/kljensen/snowball/swedish"

	"github.com/plagd/plagd/termstat"
)

// Lang is a language the analyser knows: its stop words and stemmer.
type Lang uint8

// Languages. LangNone has neither stop words nor stemming: it is what a text
// in another language (or the synthetic generator's made-up words) gets.
const (
	LangNone Lang = iota
	LangEnglish
	LangIndonesian
	LangFrench
	LangSpanish
	LangRussian
	LangSwedish
	LangNorwegian
	LangHungarian
	numLangs
)

type language struct {
	name string
	stop func(string) bool
	stem func(string) string
}

// snow adapts a Snowball stemmer. Stop words are dropped before stemming,
// so stemming them is never asked for.
func snow(f func(string, bool) string) func(string) string {
	return func(w string) string { return f(w, true) }
}

var languages = [numLangs]language{
	LangNone:       {"none", func(string) bool { return false }, func(w string) string { return w }},
	LangEnglish:    {"english", english.IsStopWord, snow(english.Stem)},
	LangIndonesian: {"indonesian", func(w string) bool { _, ok := indonesianStop[w]; return ok }, stemIndonesian},
	LangFrench:     {"french", french.IsStopWord, snow(french.Stem)},
	LangSpanish:    {"spanish", spanish.IsStopWord, snow(spanish.Stem)},
	LangRussian:    {"russian", russian.IsStopWord, snow(russian.Stem)},
	LangSwedish:    {"swedish", swedish.IsStopWord, snow(swedish.Stem)},
	LangNorwegian:  {"norwegian", norwegian.IsStopWord, snow(norwegian.Stem)},
	LangHungarian:  {"hungarian", hungarian.IsStopWord, snow(hungarian.Stem)},
}

// String is the language's name, as ParseLang reads it.
func (l Lang) String() string {
	if l >= numLangs {
		return "invalid"
	}
	return languages[l].name
}

// ParseLang reads a language name.
func ParseLang(s string) (Lang, bool) {
	for l := range numLangs {
		if languages[l].name == s {
			return l, true
		}
	}
	return LangNone, false
}

// AllLangs are the languages with stop words, the default candidates of
// Detect.
var AllLangs = []Lang{LangEnglish, LangIndonesian, LangFrench, LangSpanish, LangRussian, LangSwedish, LangNorwegian, LangHungarian}

// Words appends the lower-cased words of text to dst. A word is a run of
// letters, digits and marks; words of one rune and words made only of digits
// are dropped (page numbers, list labels, years carry no topic).
func Words(text string, dst []string) []string {
	start := -1
	digits := true
	flush := func(end int) {
		if start >= 0 && !digits && utf8.RuneCountInString(text[start:end]) > 1 {
			dst = append(dst, strings.ToLower(text[start:end]))
		}
		start, digits = -1, true
	}
	for i, r := range text {
		if r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)) {
			if start < 0 {
				start = i
			}
			if !unicode.IsDigit(r) {
				digits = false
			}
			continue
		}
		flush(i)
	}
	flush(len(text))
	return dst
}

// detectSample is how many words Detect looks at: enough for a stable
// majority, few enough to cost nothing next to the rest of the analysis.
const detectSample = 500

// minStopShare is the share of stop words below which a text is not taken to
// be in any candidate language: running text in a language has 30-50 % of
// them, a list of names or formulas almost none.
const minStopShare = 0.05

// Detect guesses the language of words (lower-case, as Words gives them)
// among candidates by counting stop-word hits in the first detectSample
// words. Stop words are the most frequent words of a language and nearly
// disjoint between languages, so the count separates languages on a few
// hundred words. It returns LangNone when no candidate reaches minStopShare.
func Detect(words []string, candidates []Lang) Lang {
	words = words[:min(len(words), detectSample)]
	best, bestHits := LangNone, 0
	for _, l := range candidates {
		stop := languages[l].stop
		hits := 0
		for _, w := range words {
			if stop(w) {
				hits++
			}
		}
		if hits > bestHits {
			best, bestHits = l, hits
		}
	}
	if float64(bestHits) < minStopShare*float64(len(words)) {
		return LangNone
	}
	return best
}

// Terms returns the terms of words in language l: stop words dropped, the
// rest stemmed. It appends to dst.
func Terms(l Lang, words []string, dst []string) []string {
	lg := languages[l]
	for _, w := range words {
		if lg.stop(w) {
			continue
		}
		if s := lg.stem(w); utf8.RuneCountInString(s) > 1 {
			dst = append(dst, s)
		}
	}
	return dst
}

// TermCount is one distinct term of a document (TermHash of the stem) and
// how often it occurs.
type TermCount = termstat.TermCount

// TermHash is the identity of a term: FNV-1a 64 of its UTF-8 form. Stored
// document frequencies and vectors depend on it: never change it without
// recomputing them (a test pins its values).
func TermHash(term string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(term); i++ {
		h = (h ^ uint64(term[i])) * 1099511628211
	}
	return h
}

// Count turns terms into their distinct hashes with counts, sorted by hash.
// It appends to dst[:0].
func Count(terms []string, dst []TermCount) []TermCount {
	hs := make([]uint64, len(terms))
	for i, t := range terms {
		hs[i] = TermHash(t)
	}
	return termstat.Count(hs, dst)
}

// Analyze is the whole pipeline for one document: words, language among
// candidates (nil: AllLangs), terms, counts.
func Analyze(text string, candidates []Lang) (Lang, []TermCount) {
	if candidates == nil {
		candidates = AllLangs
	}
	words := Words(text, nil)
	l := Detect(words, candidates)
	return l, Count(Terms(l, words, nil), nil)
}

// Analyzer is Analyze with a memory: it remembers every distinct word it
// has seen (Zipf's law: a few thousand make up most of any text) with, per
// language, whether it is a stop word and the hash of its stem. A text is
// then scanned once, its words lower-cased and hashed (FNV-1a) on the fly in
// a reused buffer and looked up by hash; the language is detected from the
// remembered stop-word bits and the terms read from the remembered stems.
// The Snowball stemmers (which re-decode the word into runes at every suffix
// test) cost 70 % of the analysis of an English archive without it. The
// results are those of Analyze, bit for bit (a test compares them). One per
// goroutine: it is not safe for concurrent use.
type Analyzer struct {
	Candidates []Lang           // nil: AllLangs
	byHash     map[uint64]int32 // word hash → index in entries
	collided   map[string]int32 // words whose hash another word took first
	entries    []wordEntry
	ids        []int32  // the words of the current text, as entries
	hs         []uint64 // the term hashes of the current text
	buf        []byte   // the current word, lower-cased
}

// wordEntry is what the Analyzer remembers of one distinct lower-case word.
type wordEntry struct {
	word string
	stop uint16 // bit l: a stop word of language l
	done uint16 // bit l: term[l] and keep bit l are computed
	keep uint16 // bit l: the word gives a term in language l
	term [numLangs]uint64
}

// maxStemCache bounds the remembered words; past it the memory starts over
// (an archive's vocabulary is rarely that large, and a cold memory only
// costs time).
const maxStemCache = 1 << 18

// Analyze is the package's Analyze, with the memory.
func (a *Analyzer) Analyze(text string) (Lang, []TermCount) {
	cands := a.Candidates
	if cands == nil {
		cands = AllLangs
	}
	if a.byHash == nil || len(a.entries) > maxStemCache {
		a.byHash = make(map[uint64]int32)
		a.collided = nil
		a.entries = a.entries[:0]
	}
	a.ids = a.words(text, a.ids[:0])

	// Detect, from the stop bits of the first detectSample words.
	sample := a.ids[:min(len(a.ids), detectSample)]
	var hits [numLangs]int
	for _, id := range sample {
		for m := a.entries[id].stop; m != 0; m &= m - 1 {
			hits[bits.TrailingZeros16(m)]++
		}
	}
	l, bestHits := LangNone, 0
	for _, c := range cands {
		if hits[c] > bestHits {
			l, bestHits = c, hits[c]
		}
	}
	if float64(bestHits) < minStopShare*float64(len(sample)) {
		l = LangNone
	}

	// Terms.
	lg, bit := languages[l], uint16(1)<<l
	a.hs = a.hs[:0]
	for _, id := range a.ids {
		e := &a.entries[id]
		if e.done&bit == 0 {
			e.done |= bit
			if !lg.stop(e.word) {
				if s := lg.stem(e.word); utf8.RuneCountInString(s) > 1 {
					e.keep |= bit
					e.term[l] = TermHash(s)
				}
			}
		}
		if e.keep&bit != 0 {
			a.hs = append(a.hs, e.term[l])
		}
	}
	return l, termstat.Count(a.hs, nil)
}

// words appends to ids the entries of the words of text, as Words finds and
// lower-cases them: ASCII words are lower-cased and hashed byte by byte, a
// word with any other rune goes through strings.ToLower as in Words.
func (a *Analyzer) words(text string, ids []int32) []int32 {
	const (
		fnvOffset = 14695981039346656037
		fnvPrime  = 1099511628211
	)
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf && asciiWord[c] == 0 {
			i++
			continue
		}
		// A word starts at i. Scan ASCII letters and digits, lower-casing
		// and hashing them.
		start := i
		buf := a.buf[:0]
		h := uint64(fnvOffset)
		digits := true
		for i < len(text) {
			c := text[i]
			if c >= utf8.RuneSelf {
				break
			}
			lc := asciiWord[c]
			if lc == 0 {
				break
			}
			if lc > '9' {
				digits = false
			}
			buf = append(buf, lc)
			h = (h ^ uint64(lc)) * fnvPrime
			i++
		}
		if i < len(text) && text[i] >= utf8.RuneSelf {
			// Not all ASCII: the general path, as Words.
			end, dig := i, digits
			for end < len(text) {
				r, n := utf8.DecodeRuneInString(text[end:])
				if r == utf8.RuneError || !(unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)) {
					break
				}
				if !unicode.IsDigit(r) {
					dig = false
				}
				end += n
			}
			if end == start {
				// A separator rune: skip it.
				_, n := utf8.DecodeRuneInString(text[i:])
				i += n
				continue
			}
			i = end
			if dig || utf8.RuneCountInString(text[start:end]) <= 1 {
				continue
			}
			w := strings.ToLower(text[start:end])
			h = TermHash(w)
			ids = append(ids, a.entry(h, w, nil))
			a.buf = buf
			continue
		}
		a.buf = buf
		if digits || len(buf) <= 1 {
			continue
		}
		ids = append(ids, a.entry(h, "", buf))
	}
	return ids
}

// asciiWord maps an ASCII letter or digit to its lower case and every other
// byte to 0.
var asciiWord = func() (t [utf8.RuneSelf]byte) {
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c)
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = byte(c)
		t[c-'a'+'A'] = byte(c)
	}
	return t
}()

// entry returns the index of the entry of the word w (or, when w is empty,
// b) whose hash is h, making it if new.
func (a *Analyzer) entry(h uint64, w string, b []byte) int32 {
	if id, ok := a.byHash[h]; ok {
		if e := a.entries[id].word; w != "" && e == w || w == "" && e == string(b) {
			return id
		}
		if w == "" {
			w = string(b)
		}
		if id, ok := a.collided[w]; ok {
			return id
		}
		if a.collided == nil {
			a.collided = make(map[string]int32)
		}
		id := a.newEntry(w)
		a.collided[w] = id
		return id
	}
	if w == "" {
		w = string(b)
	}
	id := a.newEntry(w)
	a.byHash[h] = id
	return id
}

func (a *Analyzer) newEntry(w string) int32 {
	e := wordEntry{word: w}
	for l := range numLangs {
		if languages[l].stop(w) {
			e.stop |= 1 << l
		}
	}
	a.entries = append(a.entries, e)
	return int32(len(a.entries) - 1)
}
