package invindex

import (
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/plagd/plagd/disguise"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

func defaultTokenizer() *Tokenizer { return NewTokenizer(DefaultParams()) }

func stripTokenizer() *Tokenizer {
	p := DefaultParams()
	p.StripDiacritics = true
	return NewTokenizer(p)
}

// wordHash returns the hash of s, which must be exactly one word.
func wordHash(t testing.TB, tk *Tokenizer, s string) uint64 {
	t.Helper()
	ws := tk.Words(s, nil)
	if len(ws) != 1 || ws[0].Start != 0 || int(ws[0].End) != len(s) {
		t.Fatalf("%q: want exactly one word spanning it, got %v", s, ws)
	}
	return ws[0].Hash
}

func TestWordsSplitting(t *testing.T) {
	tk := defaultTokenizer()
	cases := []struct {
		text string
		want []string
	}{
		{"", nil},
		{"   ,.;  ", nil},
		{"Hello, world!", []string{"Hello", "world"}},
		{"don't stop_here", []string{"don", "t", "stop", "here"}},
		{"abc123 4x4", []string{"abc123", "4x4"}},
		{"café—crème", []string{"café", "crème"}},
		{"e\u0301cole", []string{"e\u0301cole"}}, // combining mark inside a word
		{"\u0301abc", []string{"\u0301abc"}},     // a mark may start a word
		{"a\xffb\xc3", []string{"a", "b"}},       // invalid bytes separate
		{"x\uFFFDy", []string{"x", "y"}},         // so does a real U+FFFD
		{"日本語のテキスト", []string{"日本語のテキスト"}},       // no word breaking for CJK
		{"Ⅻ ½ ²", []string{"Ⅻ", "½", "²"}},       // category N
		{"tab\tnew\nline\r\n", []string{"tab", "new", "line"}},
		{"emoji😀inside", []string{"emoji", "inside"}},
		{"\x00nul\x00", []string{"nul"}},
	}
	for _, c := range cases {
		ws := tk.Words(c.text, nil)
		var got []string
		for _, w := range ws {
			got = append(got, c.text[w.Start:w.End])
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
			t.Errorf("Words(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestWordsReusesDst(t *testing.T) {
	tk := defaultTokenizer()
	buf := make([]Word, 3, 100)
	ws := tk.Words("one two", buf)
	if len(ws) != 2 || &ws[0] != &buf[0] {
		t.Fatalf("Words must append to dst[:0]: got %v", ws)
	}
}

// TestWordHashIsFNV1a pins the word hash to the standard library's FNV-1a
// over the normalised form.
func TestWordHashIsFNV1a(t *testing.T) {
	tk := defaultTokenizer()
	for text, normal := range map[string]string{
		"the":        "the",
		"HeLLo":      "hello",
		"Straße":     "strasse",
		"ÉCOLE":      "école",
		"ﬁle":        "file",
		"ＡＢＣ":        "abc",
		"Příliš":     "příliš",
		"ΣΊΣΥΦΟΣ":    "oíouφoo", // σ, ι, υ, ο look like o, i, u, o (disguise.Prototype)
		"Сору":       "copy",    // Cyrillic
		"co\u200Bpy": "copy",
	} {
		f := fnv.New64a()
		f.Write([]byte(normal))
		if got, want := wordHash(t, tk, text), f.Sum64(); got != want {
			t.Errorf("hash(%q) = %#x, want FNV-1a(%q) = %#x", text, got, normal, want)
		}
	}
}

// TestEquivalences documents which spellings hash alike. With full case
// folding, "ß" folds to "ss", so "Straße" and "STRASSE" are the same word.
func TestEquivalences(t *testing.T) {
	same := [][]string{
		{"école", "ÉCOLE", "École", "e\u0301cole", "E\u0301COLE"},
		{"file", "ﬁle", "FILE", "ＦＩＬＥ", "File"},
		{"strasse", "Straße", "STRASSE", "straße", "STRAẞE"},
		{"hello", "HeLLo", "HELLO"},
		{"σίσυφος", "ΣΊΣΥΦΟΣ", "σίσυφοσ"}, // final sigma folds to σ
		{"k", "K", "\u212A"},              // Kelvin sign
		{"s", "ſ"},                        // long s
		{"příliš", "PŘÍLIŠ", "Příliš"},
		{"2", "²", "２"},
		// Disguises (HashVersion 3): look-alikes of other scripts, and
		// invisible characters inside the word.
		{"copy", "сору", "СОРУ", "сOpy", "co\u200Bpy", "c\u00ADo\u00ADp\u00ADy", "co\u202Epy", "co\u2060\uFEFFpy"},
		{"bank", "Вank", "bаnk", "BАNK"},
		{"привет", "ПРИВЕТ", "пpивет", "ПPИВЕТ"}, // Latin p in a Russian word
		{"ӧ", "ö"}, // Cyrillic o with diaeresis
		{"plagiarism", "p l a g i a r i s m", "p\u00A0l\u00A0a\u00A0g\u00A0i\u00A0a\u00A0r\u00A0i\u00A0s\u00A0m"},
	}
	for _, tk := range []*Tokenizer{defaultTokenizer(), stripTokenizer()} {
		for _, group := range same {
			h0 := wordHash(t, tk, group[0])
			for _, w := range group[1:] {
				if h := wordHash(t, tk, w); h != h0 {
					t.Errorf("strip=%v: %q and %q hash differently", tk.p.StripDiacritics, group[0], w)
				}
			}
		}
	}
	different := [][2]string{
		{"e", "é"}, {"kun", "kůň"}, {"tabula", "tábula"}, {"cast", "čašt"},
	}
	tk := defaultTokenizer()
	for _, d := range different {
		if wordHash(t, tk, d[0]) == wordHash(t, tk, d[1]) {
			t.Errorf("diacritics kept by default, yet %q == %q", d[0], d[1])
		}
	}
}

func TestStripDiacritics(t *testing.T) {
	tk := stripTokenizer()
	for _, d := range [][2]string{
		{"e", "é"}, {"kun", "kůň"}, {"zlutoucky", "ŽLUŤOUČKÝ"}, {"dabelske", "ďábelské"},
		{"ecole", "e\u0301cole"}, {"angstrom", "ÅNGSTRÖM"}, {"resume", "résumé"},
	} {
		if wordHash(t, tk, d[0]) != wordHash(t, tk, d[1]) {
			t.Errorf("with StripDiacritics %q != %q", d[0], d[1])
		}
	}
	// Letters without a canonical decomposition are not diacritic variants.
	for _, d := range [][2]string{{"l", "ł"}, {"o", "ø"}, {"d", "đ"}} {
		if wordHash(t, tk, d[0]) == wordHash(t, tk, d[1]) {
			t.Errorf("with StripDiacritics %q == %q, want different", d[0], d[1])
		}
	}
	// Stripping never touches pure ASCII.
	def := defaultTokenizer()
	for _, w := range []string{"plain", "ASCII", "w0rd5"} {
		if wordHash(t, tk, w) != wordHash(t, def, w) {
			t.Errorf("%q: StripDiacritics changed an ASCII word", w)
		}
	}
}

// randomText returns a string mixing ASCII, Latin letters with diacritics,
// combining marks, compatibility characters, other scripts, numbers,
// punctuation, emoji and invalid UTF-8.
func randomText(r *rand.Rand, n int) string {
	pieces := []string{
		"a", "Z", "q", "0", "9", " ", " ", " ", ",", ".", "'", "-", "_", "\n", "\t",
		"é", "É", "ß", "ẞ", "ů", "Ř", "ł", "ø", "ﬁ", "ﬄ", "Ａ", "ſ", "\u212A",
		"\u0301", "\u030C", "\u0308", "\u20DD", "İ", "ı", "ǅ", "Σ", "ς",
		"日", "本", "한", "ק", "ب", "ก", "\u0E31", "Ⅻ", "½", "²", "٣",
		"—", "«", "»", "😀", "\u200D", "\uFFFD", "\u00A0", "\u2028",
		"\u200B", "\u00AD", "\u202E", "\uFEFF", "\uFE0F", "а", "о", "Р", "ӧ", "в", "ο", "Ι", "a ", "b ", "  ",
		"\xff", "\xc3", "\xe2\x82", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\x80",
	}
	var sb strings.Builder
	for sb.Len() < n {
		if r.IntN(8) == 0 {
			sb.WriteRune(rune(r.IntN(0x30000)))
			continue
		}
		sb.WriteString(pieces[r.IntN(len(pieces))])
	}
	return sb.String()
}

// checkWords verifies every structural property of Words on text and that
// each word's hash depends only on the word itself.
func checkWords(t testing.TB, tk *Tokenizer, text string, ws []Word) {
	t.Helper()
	prevEnd := -1
	for i, w := range ws {
		s, e := int(w.Start), int(w.End)
		if s >= e || e > len(text) || s <= prevEnd {
			t.Fatalf("%q: word %d = [%d,%d) after end %d: bad offsets", text, i, s, e, prevEnd)
		}
		word := text[s:e]
		spaced := strings.IndexFunc(word, disguise.IsSpaceLike) >= 0
		for j, r := range word {
			if r == utf8.RuneError || !isWordRune(r) && !disguise.IsInvisible(r) && !(spaced && disguise.IsSpaceLike(r)) {
				t.Fatalf("%q: word %d %q has non-word rune %q at %d", text, i, word, r, j)
			}
		}
		gapStart := max(prevEnd, 0)
		for _, r := range text[gapStart:s] {
			if isWordRune(r) {
				t.Fatalf("%q: word rune %q in the gap [%d,%d)", text, r, gapStart, s)
			}
		}
		if spaced {
			word = strings.Map(func(r rune) rune {
				if disguise.IsSpaceLike(r) {
					return -1
				}
				return r
			}, word)
		}
		if want := referenceHash(word, text, s, e, tk.p.StripDiacritics); w.Hash != want {
			t.Fatalf("%q: word %q hash %#x, reference gives %#x", text, word, w.Hash, want)
		}
		if got, want := string(tk.normalize(word)), referenceNormalize(word, tk.p.StripDiacritics); got != want {
			t.Fatalf("normalize(%q) = %q, reference gives %q", word, got, want)
		}
		prevEnd = e
	}
	for _, r := range text[max(prevEnd, 0):] {
		if isWordRune(r) {
			t.Fatalf("%q: word rune %q after the last word", text, r)
		}
	}
}

func TestWordsProperties(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	tks := []*Tokenizer{defaultTokenizer(), stripTokenizer()}
	var ws []Word
	for i := 0; i < 3000; i++ {
		text := randomText(r, r.IntN(200))
		for _, tk := range tks {
			ws = tk.Words(text, ws)
			checkWords(t, tk, text, ws)
			// A word hashes the same on its own as inside the text (but
			// for two spaced letters, joined only next to a longer run).
			for _, w := range ws {
				if n := countFunc(text[w.Start:w.End], disguise.IsSpaceLike); n > 0 && n < disguise.MinSpacedRun-1 {
					continue
				}
				// Nor for a look-alike word with a capital look-alike,
				// read by its neighbours (capitals.go).
				if w := text[w.Start:w.End]; hasCapitalLookAlike(w) && classify(w) == classAlike {
					continue
				}
				if h := wordHash(t, tk, text[w.Start:w.End]); h != w.Hash {
					t.Fatalf("seed %d: %q hashes to %#x alone, %#x in %q", seed, text[w.Start:w.End], h, w.Hash, text)
				}
			}
		}
	}
}

// countFunc counts the runes of s for which f is true.
func countFunc(s string, f func(rune) bool) int {
	n := 0
	for _, r := range s {
		if f(r) {
			n++
		}
	}
	return n
}

// referenceHash is the hash of word, found at text[s:e): capital
// look-alikes (disguise.CapitalPrototype) mapped as written when the
// tokenizer's rule (latinWord, tested on its own in capitals_test.go) reads
// the word as Latin, then referenceNormalize.
func referenceHash(word, text string, s, e int, strip bool) uint64 {
	if latinWord(word, text, s, e) {
		var sb strings.Builder
		for _, r := range word {
			d := []rune(norm.NFD.String(string(r)))
			if p, ok := disguise.CapitalPrototype(d[0]); ok {
				sb.WriteString(strings.ToUpper(p))
				sb.WriteString(string(d[1:]))
				continue
			}
			sb.WriteRune(r)
		}
		word = sb.String()
	}
	return fnv1a([]byte(referenceNormalize(word, strip)))
}

// referenceNormalize is the normal form of normalize, written with the
// plain allocating x/text calls.
func referenceNormalize(word string, strip bool) string {
	word = strings.Map(func(r rune) rune {
		if disguise.IsInvisible(r) {
			return -1
		}
		return r
	}, word)
	s := norm.NFKC.String(cases.Fold().String(norm.NFKC.String(word)))
	var kept []rune
	for _, r := range norm.NFD.String(s) {
		if strip && unicode.Is(unicode.Mn, r) {
			continue
		}
		if p, ok := disguise.Prototype(r); ok {
			kept = append(kept, []rune(p)...)
			continue
		}
		kept = append(kept, r)
	}
	return norm.NFC.String(string(kept))
}

// referenceWords is Words written the obvious way: decode every rune, keep
// invisible runes between two word runes in the word, join letter-spaced
// runs (disguise.SpacedRuns), hash every word through referenceNormalize.
func referenceWords(text string, strip bool) []Word {
	type span struct{ s, e int }
	var spans []span
	rs := []rune{}
	pos := []int{}
	for i, r := range text {
		rs = append(rs, r)
		pos = append(pos, i)
	}
	pos = append(pos, len(text))
	in := make([]bool, len(rs))
	for k, r := range rs {
		in[k] = r != utf8.RuneError && isWordRune(r)
	}
	for k := range rs {
		if in[k] || !disguise.IsInvisible(rs[k]) || k == 0 || !in[k-1] {
			continue
		}
		j := k
		for j < len(rs) && disguise.IsInvisible(rs[j]) {
			j++
		}
		if j < len(rs) && in[j] {
			for ; k < j; k++ {
				in[k] = true
			}
		}
	}
	for k := 0; k < len(rs); {
		if !in[k] {
			k++
			continue
		}
		j := k
		for j < len(rs) && in[j] {
			j++
		}
		spans = append(spans, span{pos[k], pos[j]})
		k = j
	}
	hash := func(w string, s, e int) uint64 { return referenceHash(w, text, s, e, strip) }
	word := func(k int) Word {
		s, e := spans[k].s, spans[k].e
		return Word{uint32(s), uint32(e), hash(text[s:e], s, e)}
	}
	var ws []Word
	next := 0
	disguise.SpacedRuns(text, len(spans), func(i int) (int, int) { return spans[i].s, spans[i].e }, func(i, n int) {
		for ; next < i; next++ {
			ws = append(ws, word(next))
		}
		var letters, folded string
		for _, sp := range spans[i : i+n] {
			letters += text[sp.s:sp.e]
			folded += referenceNormalize(text[sp.s:sp.e], strip)
		}
		next = i + n
		// Cut into words when every letter is one ASCII letter or digit
		// and disguise.SpacedWords finds words.
		before, after := text[:spans[i].s], text[spans[i+n-1].e:]
		if i > 0 {
			before = text[spans[i-1].e:spans[i].s]
		}
		if i+n < len(spans) {
			after = text[spans[i+n-1].e:spans[i+n].s]
		}
		if len(folded) == n && strings.Trim(folded, "abcdefghijklmnopqrstuvwxyz0123456789") == "" {
			if ends := disguise.SpacedWords(folded, before, after, nil); ends != nil {
				prev := 0
				for _, e := range ends {
					ws = append(ws, Word{uint32(spans[i+prev].s), uint32(spans[i+e-1].e), fnv1a([]byte(folded[prev:e]))})
					prev = e
				}
				return
			}
		}
		ws = append(ws, Word{uint32(spans[i].s), uint32(spans[i+n-1].e), hash(letters, spans[i].s, spans[i+n-1].e)})
	})
	for ; next < len(spans); next++ {
		ws = append(ws, word(next))
	}
	return ws
}

// TestWordsMatchesReference compares Words with referenceWords on long
// texts, so that words cross the internal block boundaries.
func TestWordsMatchesReference(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 4))
	for _, strip := range []bool{false, true} {
		tk := NewTokenizer(Params{WindowWords: 5, ChunkBits: 28, StripDiacritics: strip})
		for i := 0; i < 30; i++ {
			var text string
			switch i % 3 {
			case 0:
				text = randomText(r, 20000)
			case 1:
				text = benchText(r.Uint64(), 20000, true)
			default:
				// Long words of mixed fast and general runes.
				var sb strings.Builder
				for sb.Len() < 20000 {
					sb.WriteString(strings.Repeat("ab", r.IntN(2000)))
					sb.WriteString([]string{"é", "\u0301", "ﬁ", " ", "日", "\xff"}[r.IntN(6)])
				}
				text = sb.String()
			}
			got, want := tk.Words(text, nil), referenceWords(text, strip)
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d strip=%v text %d: Words differs from the reference (%d vs %d words)", seed, strip, i, len(got), len(want))
			}
		}
	}
}

// TestASCIIFastPathMatchesGeneral checks that the allocation-free ASCII path
// yields the bytes the x/text path would: NFKC(fold(x)) of ASCII is lower(x).
func TestASCIIFastPathMatchesGeneral(t *testing.T) {
	tk := defaultTokenizer()
	for c := 0; c < utf8.RuneSelf; c++ {
		s := string(rune(c))
		got := tk.normalize(s)
		if asciiFold[c] == 0 {
			continue
		}
		if len(got) != 1 || got[0] != asciiFold[c] {
			t.Errorf("normalize(%q) = %q, fast path uses %q", s, got, asciiFold[c])
		}
	}
}

// TestRuneTableMatchesGeneral checks the two-byte fast path (runeTable)
// against the reference normalisation on words built from all two-byte runes,
// alone, next to each other, next to ASCII and next to combining marks.
func TestRuneTableMatchesGeneral(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 3))
	var pool []string
	for c := rune(0x80); c < 0x800; c++ {
		pool = append(pool, string(c))
	}
	extra := []string{"a", "Z", "7", "\u0301", "\u0345", "\u20DD", "ﬁ", "İ", "ǅ", "\u3099", "か", "\U0001D400"}
	for _, strip := range []bool{false, true} {
		fast := NewTokenizer(Params{WindowWords: 5, ChunkBits: 28, StripDiacritics: strip})
		check := func(word string) {
			ws := fast.Words(word, nil)
			for _, w := range ws {
				seg := word[w.Start:w.End]
				if want := referenceHash(seg, word, int(w.Start), int(w.End), strip); w.Hash != want {
					t.Fatalf("seed %d strip=%v %q: fast %#x, want %#x", seed, strip, seg, w.Hash, want)
				}
			}
		}
		for _, p := range pool {
			check(p)
			check("a" + p + "b")
			check(p + p)
			check(p + "\u0301")
			check(p + pool[r.IntN(len(pool))])
		}
		for i := 0; i < 20000; i++ {
			var sb strings.Builder
			for n := 1 + r.IntN(8); n > 0; n-- {
				if r.IntN(5) == 0 {
					sb.WriteString(extra[r.IntN(len(extra))])
				} else {
					sb.WriteString(pool[r.IntN(len(pool))])
				}
			}
			check(sb.String())
		}
	}
}

