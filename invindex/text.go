package invindex

import (
	"math"
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/plagd/plagd/disguise"
	"golang.org/x/text/cases"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// Word is one token: byte offsets [Start, End) into the original text and the
// 64-bit hash of its normalised form.
type Word struct {
	Start, End uint32
	Hash       uint64
}

// maxTextLen is the longest text Words looks at. Offsets are uint32 so that a
// Word stays 16 bytes; the bytes beyond 4 GiB are ignored rather than given
// wrapped-around offsets. No real document comes close.
const maxTextLen = math.MaxUint32

// FNV-1a 64 constants. FNV-1a is used for word hashes because it can be
// computed byte by byte while the ASCII fast path scans the word, with no
// buffer at all; the window hash (chunk.go) adds the avalanche FNV lacks.
const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
)

// asciiFold maps an ASCII letter or digit to its case-folded byte and every
// other byte to 0. Bytes >= 0x80 are 0 as well; the scanner tells them apart
// from ASCII separators by looking at the byte itself. For ASCII, NFKC is the
// identity and full case folding is plain lower-casing, so the fast path
// produces exactly the bytes the general path would (a test checks this).
// The table is computed once and never written afterwards.
var asciiFold = func() (t [256]byte) {
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c)
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = byte(c)
		t[c-'a'+'A'] = byte(c)
	}
	return t
}()

// Tokenizer splits text into words and words into chunk IDs. It reuses
// buffers: one per goroutine, not safe for concurrent use.
//
// The buffers grow to the largest document seen and are kept, so a long-lived
// Tokenizer costs about 32 bytes per word of that document.
type Tokenizer struct {
	p Params

	// fold is full Unicode case folding (cases.Fold), chosen over
	// unicode.ToLower/SimpleFold because it is the mapping Unicode defines
	// for caseless matching: it handles one-to-many folds such as
	// ß → ss and ŉ → ʼn, and maps case variants like ς/σ/Σ and K/k/K
	// (Kelvin sign) to one form. It is locale-independent (no Turkish
	// dotless-i rule), which is what a stable hash needs. Held as an
	// interface so that passing it to appendTransform does not allocate.
	fold transform.Transformer

	// tab is the fast path for two-byte runes (see runeTable).
	tab *runeTable

	// Normalisation state for the general path: a and b alternate as
	// source and destination; it is reused because Form.Append allocates
	// its reorder buffer on every call that has work to do.
	a, b []byte
	it   norm.Iter

	// c holds a word without its invisible characters (dropInvisible);
	// spaced the letters of a letter-spaced word (joinSpaced); d a word
	// with its capital look-alikes mapped (latinCapitals).
	c, spaced, d []byte
	window       []Word

	// letters and ends are a letter-spaced run's letters and the ends of
	// its words (segmentRun).
	letters []byte
	ends    []int

	// Buffers for DocChunks.
	words   []Word
	keys    []uint64
	scratch []uint64
}

// NewTokenizer returns a Tokenizer for p. It panics if p is invalid: Params
// are validated where they are read (configuration, index header), so an
// invalid value here is a programming error.
func NewTokenizer(p Params) *Tokenizer {
	if err := p.Validate(); err != nil {
		panic("invindex: NewTokenizer: " + err.Error())
	}
	t := newNormalizer(p)
	t.tab = runeTables[b2i(p.StripDiacritics)]()
	lookAlikes() // built once, before the first text
	return t
}

