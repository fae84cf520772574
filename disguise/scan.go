package disguise

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Thresholds below which a finding is not flagged: ordinary text has the
// odd stray character (a Cyrillic "с" typed with the wrong keyboard layout,
// a zero-width space pasted from a web page, a soft hyphen a word processor
// put at a hyphenation point), a disguise has many. Every finding is still
// undone by the tokenizer, flagged or not.
const (
	// minConfusable: look-alike letters in words of another script.
	minConfusable = 2
	// minInvisible: invisible characters other than soft hyphens inside
	// words.
	minInvisible = 2
	// minSoftHyphens: soft hyphens inside words, and at least one per
	// softHyphenWords words: a soft hyphen is invisible unless the line
	// breaks there, and word processors and PDF extraction leave a few at
	// hyphenation points.
	minSoftHyphens  = 3
	softHyphenWords = 100
	// minSpacedRuns, spacedWords: letter-spaced words are flagged when
	// there are at least minSpacedRuns, and one per spacedWords words:
	// writers space a name or a shout for emphasis now and then ("D O N
	// I" in a novel of the sample corpus), a disguise spaces sentences.
	// Only runs of at least minFlagLetters letters count towards it:
	// Czech, Slovak and Polish have many one-letter words ("v", "s", "k",
	// "z", "a", "i"), and three of them in a row happen.
	minSpacedRuns  = 5
	spacedWords    = 1000
	minFlagLetters = 4
)

// Scan finds the disguises of text that live in its characters and returns
// them as flags (Confusable, Invisible, LetterSpaced; at most one of each,
// in Merge's order), with byte spans into text: the words that carry them.
// It is what the tokenizer of package invindex undoes, reported:
//
//   - Confusable counts look-alike letters (Prototype) of another script in
//     a word: the minority script's letters in a mixed-script word
//     ("Сopy": one Cyrillic letter in a Latin word; "пpивет": one Latin
//     letter in a Russian word), and every letter of a word written wholly
//     in look-alikes of another script between two Latin words of a text
//     that is mostly Latin ("сору" in English text; a Russian quotation
//     has Russian words around its words). Genuine words of any one script are not
//     counted, nor are mixed words whose odd letters look like no Latin
//     letter ("Яndex").
//   - Invisible counts invisible characters (IsInvisible) between two
//     letters or numbers of a word in a cased script (Latin, Greek, Cyrillic, ...):
//     Arabic and Indic writing use joiners inside words on purpose, and CJK
//     text variation selectors. Soft hyphens count only when there are at
//     least minSoftHyphens, and one per softHyphenWords words.
//   - LetterSpaced counts letter-spaced words (SpacedRuns), flagged when
//     at least minSpacedRuns of them have minFlagLetters letters or more,
//     and there is one per spacedWords words.
//
// Scan does no I/O and never panics, whatever the input. A text Plain's
// quick test passes (MaybeDisguised false: no rune but Latin letters and
// visible non-letters, no run of single letters) has none of them, and is
// not scanned further: most of an archive (half the time of a full run's
// text fetch went to scanning clean texts).
func Scan(text string) []Flag {
	if !maybeDisguised(text) {
		return nil
	}
	return scan(text)
}

// scan is Scan without the quick test.
func scan(text string) []Flag {
	words := scanWords(text)
	dominant := dominantScript(text)
	var conf, inv, shy, spaced finding
	confScripts := map[string]bool{}
	invNames := map[string]bool{}
	for k, w := range words {
		word := text[w.Start:w.End]
		if isASCII(word) {
			continue // no look-alike of another script, no invisible character
		}
		// A word wholly in look-alikes counts only between two Latin words.
		whole := dominant == "Latin" && k > 0 && k+1 < len(words) &&
			latinWord(text[words[k-1].Start:words[k-1].End]) && latinWord(text[words[k+1].Start:words[k+1].End])
		if n, scripts := lookAlikes(word, dominant, whole); n > 0 {
			conf.add(n, w)
			for _, s := range scripts {
				confScripts[s] = true
			}
		}
		if !casedWord(word) {
			continue
		}
		var nInv, nShy int
		first, last := letterBounds(word)
		for i, r := range word {
			if i <= first || i >= last {
				continue // not between two letters of the word
			}
			switch {
			case r == 0xAD:
				nShy++
			case IsInvisible(r):
				nInv++
				invNames[invisibleName(r)] = true
			}
		}
		if nInv > 0 {
			inv.add(nInv, w)
		}
		if nShy > 0 {
			shy.add(nShy, w)
		}
	}
	longRuns := 0
	SpacedRuns(text, len(words), func(i int) (int, int) { return words[i].Start, words[i].End }, func(i, n int) {
		spaced.add(1, Span{words[i].Start, words[i+n-1].End})
		if n >= minFlagLetters {
			longRuns++
		}
	})

	var flags []Flag
	if conf.count >= minConfusable {
		flags = append(flags, conf.flag(Confusable, fmt.Sprintf("%s letters that look like Latin ones", joinKeys(confScripts))))
	}
	softHyphens := shy.count >= minSoftHyphens && shy.count*softHyphenWords >= len(words)
	if softHyphens {
		invNames["soft hyphens"] = true
	}
	if inv.count >= minInvisible || softHyphens {
		f := finding{}
		if inv.count >= minInvisible {
			f = inv
		}
		if softHyphens {
			f.merge(shy)
		}
		flags = append(flags, f.flag(Invisible, joinKeys(invNames)+" inside words"))
	}
	if longRuns >= minSpacedRuns && longRuns*spacedWords >= len(words) {
		flags = append(flags, spaced.flag(LetterSpaced, "words written with spaces between their letters"))
	}
	return Merge(flags, nil)
}