func TestWordsNoAllocASCII(t *testing.T) {
	tk := defaultTokenizer()
	text := benchText(1, 4<<10, false)
	ws := tk.Words(text, nil)
	if n := testing.AllocsPerRun(20, func() { ws = tk.Words(text, ws) }); n != 0 {
		t.Errorf("Words on ASCII text: %v allocs per run, want 0", n)
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{
		"", "The quick brown fox", "Příliš žluťoučký kůň úpěl ďábelské ódy", "Straße STRASSE",
		"ﬁle", "e\u0301\u0301\u0301", "a\xffb\xc3", "\xed\xa0\x80\xf4\x90\x80\x80", "日本語 ½ Ⅻ",
	} {
		f.Add(s)
	}
	tks := []*Tokenizer{defaultTokenizer(), stripTokenizer()}
	f.Fuzz(func(t *testing.T, text string) {
		for _, tk := range tks {
			ws := tk.Words(text, nil)
			checkWords(t, tk, text, ws)
			ids := tk.ChunkIDs(ws, nil)
			if want := max(len(ws)-tk.p.WindowWords+1, 0); len(ids) != want {
				t.Fatalf("%d chunks for %d words", len(ids), len(ws))
			}
		}
	})
}

// benchText generates a deterministic English-like text of about size bytes:
// a Zipf-distributed vocabulary of 5000 words whose frequent words are short,
// sentences of 6-30 words with capitals, commas, full stops and paragraphs.
// With diacritics, about 40 % of the vocabulary carries Czech diacritics,
// which sends those words through the x/text path.
func benchText(seed uint64, size int, diacritics bool) string {
	r := rand.New(rand.NewPCG(seed, 42))
	const letters = "eeeeeeeeeeeettttttttaaaaaaaoooooooiiiiiiinnnnnnnsssssshhhhhhrrrrrrdddllllcccuuummmwwffggyyppbbvkjxqz"
	const marked = "áčďéěíňóřšťúůýž"
	markedRunes := []rune(marked)
	const vocab = 5000
	words := make([]string, vocab)
	for i := range words {
		// Rank 0 is the most frequent; length grows with rank as in English.
		n := 1 + r.IntN(3) + min(i/60, 3) + r.IntN(1+min(i/400, 7))
		var sb strings.Builder
		for j := 0; j < n; j++ {
			if diacritics && i >= 5 && r.IntN(8) == 0 {
				sb.WriteRune(markedRunes[r.IntN(len(markedRunes))])
			} else {
				sb.WriteByte(letters[r.IntN(len(letters))])
			}
		}
		words[i] = sb.String()
	}
	zipf := rand.NewZipf(r, 1.1, 2, vocab-1)
	var sb strings.Builder
	sb.Grow(size + 64)
	for sb.Len() < size {
		sentence := 6 + r.IntN(25)
		for j := 0; j < sentence; j++ {
			w := words[zipf.Uint64()]
			if j == 0 {
				first, n := utf8.DecodeRuneInString(w)
				sb.WriteString(strings.ToUpper(string(first)))
				sb.WriteString(w[n:])
			} else {
				sb.WriteByte(' ')
				sb.WriteString(w)
			}
			if j < sentence-1 && r.IntN(12) == 0 {
				sb.WriteByte(',')
			}
		}
		sb.WriteByte('.')
		if r.IntN(6) == 0 {
			sb.WriteString("\n\n")
		} else {
			sb.WriteByte(' ')
		}
	}
	return sb.String()
}

// BenchmarkWords includes fnv-baseline, plain FNV-1a over the same bytes with
// no tokenising: the word hash's latency bound on this machine, so that
// figures from a loaded or slower machine can be read as ratios.
func BenchmarkWords(b *testing.B) {
	b.Run("fnv-baseline", func(b *testing.B) {
		text := []byte(benchText(1, 256<<10, false))
		b.SetBytes(int64(len(text)))
		var sink uint64
		for b.Loop() {
			sink += fnv1a(text)
		}
		_ = sink
	})
	for _, bc := range []struct {
		name       string
		diacritics bool
		strip      bool
	}{
		{"english", false, false},
		{"czech", true, false},
		{"czech-strip", true, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			text := benchText(1, 256<<10, bc.diacritics)
			p := DefaultParams()
			p.StripDiacritics = bc.strip
			tk := NewTokenizer(p)
			var ws []Word
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				ws = tk.Words(text, ws)
			}
		})
	}
}