// newNormalizer returns a Tokenizer without the rune table. Only its
// normalize method may be used; it serves to build the table.
func newNormalizer(p Params) *Tokenizer {
	return &Tokenizer{p: p, fold: cases.Fold()}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Words appends the words of text to dst[:0] and returns it. Offsets refer to
// text: text[w.Start:w.End] is the word as written.
//
// A word is a maximal run of Unicode letters, numbers and combining marks
// (categories L, N, M); every other rune separates words, and so does every
// byte that is not valid UTF-8. Words never panics, whatever the input.
//
// Three ways of hiding a copied word from a checker are undone, so that a
// disguised copy has the words, chunks and passages of the clean one (the
// offsets still point at the word as written; package disguise reports
// the disguise):
//   - an invisible character (disguise.IsInvisible: zero-width spaces and
//     joiners, soft hyphens, bidirectional controls, ...) between two word
//     runes neither ends the word nor changes its hash; elsewhere it
//     separates like any non-letter;
//   - a letter that looks like ASCII letters (Cyrillic "а", Greek "ο", see
//     disguise.Prototype) hashes as them, see normalize;
//   - a letter-spaced word ("p l a g i a r i s m") is one word, and a
//     letter-spaced sentence with single spaces between its words ("t h e
//     c a t") its English words, see joinSpaced.
//
// The hash of a word is FNV-1a 64 over its normalised UTF-8 form, see
// normalize. Words made only of ASCII letters and digits, the bulk of most
// texts, are lower-cased and hashed while they are scanned, without copying;
// so are words that add common two-byte runes (Latin, Greek, Cyrillic
// letters: see runeTable). Only the remaining words go through x/text.
func (t *Tokenizer) Words(text string, dst []Word) []Word {
	dst = dst[:0]
	if len(text) > maxTextLen {
		text = text[:maxTextLen]
	}
	n := len(text)
	short := shortWords{last: -2, first: -1}
	for i := 0; i < n; {
		// scanWords stores without append: make room for every word that
		// can start in the block (words and separators alternate).
		end := min(i+wordsBlock, n)
		dst = slices.Grow(dst, (end-i+1)/2+1)
		var start int
		i, start, dst = scanWords(t.tab, text, i, end, dst, &short)
		if start == blockDone {
			continue
		}
		// A rune the fast path cannot handle, inside a word or between words.
		if start < 0 {
			r, size := utf8.DecodeRuneInString(text[i:])
			if !isWordRune(r) {
				i += size
				continue
			}
			start = i
		}
		i = scanWord(text, i)
		dst = append(dst, Word{Start: uint32(start), End: uint32(i), Hash: t.hashGeneral(text[start:i], text, start, i)})
		short.next(text, dst, len(dst)-1)
	}
	if short.first < 0 {
		return dst // no two short words one space apart: nothing letter-spaced
	}
	return t.joinSpaced(text, dst, short.first)
}

// shortWords tracks, while Words scans, where two short words (that may be
// single letters: one byte, or up to 16 bytes with a non-ASCII byte among
// the first two, as in "ӧ" or "a" + combining caron) first follow each
// other with a gap that may be one space (maybeOneSpace). Before that word
// there is no letter-spaced word, and without one joinSpaced is skipped:
// ordinary English prose almost never has such a pair, and the pass over
// its words would cost the fast path.
type shortWords struct {
	last  int // the index of the last short word, or -2
	first int // the index of the first word of the first pair, or -1
}

// next records ws[k], the word just found.
func (s *shortWords) next(text string, ws []Word, k int) {
	start, end := int(ws[k].Start), int(ws[k].End)
	if n := end - start; n == 1 || (text[start]|text[start+1]) >= utf8.RuneSelf && n <= 16 {
		if s.last == k-1 && s.first < 0 && maybeOneSpace(text, int(ws[k-1].End), start) {
			s.first = k - 1
		}
		s.last = k
	}
}

// maybeOneSpace is a quick test that text[a:b], a gap between two words,
// may be one space-like character (disguise.OneSpace): a single space, or
// a gap of up to 24 bytes that starts or ends with a non-ASCII byte (a
// no-break or thin space, invisible characters around a space).
func maybeOneSpace(text string, a, b int) bool {
	n := b - a
	return n == 1 && text[a] == ' ' || n > 1 && n <= 24 && (text[a] >= utf8.RuneSelf || text[b-1] >= utf8.RuneSelf)
}

// wordsBlock is how many bytes scanWords scans per call at most (words that
// start in the block may end beyond it).
const wordsBlock = 4096

// scanWords is the hot loop of Words. It appends the words starting in
// text[i:end] to dst as long as they consist of ASCII letters and digits and
// simple two-byte runes (see runeTable), folding and hashing them on the
// fly. At the first other rune it stops and returns that rune's position and
// the start of the word it is in, or -1 if it is between words. dst must
// have room for (end-i+1)/2 more words. The function makes no calls, so its
// loop state stays in registers. When the block is done, start is blockDone.
func scanWords(tab *runeTable, text string, i, end int, dst []Word, sw *shortWords) (next, start int, _ []Word) {
	k := len(dst)
	out := dst[:cap(dst)]
	lastShort, first := sw.last, sw.first
	for i < end {
		// Between words.
		c := text[i]
		if asciiFold[c] == 0 {
			if c < utf8.RuneSelf {
				i++
				continue
			}
			r, ok := twoByteRune(text, i)
			if !ok || tab[r].n == tabGeneral {
				sw.last, sw.first = lastShort, first
				return i, -1, out[:k]
			}
			if tab[r].n == tabSeparator {
				i += 2
				continue
			}
		}
		// In a word.
		start := i
		h := uint64(fnvOffset64)
		for i < len(text) {
			c = text[i]
			if v := asciiFold[c]; v != 0 {
				h = (h ^ uint64(v)) * fnvPrime64
				i++
				continue
			}
			if c < utf8.RuneSelf {
				break
			}
			r, ok := twoByteRune(text, i)
			if !ok || tab[r].n == tabGeneral {
				sw.last, sw.first = lastShort, first
				return i, start, out[:k]
			}
			e := &tab[r]
			if e.n == tabSeparator {
				break
			}
			for _, b := range e.b[:e.n] {
				h = (h ^ uint64(b)) * fnvPrime64
			}
			i += 2
		}
		// shortWords.next, inlined by hand; the test is cheap for the
		// long ASCII words that make most of a text.
		if n := i - start; n == 1 || (text[start]|text[start+1]) >= utf8.RuneSelf && n <= 16 {
			if lastShort == k-1 && first < 0 && maybeOneSpace(text, int(out[k-1].End), start) {
				first = k - 1
			}
			lastShort = k
		}
		out[k] = Word{Start: uint32(start), End: uint32(i), Hash: h}
		k++
	}
	sw.last, sw.first = lastShort, first
	return i, blockDone, out[:k]
}

const blockDone = -2

// twoByteRune decodes the valid two-byte UTF-8 sequence at text[i] and
// returns its index in runeTable (rune - 0x80); ok is false for anything else.
func twoByteRune(text string, i int) (int, bool) {
	if i+1 >= len(text) {
		return 0, false
	}
	c0, c1 := text[i], text[i+1]
	if c0 < 0xC2 || c0 >= 0xE0 || c1&0xC0 != 0x80 {
		return 0, false
	}
	return (int(c0&0x1F)<<6 | int(c1&0x3F)) - utf8.RuneSelf, true
}

// isWordRune reports whether r belongs to a word. utf8.RuneError stands for
// invalid bytes (and for a literal U+FFFD, category So); both separate.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiFold[r] != 0
	}
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r))
}