// finding accumulates one kind's count and spans.
type finding struct {
	count int
	spans []Span
}

func (f *finding) add(n int, s Span) {
	f.count += n
	if len(f.spans) < MaxSpans {
		f.spans = append(f.spans, s)
	}
}

func (f *finding) merge(g finding) {
	f.count += g.count
	f.spans = append(f.spans, g.spans...)
	sort.Slice(f.spans, func(i, j int) bool { return f.spans[i].Start < f.spans[j].Start })
	if len(f.spans) > MaxSpans {
		f.spans = f.spans[:MaxSpans]
	}
}

func (f finding) flag(k Kind, detail string) Flag {
	return Flag{Kind: k, Count: f.count, Spans: f.spans, Detail: detail}
}

func joinKeys(m map[string]bool) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}

// scanWords returns the words of text as package invindex's tokenizer finds
// them before joining letter-spaced runs: maximal runs of letters, numbers
// and marks, with the invisible characters between two of them inside.
func scanWords(text string) []Span {
	ws := make([]Span, 0, len(text)/6+1) // about one word in six bytes of prose
	start := -1
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf {
			// ASCII, most of most texts: a letter or digit, or a separator.
			if asciiWordByte(c) {
				if start < 0 {
					start = i
				}
			} else if start >= 0 {
				ws = append(ws, Span{start, i})
				start = -1
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if wordRune(r) {
			if start < 0 {
				start = i
			}
			i += size
			continue
		}
		if start >= 0 && IsInvisible(r) {
			j := i + size
			for j < len(text) {
				r2, s2 := utf8.DecodeRuneInString(text[j:])
				if !IsInvisible(r2) {
					break
				}
				j += s2
			}
			if r2, _ := utf8.DecodeRuneInString(text[j:]); j < len(text) && wordRune(r2) {
				i = j
				continue
			}
		}
		if start >= 0 {
			ws = append(ws, Span{start, i})
			start = -1
		}
		i += size
	}
	if start >= 0 {
		ws = append(ws, Span{start, len(text)})
	}
	return ws
}

func wordRune(r rune) bool {
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r))
}

