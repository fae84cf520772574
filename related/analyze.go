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

	"github.com/plagd/plagd/disguise"
	"github.com/plagd/plagd/internal/hugepage"
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
// are dropped (page numbers, list labels, years carry no topic). The text's
// disguises are undone first (disguise.Plain: invisible characters inside
// words, letter-spaced words, look-alike letters in Latin words), so that a
// disguised copy has the terms of the clean one.
func Words(text string, dst []string) []string {
	text = disguise.Plain(text)
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
	for _, w := range words {
		if s, ok := l.Term(w); ok {
			dst = append(dst, s)
		}
	}
	return dst
}

// Term returns the term of one lower-case word in language l, its stem, and
// false for a stop word or a stem of one rune: what Terms keeps of it.
func (l Lang) Term(w string) (string, bool) {
	lg := languages[l]
	if lg.stop(w) {
		return "", false
	}
	s := lg.stem(w)
	return s, utf8.RuneCountInString(s) > 1
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
	Candidates []Lang // nil: AllLangs
	slots      []slot // open addressing by word hash, power of two, at most half full
	entries    []wordEntry
	ids        []int32 // the words of the current text, as entries
	distinct   []int32 // the distinct words of the current text
	stamp      uint32  // the current text's number
	buf        []byte  // the current word, lower-cased
}

// slot is a distinct word's place in the Analyzer's table: what the scan of
// a text touches for each word, in one cache line (a word of up to 16 bytes
// is compared in place; a longer one with its entry's word).
type slot struct {
	h            uint64 // FNV-1a 64 of the lower-case word
	id           uint32 // index in entries + 1; 0: empty
	stamp, count uint32 // the last text the word was counted in, and how often
	n            uint16 // the word's length, if at most 16 bytes
	stop         uint16 // bit l: a stop word of language l
	w            [16]byte
}

// wordEntry is what the Analyzer remembers of one distinct lower-case word.
type wordEntry struct {
	word string
	slot uint32 // its slot
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
	if a.slots == nil || len(a.entries) > maxStemCache {
		a.slots = make([]slot, 1<<12)
		a.entries = a.entries[:0]
	}
	a.stamp++
	a.distinct = a.distinct[:0]
	a.ids = a.words(text, a.ids[:0])

	// Detect, from the stop bits of the first detectSample words.
	sample := a.ids[:min(len(a.ids), detectSample)]
	var hits [numLangs]int
	for _, id := range sample {
		for m := a.slots[a.entries[id].slot].stop; m != 0; m &= m - 1 {
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

	// Terms: the distinct words were counted as they were found (lookup),
	// their terms merge after sorting by term (words with the same stem).
	lg, bit := languages[l], uint16(1)<<l
	tc := make([]TermCount, 0, len(a.distinct))
	for _, id := range a.distinct {
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
			tc = append(tc, TermCount{Term: e.term[l], Count: a.slots[e.slot].count})
		}
	}
	termstat.SortByTerm(tc)
	out := tc[:0]
	for _, t := range tc {
		if n := len(out); n > 0 && out[n-1].Term == t.Term {
			out[n-1].Count += t.Count
			continue
		}
		out = append(out, t)
	}
	return l, out
}

// words appends to ids the entries of the words of text, as Words finds and
// lower-cases them: ASCII words are lower-cased and hashed byte by byte, a
// word with any other rune goes through strings.ToLower as in Words.
func (a *Analyzer) words(text string, ids []int32) []int32 {
	text = disguise.Plain(text)
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
			buf = append(buf[:0], strings.ToLower(text[start:end])...)
			a.buf = buf
			ids = append(ids, a.lookup(TermHash(string(buf)), buf))
			continue
		}
		a.buf = buf
		if digits || len(buf) <= 1 {
			continue
		}
		ids = append(ids, a.lookup(h, buf))
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

// lookup returns the entry of the lower-case word b whose hash is h,
// making it if new, and counts it in the current text (the first time,
// adding it to distinct).
func (a *Analyzer) lookup(h uint64, b []byte) int32 {
	mask := uint64(len(a.slots) - 1)
	for i := slotOf(h, mask); ; i = (i + 1) & mask {
		s := &a.slots[i]
		if s.id == 0 {
			return a.insert(i, h, b)
		}
		if s.h != h {
			continue
		}
		if len(b) <= len(s.w) {
			if int(s.n) != len(b) || string(s.w[:len(b)]) != string(b) {
				continue
			}
		} else if a.entries[s.id-1].word != string(b) {
			continue
		}
		id := int32(s.id - 1)
		if s.stamp != a.stamp {
			s.stamp, s.count = a.stamp, 0
			a.distinct = append(a.distinct, id)
		}
		s.count++
		return id
	}
}

func slotOf(h, mask uint64) uint64 { return (h * 0x9e3779b97f4a7c15 >> 32) & mask }

func (a *Analyzer) insert(i uint64, h uint64, b []byte) int32 {
	w := string(b)
	e := wordEntry{word: w}
	var stop uint16
	for l := range numLangs {
		if languages[l].stop(w) {
			stop |= 1 << l
		}
	}
	id := int32(len(a.entries))
	e.slot = uint32(i)
	a.entries = append(a.entries, e)
	a.distinct = append(a.distinct, id)
	s := slot{h: h, id: uint32(id) + 1, stamp: a.stamp, count: 1, stop: stop}
	if len(b) <= len(s.w) {
		s.n = uint16(len(b))
		copy(s.w[:], b)
	}
	a.slots[i] = s
	if 2*len(a.entries) > len(a.slots) {
		a.grow()
	}
	return id
}

// grow doubles the table; the entries learn their new slots.
func (a *Analyzer) grow() {
	old := a.slots
	a.slots = hugepage.Make[slot](2 * len(old))
	mask := uint64(len(a.slots) - 1)
	for _, s := range old {
		if s.id == 0 {
			continue
		}
		i := slotOf(s.h, mask)
		for a.slots[i].id != 0 {
			i = (i + 1) & mask
		}
		a.slots[i] = s
		a.entries[s.id-1].slot = uint32(i)
	}
}