// scanWord returns the end of the run of word runes that starts at byte i.
func scanWord(text string, i int) int {
	for i < len(text) {
		c := text[i]
		if c < utf8.RuneSelf {
			if asciiFold[c] == 0 {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isWordRune(r) {
			if !disguise.IsInvisible(r) {
				return i
			}
			j := skipInvisible(text, i+size)
			if j >= len(text) {
				return i
			}
			if next, _ := utf8.DecodeRuneInString(text[j:]); !isWordRune(next) {
				return i
			}
			size = j - i
		}
		i += size
	}
	return i
}

// skipInvisible returns the first byte at or after i that does not start an
// invisible character (disguise.IsInvisible).
func skipInvisible(text string, i int) int {
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !disguise.IsInvisible(r) {
			return i
		}
		i += size
	}
	return i
}

// hashGeneral hashes a word that contains non-ASCII runes: word, found at
// text[start:end) (the letters of a letter-spaced run are joined in word).
// A capital look-alike in a Latin word is mapped as written (capitals.go).
func (t *Tokenizer) hashGeneral(word, text string, start, end int) uint64 {
	if hasCapitalLookAlike(word) && latinWord(word, text, start, end) {
		word = t.latinCapitals(word)
	}
	return fnv1a(t.normalize(word))
}

// dropInvisible returns word without its invisible characters
// (disguise.IsInvisible): word itself if it has none, else a string over t.c
// (valid until t.c is next written).
func (t *Tokenizer) dropInvisible(word string) string {
	i := 0
	for i < len(word) {
		if word[i] >= utf8.RuneSelf {
			if r, _ := utf8.DecodeRuneInString(word[i:]); disguise.IsInvisible(r) {
				break
			}
		}
		i++
	}
	if i == len(word) {
		return word
	}
	t.c = append(t.c[:0], word[:i]...)
	for _, r := range word[i:] {
		if !disguise.IsInvisible(r) {
			t.c = utf8.AppendRune(t.c, r)
		}
	}
	return unsafe.String(unsafe.SliceData(t.c), len(t.c))
}

// normalize returns the normalised form of word, in one of t's buffers (valid
// until the next call). With I the word without its invisible characters
// (disguise.IsInvisible) and K = NFKC(Fold(NFKC(I))), the normal form is
//
//	K                               StripDiacritics off, no look-alike in K
//	NFC(Proto(NFD(K)))              StripDiacritics off, a look-alike in K
//	NFC(Proto(drop Mn(NFD(K))))     StripDiacritics on
//
// NFKC first, so that compatibility variants (ligatures "ﬁ" → "fi",
// full-width letters, superscripts) and canonically equivalent spellings
// (precomposed "é" and "e"+U+0301) fold alike; NFKC again after folding,
// because case folding does not preserve normal forms. Stripping drops the
// non-spacing marks (Mn) of the canonical decomposition, so "ů" → "u" and
// "ď" → "d", while letters without a decomposition ("ł", "ø", "ß") stay.
// Proto replaces every letter that looks like ASCII letters by them
// (disguise.Prototype: Cyrillic "а" → "a", Greek "ο" → "o"); it works on
// the decomposition, so that Cyrillic "ӧ" (о with diaeresis) becomes "ö".
//
// The mappings come from golang.org/x/text's Unicode tables, which are
// selected by Go version (Unicode 15 before Go 1.27, 17 from then on), and
// from the confusables table generated into package disguise. Such an
// upgrade can change the hash of words containing characters new in that
// Unicode version, never of established ones; the test vector pins the
// latter.
func (t *Tokenizer) normalize(word string) []byte {
	word = t.dropInvisible(word)
	t.it.InitString(norm.NFKC, word)
	t.a = appendIter(&t.it, t.a[:0])
	t.b = appendTransform(t.fold, t.b[:0], t.a)
	t.it.Init(norm.NFKC, t.b)
	t.a = appendIter(&t.it, t.a[:0])
	if !t.p.StripDiacritics && !hasLookAlike(t.a) {
		return t.a
	}
	t.it.Init(norm.NFD, t.a)
	t.b = appendIter(&t.it, t.b[:0])
	if t.p.StripDiacritics {
		t.b = dropNonspacingMarks(t.b)
	}
	t.a = appendPrototypes(t.a[:0], t.b)
	t.it.Init(norm.NFC, t.a)
	t.b = appendIter(&t.it, t.b[:0])
	return t.b
}

// lookAlikes has bit r set for every BMP rune r that is a look-alike
// (disguise.Prototype) or whose canonical decomposition starts with one
// (Cyrillic "ӧ", "ё"); runes above the BMP are asked directly.
var lookAlikes = sync.OnceValue(func() *[0x10000 / 64]uint64 {
	var set [0x10000 / 64]uint64
	for r := rune(utf8.RuneSelf); r < 0x10000; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		first, _ := utf8.DecodeRuneInString(norm.NFD.String(string(r)))
		if _, ok := disguise.Prototype(first); ok {
			set[r/64] |= 1 << (r % 64)
		}
	}
	return &set
})

