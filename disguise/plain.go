package disguise

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Plain returns text with the disguises Scan finds undone, for the
// tokenisations that work on the words themselves rather than on hashes
// (package related stems them): invisible characters inside words are
// dropped, the letters of letter-spaced words are put together (SpacedRuns),
// and the look-alike letters Scan counts as Confusable become their ASCII
// prototype (Prototype) — the minority letters of a word of the text's
// dominant script Latin, and whole look-alike words between Latin words.
//
// Unlike package invindex, which maps every look-alike whatever its word
// (its hashes only need to agree), Plain leaves genuine Cyrillic and Greek
// words alone, so that their language is still recognised and their stems
// found. A text with nothing to undo is returned as it is, without a copy.
func Plain(text string) string {
	if !maybeDisguised(text) {
		return text
	}
	return plain(text)
}

// plain is Plain without the quick test.
func plain(text string) string {
	words := scanWords(text)
	if len(words) == 0 {
		return text
	}
	dominant := dominantScript(text)
	// joined[k]: word k and word k+1 are letters of one spaced word.
	joined := make([]bool, len(words))
	var letters []byte
	var ends []int
	SpacedRuns(text, len(words), func(i int) (int, int) { return words[i].Start, words[i].End }, func(i, n int) {
		for k := i; k < i+n-1; k++ {
			joined[k] = true
		}
		// A run whose words were as far apart as its letters keeps one
		// space between the words SpacedWords finds.
		letters = letters[:0]
		for k := i; k < i+n; k++ {
			c, ok := runLetter(text[words[k].Start:words[k].End])
			if !ok {
				return
			}
			letters = append(letters, c)
		}
		before, after := text[:words[i].Start], text[words[i+n-1].End:]
		if i > 0 {
			before = text[words[i-1].End:words[i].Start]
		}
		if i+n < len(words) {
			after = text[words[i+n-1].End:words[i+n].Start]
		}
		ends = SpacedWords(string(letters), before, after, ends)
		for _, e := range ends[:len(ends)-min(len(ends), 1)] {
			joined[i+e-1] = false
		}
	})
	var sb strings.Builder
	sb.Grow(len(text))
	sb.WriteString(text[:words[0].Start])
	for k, w := range words {
		var prev, next string
		if k > 0 {
			prev = text[words[k-1].Start:words[k-1].End]
		}
		if k+1 < len(words) {
			next = text[words[k+1].Start:words[k+1].End]
		}
		whole := dominant == "Latin" && prev != "" && next != "" && latinWord(prev) && latinWord(next)
		writePlainWord(&sb, text[w.Start:w.End], dominant, whole)
		end := len(text)
		if k+1 < len(words) {
			end = words[k+1].Start
		}
		if !joined[k] {
			sb.WriteString(text[w.End:end])
		}
	}
	return sb.String()
}

// Dominant is the script most letters of text are in ("Latin", "Cyrillic",
// "Greek", ...), as Plain decides which look-alikes to map.
func Dominant(text string) string { return dominantScript(text) }

// PlainWord is what Plain makes of word, a word of a text whose dominant
// script is dominant (Dominant), between the words prev and next ("" at
// either end): its invisible characters dropped and its look-alike letters
// mapped to their ASCII prototypes where Plain maps them, and also in
// every word that mixes ASCII letters with look-alikes or stands between
// two such words. For callers that keep the offsets of the text as
// written and take its words one by one (package related's terms of a
// report's words). Letter-spaced words are the caller's: a tokenizer that
// joins them gives them here whole.
func PlainWord(word, dominant, prev, next string) string {
	if isASCII(word) {
		return word
	}
	// A word mixing ASCII letters with others is no Cyrillic or Greek
	// word but a Latin one with look-alikes, and so is a word of
	// look-alikes between two words with ASCII letters, even where the
	// look-alikes make up most of the text's letters.
	latin := func(w string) bool { return w != "" && (latinWord(w) || hasASCIILetter(w)) }
	whole := latin(prev) && latin(next)
	if hasASCIILetter(word) || whole {
		dominant = "Latin"
	}
	var sb strings.Builder
	sb.Grow(len(word))
	writePlainWord(&sb, word, dominant, whole)
	return sb.String()
}

func hasASCIILetter(word string) bool {
	for i := 0; i < len(word); i++ {
		if c := word[i] | 0x20; 'a' <= c && c <= 'z' {
			return true
		}
	}
	return false
}

// writePlainWord writes word as Plain writes it in a text of the dominant
// script, whole when the word stands between two Latin words.
func writePlainWord(sb *strings.Builder, word, dominant string, whole bool) {
	mapLookAlikes := false
	if n, _ := lookAlikes(word, dominant, whole); n > 0 && (dominant == "Latin" || whole) {
		mapLookAlikes = true
	}
	for _, r := range word {
		if IsInvisible(r) {
			continue
		}
		if mapLookAlikes && scriptOf(r) != "Latin" {
			p, ok := CapitalPrototype(r) // "Ν" as "N", not as its fold "ν"
			if !ok {
				p, ok = Prototype(unicode.ToLower(r))
			}
			if ok {
				if unicode.IsUpper(r) {
					p = strings.ToUpper(p)
				}
				sb.WriteString(p)
				continue
			}
		}
		sb.WriteRune(r)
	}
}

