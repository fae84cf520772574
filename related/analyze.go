package related

// Text analysis: text → lower-cased words → language → terms (stop words
// dropped, stems) → hashed term counts. Terms are identified by a 64-bit hash
// of the stem, not by a dense ID, so that a term keeps its identity across
// model versions and across processes: the daemon can store document
// frequencies keyed by hash without a shared dictionary.

import (
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

// Analyzer is Analyze with a memory: it remembers the stem of every word it
// has stemmed, per language. Words follow Zipf's law, so a few thousand
// distinct words make up most of any text, and the Snowball stemmers
// (which re-decode the word into runes at every suffix test) cost 70 % of
// the analysis of an English archive without the cache. One per goroutine:
// it is not safe for concurrent use.
type Analyzer struct {
	Candidates []Lang // nil: AllLangs
	stems      [numLangs]map[string]string
	words      []string
	terms      []string
}

// maxStemCache bounds the remembered stems per language; past it the cache
// starts over (an archive's vocabulary is rarely that large, and a cold
// cache only costs time).
const maxStemCache = 1 << 18

// Analyze is the package's Analyze, with the stem cache.
func (a *Analyzer) Analyze(text string) (Lang, []TermCount) {
	cands := a.Candidates
	if cands == nil {
		cands = AllLangs
	}
	a.words = Words(text, a.words[:0])
	l := Detect(a.words, cands)
	lg := languages[l]
	cache := a.stems[l]
	if cache == nil || len(cache) > maxStemCache {
		cache = make(map[string]string)
		a.stems[l] = cache
	}
	a.terms = a.terms[:0]
	for _, w := range a.words {
		s, ok := cache[w]
		if !ok {
			if lg.stop(w) {
				s = ""
			} else if s = lg.stem(w); utf8.RuneCountInString(s) <= 1 {
				s = ""
			}
			cache[w] = s
		}
		if s != "" {
			a.terms = append(a.terms, s)
		}
	}
	return l, Count(a.terms, nil)
}