// hasLookAlike reports whether the normalised word b has a rune that
// normalize maps to ASCII letters.
func hasLookAlike(b []byte) bool {
	var set *[0x10000 / 64]uint64
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		i += size
		if r >= 0x10000 {
			if _, ok := disguise.Prototype(r); ok {
				return true
			}
			continue
		}
		if set == nil {
			set = lookAlikes()
		}
		if set[r/64]&(1<<(r%64)) != 0 {
			return true
		}
	}
	return false
}

// appendPrototypes appends b to dst with every look-alike letter replaced
// by its ASCII prototype (disguise.Prototype).
func appendPrototypes(dst, b []byte) []byte {
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			dst = append(dst, b[i])
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if p, ok := disguise.Prototype(r); ok {
			dst = append(dst, p...)
		} else {
			dst = append(dst, b[i:i+size]...)
		}
		i += size
	}
	return dst
}

// appendIter appends the normalised segments of it to dst.
func appendIter(it *norm.Iter, dst []byte) []byte {
	for !it.Done() {
		dst = append(dst, it.Next()...)
	}
	return dst
}

// dropNonspacingMarks removes runes of category Mn from b in place.
func dropNonspacingMarks(b []byte) []byte {
	out := b[:0]
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			out = append(out, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if !unicode.Is(unicode.Mn, r) {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

// appendTransform appends the result of running tr over all of src to dst,
// growing dst as needed; unlike transform.Bytes it reuses dst's capacity.
func appendTransform(tr transform.Transformer, dst, src []byte) []byte {
	tr.Reset()
	for {
		nDst, nSrc, err := tr.Transform(dst[len(dst):cap(dst)], src, true)
		dst = dst[:len(dst)+nDst]
		src = src[nSrc:]
		if err != transform.ErrShortDst {
			// nil, or an error a caser never returns with atEOF set
			// (ErrShortSrc); either way there is nothing left to do.
			return dst
		}
		grown := make([]byte, len(dst), 2*cap(dst)+len(src)+16)
		copy(grown, dst)
		dst = grown
	}
}

// fnv1a is FNV-1a 64 over b.
func fnv1a(b []byte) uint64 {
	h := uint64(fnvOffset64)
	for _, c := range b {
		h = (h ^ uint64(c)) * fnvPrime64
	}
	return h
}

// runeTable is the fast path for the two-byte runes U+0080..U+07FF (Latin-1,
// Latin Extended, IPA, Greek, Cyrillic, Armenian, Hebrew, Arabic). Entry
// r-0x80 holds the normalised form of r on its own if r is simple, else a
// marker: tabSeparator for runes that are not word runes, tabGeneral for
// word runes that need the general path (combining marks, and letters whose
// normalisation can interact with their neighbours).
//
// A rune is simple when it is a starter that never combines with what comes
// before it, is already in NFC and NFKC, its case fold starts with such a
// starter, and its normalised form consists only of simple runes. For a word
// made of ASCII letters, digits and simple runes, each normalisation step is
// then segment-local (every rune starts a new normalisation segment) and
// case folding is per rune, so the normal form of the word is the
// concatenation of the normal forms of its runes. The tests check this
// against the general path on random words.
type runeTable [0x800 - utf8.RuneSelf]struct {
	n uint8 // length of b used, or tabSeparator, or tabGeneral
	b [7]byte
}

const (
	tabSeparator = 0xFE
	tabGeneral   = 0xFF
)

// runeTables are built on first use, one per StripDiacritics setting, and
// read-only from then on.
var runeTables = [2]func() *runeTable{
	sync.OnceValue(func() *runeTable { return buildRuneTable(false) }),
	sync.OnceValue(func() *runeTable { return buildRuneTable(true) }),
}

func buildRuneTable(strip bool) *runeTable {
	t := newNormalizer(Params{StripDiacritics: strip})
	fold := cases.Fold()
	tab := new(runeTable)
	for r := rune(utf8.RuneSelf); r < 0x800; r++ {
		e := &tab[r-utf8.RuneSelf]
		if disguise.IsInvisible(r) || isCapitalLookAlike(r) {
			// Inside a word it is skipped, between words it separates:
			// the general path decides (scanWord). A capital look-alike
			// hashes by its word's script (capitals.go).
			e.n = tabGeneral
			continue
		}
		if !isWordRune(r) {
			e.n = tabSeparator
			continue
		}
		e.n = tabGeneral
		s := string(r)
		folded := fold.String(s)
		if !isSimpleRune(r) || folded == "" {
			continue
		}
		if f, _ := utf8.DecodeRuneInString(folded); !startsSegment(string(f)) {
			continue
		}
		out := t.normalize(s)
		if len(out) == 0 || len(out) > len(e.b) {
			continue
		}
		simple := true
		for _, o := range string(out) {
			simple = simple && (o < utf8.RuneSelf && asciiFold[o] != 0 || o >= utf8.RuneSelf && isSimpleRune(o))
		}
		if simple {
			e.n = uint8(copy(e.b[:], out))
		}
	}
	return tab
}

// isSimpleRune reports whether r starts a normalisation segment in every form
// and is unchanged by NFC and NFKC.
func isSimpleRune(r rune) bool {
	s := string(r)
	return startsSegment(s) && norm.NFC.IsNormalString(s) && norm.NFKC.IsNormalString(s)
}

// startsSegment reports whether the first rune of s has ccc 0 and never
// combines with a preceding rune, in all four normal forms.
func startsSegment(s string) bool {
	return norm.NFC.PropertiesString(s).BoundaryBefore() &&
		norm.NFD.PropertiesString(s).BoundaryBefore() &&
		norm.NFKC.PropertiesString(s).BoundaryBefore() &&
		norm.NFKD.PropertiesString(s).BoundaryBefore()
}
