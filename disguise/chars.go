package disguise

//go:generate go run ./internal/protogen

import (
	"sort"
)

// prototype is one entry of the generated table.
type prototype struct {
	r rune
	p string
}

// Prototype returns the ASCII letters (lower case) that the letter r looks
// like, following Unicode TR39's confusables data: "a" for Cyrillic "а" and
// Greek "α", "b" for Cyrillic "в" (whose capital looks like "B"). r must be
// case-folded and in NFKC, as a tokenizer's normalised word is; ASCII
// letters and letters that look like no ASCII letter (Czech "ř", German
// "ß", most of Cyrillic and Greek) have none.
//
// It is context-free, a skeleton in the sense of TR39 restricted to
// letters: a look-alike always maps to its prototype, whatever script the
// rest of its word is in. A Latin word with Cyrillic letters then hashes as
// the Latin word, a Russian word with Latin letters as the Russian word, and
// genuine Russian or Greek words still hash alike with each other (all
// their case forms fold to one rune before the mapping). Two genuine words
// of one script that differ only in letters with the same prototype would
// collide; such pairs are rare and cost at most a chance chunk.
func Prototype(r rune) (string, bool) {
	if r < 0x80 {
		return "", false
	}
	i := sort.Search(len(prototypes), func(i int) bool { return prototypes[i].r >= r })
	if i < len(prototypes) && prototypes[i].r == r {
		return prototypes[i].p, true
	}
	return "", false
}

// CapitalPrototype returns the ASCII letters (lower case) that the
// upper-case letter r, as written, looks like, when they differ from its
// case fold's Prototype: "n" for Greek capital "Ν" (whose fold "ν" looks
// like "v"), "y" for "Υ" (whose fold "υ" looks like "u"). Other letters have
// none: their capital and small forms have one prototype, or none.
//
// Prototype alone cannot tell "No" written with a Greek capital from "vo":
// both fold to "νο". A genuine Greek word must hash alike in capitals and in
// small letters, so the capital's own look may only be used where the word
// is known to be Latin: package invindex decides that from the word's
// letters and its neighbours (TR39's mixed-script idea, "Unicode Security
// Mechanisms", Davis and Suignard), Plain from the text's dominant script.
func CapitalPrototype(r rune) (string, bool) {
	if r < 0x80 {
		return "", false
	}
	for _, c := range capitals {
		if c.r == r {
			return c.p, true
		}
	}
	return "", false
}

// IsInvisible reports whether r is a character a reader does not see inside a
// word: the format characters used to hide text from a checker (soft hyphen
// U+00AD, zero-width space U+200B, zero-width non-joiner and joiner
// U+200C-U+200D, left-to-right and right-to-left marks U+200E-U+200F, the
// bidirectional embeddings and overrides U+202A-U+202E and isolates
// U+2066-U+2069, word joiner and invisible operators U+2060-U+2064, the
// Arabic letter mark U+061C, the Mongolian vowel separator U+180E, the
// byte-order mark U+FEFF, tags U+E0000-U+E007F) and the variation
// selectors (U+180B-U+180D, U+FE00-U+FE0F, U+E0100-U+E01EF) and combining
// grapheme joiner (U+034F), which change nothing a reader of plain text
// sees. Inside a word a tokenizer skips them; between words they separate
// like any other non-letter.
func IsInvisible(r rune) bool {
	switch {
	case r < 0xAD:
		return false
	case r == 0xAD, r == 0x34F, r == 0x61C, 0x180B <= r && r <= 0x180E,
		0x200B <= r && r <= 0x200F, 0x202A <= r && r <= 0x202E,
		0x2060 <= r && r <= 0x2064, 0x2066 <= r && r <= 0x2069,
		0xFE00 <= r && r <= 0xFE0F, r == 0xFEFF,
		0xE0000 <= r && r <= 0xE007F, 0xE0100 <= r && r <= 0xE01EF:
		return true
	}
	return false
}

// IsSpaceLike reports whether r is a single space between the letters of a
// letter-spaced word: the space, no-break space, and the fixed-width spaces
// U+2000-U+200A and U+202F (narrow no-break space) that typesetting uses to
// space letters.
func IsSpaceLike(r rune) bool {
	return r == ' ' || r == 0xA0 || 0x2000 <= r && r <= 0x200A || r == 0x202F
}
