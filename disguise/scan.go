package disguise

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Scan finds the disguises a text carries in its characters and returns
// them as flags, one per kind, with byte spans into text. It finds
// invisible characters: zero-width spaces and word joiners anywhere, soft
// hyphens and zero-width joiners between two letters of a word, and
// bidirectional controls, which reorder what a reader sees without
// changing what a checker reads.
//
// Joiners are flagged only between letters of scripts that never need them
// (Latin, Cyrillic, Greek): Arabic and Indic writing uses them on purpose.
// A run of adjacent invisible characters is one span; Count counts the
// characters.
func Scan(text string) []Flag {
	var (
		count int
		spans []Span
		names = map[rune]int{}
		open  = -1 // start of the span being built, or -1
		end   int
	)
	for i, r := range text {
		if !invisible(text, i, r) {
			continue
		}
		count++
		names[r]++
		size := utf8.RuneLen(r)
		switch {
		case open >= 0 && i == end:
			end = i + size
		default:
			if open >= 0 && len(spans) < MaxSpans {
				spans = append(spans, Span{open, end})
			}
			open, end = i, i+size
		}
	}
	if count == 0 {
		return nil
	}
	if len(spans) < MaxSpans {
		spans = append(spans, Span{open, end})
	}
	return []Flag{{Kind: Invisible, Count: count, Spans: spans, Detail: invisibleDetail(names)}}
}

// invisible reports whether r, at byte i of text, is an invisible
// character that hides a word from a checker.
func invisible(text string, i int, r rune) bool {
	switch {
	case r == '\u200b', r == '\u2060', r == '\ufeff': // zero-width space, word joiner, zero-width no-break space
		return true
	case r == '\u00ad': // soft hyphen: inside a word only (hyphenation hints at its edges do no harm)
		return letterBefore(text, i, unicode.IsLetter) && letterAfter(text, i+utf8.RuneLen(r), unicode.IsLetter)
	case r == '\u200c', r == '\u200d': // zero-width non-joiner and joiner
		return letterBefore(text, i, joinerFree) && letterAfter(text, i+utf8.RuneLen(r), joinerFree)
	case bidi(r):
		return true
	}
	return false
}

// bidi reports the bidirectional formatting characters: marks, embeddings,
// overrides and isolates (Unicode Standard Annex #9, "Unicode Bidirectional
// Algorithm").
func bidi(r rune) bool {
	return r == '\u200e' || r == '\u200f' || r == '\u061c' ||
		r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069'
}

// joinerFree are the letters of scripts that have no use for joiners.
func joinerFree(r rune) bool {
	return unicode.In(r, unicode.Latin, unicode.Cyrillic, unicode.Greek)
}

// letterBefore reports whether the rune before byte i, skipping other
// invisible characters, satisfies ok.
func letterBefore(text string, i int, ok func(rune) bool) bool {
	for i > 0 {
		r, n := utf8.DecodeLastRuneInString(text[:i])
		if !hidden(r) {
			return ok(r)
		}
		i -= n
	}
	return false
}

// letterAfter reports whether the rune at byte i, skipping other invisible
// characters, satisfies ok.
func letterAfter(text string, i int, ok func(rune) bool) bool {
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !hidden(r) {
			return ok(r)
		}
		i += n
	}
	return false
}

// hidden are the characters Scan may flag, whatever their neighbours.
func hidden(r rune) bool {
	return r == '\u200b' || r == '\u2060' || r == '\ufeff' || r == '\u00ad' || r == '\u200c' || r == '\u200d' || bidi(r)
}

// invisibleDetail says which invisible characters were found, the most
// frequent first: "zero-width space ×412, soft hyphen ×3".
func invisibleDetail(names map[rune]int) string {
	type named struct {
		name string
		n    int
	}
	by := map[string]int{}
	for r, n := range names {
		by[invisibleName(r)] += n
	}
	list := make([]named, 0, len(by))
	for name, n := range by {
		list = append(list, named{name, n})
	}
	// Most frequent first, then by name: the detail is stored, so it must
	// not depend on map order.
	for i := 1; i < len(list); i++ {
		for j := i; j > 0 && (list[j].n > list[j-1].n || list[j].n == list[j-1].n && list[j].name < list[j-1].name); j-- {
			list[j], list[j-1] = list[j-1], list[j]
		}
	}
	parts := make([]string, len(list))
	for i, x := range list {
		parts[i] = fmt.Sprintf("%s ×%d", x.name, x.n)
	}
	return "invisible characters: " + strings.Join(parts, ", ")
}

func invisibleName(r rune) string {
	switch r {
	case '\u200b':
		return "zero-width space"
	case '\u2060':
		return "word joiner"
	case '\ufeff':
		return "zero-width no-break space"
	case '\u00ad':
		return "soft hyphen"
	case '\u200c':
		return "zero-width non-joiner"
	case '\u200d':
		return "zero-width joiner"
	}
	return "bidirectional control"
}