// letterBounds returns the byte offsets of the first and last letter or
// number of word (-1, -1 if it has none).
func letterBounds(word string) (first, last int) {
	first, last = -1, -1
	for i, r := range word {
		if unicode.IsLetter(r) || unicode.IsNumber(r) {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	return first, last
}

// casedWord reports whether every letter of word belongs to a script with
// case (Latin, Greek, Cyrillic, Armenian, ...).
func casedWord(word string) bool {
	for _, r := range word {
		if unicode.IsLetter(r) && !unicode.IsUpper(r) && !unicode.IsLower(r) && !unicode.IsTitle(r) {
			return false
		}
	}
	return true
}

// scriptOf names the script of letter r among those with look-alikes of
// Latin letters, or "" for others.
func scriptOf(r rune) string {
	switch {
	case r < utf8.RuneSelf || unicode.Is(unicode.Latin, r):
		return "Latin"
	case unicode.Is(unicode.Cyrillic, r):
		return "Cyrillic"
	case unicode.Is(unicode.Greek, r):
		return "Greek"
	case unicode.Is(unicode.Armenian, r):
		return "Armenian"
	case unicode.Is(unicode.Cherokee, r):
		return "Cherokee"
	}
	return "other"
}

// dominantScript is the script most letters of text are in (a sample of
// its first letters).
func dominantScript(text string) string {
	counts := map[string]int{}
	n, latin := 0, 0
	for _, r := range text {
		if r < utf8.RuneSelf {
			if r|0x20 >= 'a' && r|0x20 <= 'z' {
				latin++
				if n++; n == 20000 {
					break
				}
			}
			continue
		}
		if !unicode.IsLetter(r) {
			continue
		}
		counts[scriptOf(r)]++
		if n++; n == 20000 {
			break
		}
	}
	if latin > 0 {
		counts["Latin"] += latin
	}
	best, bestN := "", 0
	for s, c := range counts {
		if c > bestN || c == bestN && s < best {
			best, bestN = s, c
		}
	}
	return best
}

// lookAlikes counts the look-alike letters of another script in word (see
// Scan) and names their scripts.
func lookAlikes(word, dominant string, whole bool) (int, []string) {
	if isASCII(word) {
		return 0, nil // Latin letters only (the counting below says so, at a map per word)
	}
	counts := map[string]int{}
	letters := 0
	for _, r := range word {
		if unicode.IsLetter(r) {
			counts[scriptOf(r)]++
			letters++
		}
	}
	if letters == 0 {
		return 0, nil
	}
	if len(counts) == 1 {
		// One script: a whole-word look-alike in Latin text?
		for s := range counts {
			if s == "Latin" || !whole {
				return 0, nil
			}
			for _, r := range word {
				if unicode.IsLetter(r) && !hasPrototype(r) {
					return 0, nil
				}
			}
			return letters, []string{s}
		}
	}
	// The word's own script: the text's if the word has letters of it
	// (an English word with most letters replaced is still English), else
	// the word's most frequent.
	major, majorN := dominant, counts[dominant]
	if majorN == 0 {
		for s, c := range counts {
			if c > majorN || c == majorN && s < major {
				major, majorN = s, c
			}
		}
	}
	n := 0
	scripts := map[string]bool{}
	for _, r := range word {
		if !unicode.IsLetter(r) {
			continue
		}
		s := scriptOf(r)
		if s == major {
			continue
		}
		// A Latin letter in a word of another script is one (every Latin
		// letter is its own prototype); another letter is if it looks like
		// a Latin one.
		if s == "Latin" && r < utf8.RuneSelf || hasPrototype(r) {
			n++
			scripts[s] = true
		}
	}
	var names []string
	for s := range scripts {
		names = append(names, s)
	}
	return n, names
}

// latinWord reports whether word reads as Latin: it has an ASCII letter,
// and its other letters are Latin or look like Latin letters.
func latinWord(word string) bool {
	ascii := false
	for _, r := range word {
		switch {
		case r < utf8.RuneSelf:
			ascii = ascii || unicode.IsLetter(r)
		case unicode.IsLetter(r) && scriptOf(r) != "Latin" && !hasPrototype(r):
			return false
		}
	}
	return ascii
}

// hasPrototype reports whether the letter r, in any case, looks like Latin
// letters.
func hasPrototype(r rune) bool {
	_, ok := Prototype(unicode.ToLower(r))
	if !ok {
		_, ok = Prototype(unicode.SimpleFold(r))
	}
	return ok
}

// invisibleName names the kind of invisible character r for a flag's detail.
func invisibleName(r rune) string {
	switch {
	case r == 0x200B:
		return "zero-width spaces"
	case r == 0x200C || r == 0x200D:
		return "zero-width joiners"
	case r == 0x2060 || r == 0xFEFF:
		return "word joiners"
	case 0x200E <= r && r <= 0x200F, 0x202A <= r && r <= 0x202E, 0x2066 <= r && r <= 0x2069, r == 0x61C:
		return "bidirectional controls"
	case 0xFE00 <= r && r <= 0xFE0F, 0xE0100 <= r && r <= 0xE01EF, 0x180B <= r && r <= 0x180D:
		return "variation selectors"
	}
	return "invisible format characters"
}

// isASCII reports whether s holds only ASCII bytes.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// asciiWordByte reports whether an ASCII byte belongs to a word (wordRune
// for ASCII: a letter or a digit).
func asciiWordByte(c byte) bool {
	return c|0x20 >= 'a' && c|0x20 <= 'z' || c >= '0' && c <= '9'
}