// MaybeDisguised is Plain's quick test: a rune other than a letter of
// Latin script (an invisible character, a look-alike) or a run of
// MinSpacedRun single letters one space apart. False means Plain(text) is
// text: Plain joins letter-spaced runs of MinSpacedRun letters or more, and
// runs of two only next to such a run (SpacedRuns). Two alone are common
// in English ("it's a" has "s a"); an earlier test that took any two for a
// run sent 61 % of the realistic synthetic documents through Plain's every
// step for nothing, and missed runs of accented letters ("é t é"), which
// it read as no letters at all.
func MaybeDisguised(text string) bool { return maybeDisguised(text) }

func maybeDisguised(text string) bool {
	// ASCII first, the most of any archive: a run of MinSpacedRun (3)
	// single letters one space apart is, in ASCII, a letter between two
	// spaces whose neighbours beyond them are single letters too. Eight
	// bytes at a time: a window with a byte above ASCII goes to the byte
	// loop below (which hands the text to the word-by-word walk), a window
	// with two spaces two apart is looked at byte by byte, and the rest,
	// nearly all of a text, is passed by a few arithmetic operations.
	const (
		high   = 0x8080808080808080
		low7   = 0x7f7f7f7f7f7f7f7f
		spaces = 0x2020202020202020
		first6 = 0x0000808080808080 // bytes 0-5, where two spaces two apart can start in the window
	)
	i := 0
	for ; i+8 <= len(text); i += 6 {
		w := uint64(text[i]) | uint64(text[i+1])<<8 | uint64(text[i+2])<<16 | uint64(text[i+3])<<24 |
			uint64(text[i+4])<<32 | uint64(text[i+5])<<40 | uint64(text[i+6])<<48 | uint64(text[i+7])<<56
		if w&high != 0 {
			break
		}
		x := w ^ spaces
		sp := ^((x&low7 + low7) | x) & high // bit 7 of each byte that is a space
		if sp&(sp>>16)&first6 == 0 {
			continue
		}
		for p := i; p < i+6; p++ {
			if disguised, runes := spacedAt(text, p); runes {
				return maybeDisguisedRunes(text)
			} else if disguised {
				return true
			}
		}
	}
	for ; i < len(text); i++ {
		if text[i] >= utf8.RuneSelf {
			return maybeDisguisedRunes(text)
		}
		if disguised, runes := spacedAt(text, i); runes {
			return maybeDisguisedRunes(text)
		} else if disguised {
			return true
		}
	}
	return false
}

// spacedAt reports whether the ASCII text up to i+2 has, from i, a space,
// a single letter and a space, with single letters before and after them:
// a run of three. runes is true when that depends on a byte above ASCII,
// which only the word-by-word walk can judge.
func spacedAt(text string, i int) (disguised, runes bool) {
	if text[i] != ' ' || i+2 >= len(text) || text[i+2] != ' ' || !alnum(text[i+1]) {
		return false, false
	}
	if i+4 < len(text) && text[i+4] >= utf8.RuneSelf {
		return false, true
	}
	left := i >= 1 && alnum(text[i-1]) && (i < 2 || !alnum(text[i-2]))
	right := i+3 < len(text) && alnum(text[i+3]) && (i+4 == len(text) || !alnum(text[i+4]))
	return left && right, false
}

// maybeDisguisedRunes is maybeDisguised for any text, word by word.
func maybeDisguisedRunes(text string) bool {
	// Words as scanWords finds them; a word is taken for a single letter
	// (SingleLetter) when it has one letter or number, marks aside: more
	// than SingleLetter takes, never less.
	run := 0      // single letters in a row, one space apart, before the current word
	letters := -1 // letters and numbers of the current word; -1: between words
	gap := 0      // bytes since the last word ended
	for i := 0; i < len(text); {
		c := text[i]
		size := 1
		var word, letter bool
		if c < utf8.RuneSelf {
			word = alnum(c)
			letter = word
		} else {
			r, n := utf8.DecodeRuneInString(text[i:])
			if IsInvisible(r) || IsSpaceLike(r) || unicode.IsLetter(r) && !unicode.Is(unicode.Latin, r) {
				return true
			}
			size = n
			word = wordRune(r)
			letter = word && !unicode.IsMark(r)
		}
		switch {
		case word && letters < 0: // a word starts
			if gap != 1 || text[i-1] != ' ' { // not one space after the last word
				run = 0
			}
			letters = 0
		case !word && letters >= 0: // a word ends
			if run = nextRun(run, letters); run >= MinSpacedRun {
				return true
			}
			letters, gap = -1, 0
		}
		if word {
			if letter {
				letters++
			}
		} else {
			gap += size
		}
		i += size
	}
	return letters >= 0 && nextRun(run, letters) >= MinSpacedRun
}

// nextRun is the run of single letters after a word of that many letters
// ends, the run before it being run.
func nextRun(run, letters int) int {
	if letters == 1 {
		return run + 1
	}
	return 0
}

func alnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// runLetter returns the letter of a letter-spaced run's word w as
// SpacedWords takes it: a lower-case ASCII letter or digit, a look-alike as
// its prototype; ok is false for any other letter (and for invisible
// characters around it, which Plain's words may keep).
func runLetter(w string) (byte, bool) {
	if len(w) == 1 && alnum(w[0]) {
		return w[0] | 0x20, true // lower case; digits have the bit already
	}
	var out byte
	n := 0
	for _, r := range w {
		if IsInvisible(r) {
			continue
		}
		p, ok := CapitalPrototype(r)
		if !ok {
			p, ok = Prototype(unicode.ToLower(r))
		}
		if n++; !ok || len(p) != 1 || n > 1 {
			return 0, false
		}
		out = p[0]
	}
	return out, n == 1
}
