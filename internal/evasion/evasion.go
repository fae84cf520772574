package evasion

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Variant is one disguise: Apply rewrites a clean text as the disguised one.
// It is deterministic for a given r.
type Variant struct {
	Name  string
	Apply func(text string, r *rand.Rand) string
}

// cyrillic maps the Latin letters with a Cyrillic twin to it.
var cyrillic = map[rune]rune{
	'a': 'а', 'e': 'е', 'o': 'о', 'c': 'с', 'p': 'р', 'x': 'х', 'y': 'у', 'i': 'і', 's': 'ѕ', 'j': 'ј',
	'A': 'А', 'B': 'В', 'E': 'Е', 'K': 'К', 'M': 'М', 'H': 'Н', 'O': 'О', 'P': 'Р', 'C': 'С', 'T': 'Т', 'X': 'Х',
}

// greek maps Latin letters with a Greek twin to it.
var greek = map[rune]rune{
	'o': 'ο', 'v': 'ν', 'i': 'ι', 'u': 'υ', 'p': 'ρ', 'y': 'γ', 'k': 'κ',
	'A': 'Α', 'B': 'Β', 'E': 'Ε', 'Z': 'Ζ', 'H': 'Η', 'I': 'Ι', 'K': 'Κ', 'M': 'Μ', 'N': 'Ν', 'O': 'Ο', 'P': 'Ρ', 'T': 'Τ', 'X': 'Χ', 'Y': 'Υ',
}

// replace maps every letter of text in only (all of m when only is "")
// through m.
func replace(m map[rune]rune, only string) func(string, *rand.Rand) string {
	return func(text string, _ *rand.Rand) string {
		return strings.Map(func(r rune) rune {
			if t, ok := m[r]; ok && (only == "" || strings.ContainsRune(only, r)) {
				return t
			}
			return r
		}, text)
	}
}

// between puts sep between letters of words, each gap with probability p.
func between(sep string, p float64) func(string, *rand.Rand) string {
	return func(text string, r *rand.Rand) string {
		var sb strings.Builder
		prev := false
		for _, c := range text {
			l := unicode.IsLetter(c)
			if l && prev && r.Float64() < p {
				sb.WriteString(sep)
			}
			sb.WriteRune(c)
			prev = l
		}
		return sb.String()
	}
}

// spaceSentences letter-spaces a share of the sentences: letters one space
// apart, words sep apart.
func spaceSentences(sep string, share float64) func(string, *rand.Rand) string {
	return func(text string, r *rand.Rand) string {
		var sb strings.Builder
		for _, s := range sentences(text) {
			if r.Float64() >= share {
				sb.WriteString(s)
				continue
			}
			words := strings.Fields(s)
			for i, w := range words {
				if i > 0 {
					sb.WriteString(sep)
				}
				sb.WriteString(strings.Join(strings.Split(w, ""), " "))
			}
			sb.WriteString(" ")
		}
		return sb.String()
	}
}

// sentences splits text after each ". " (keeping it with its sentence).
func sentences(text string) []string {
	var out []string
	for {
		i := strings.Index(text, ". ")
		if i < 0 {
			return append(out, text)
		}
		out = append(out, text[:i+2])
		text = text[i+2:]
	}
}

// chain applies fs in order.
func chain(fs ...func(string, *rand.Rand) string) func(string, *rand.Rand) string {
	return func(text string, r *rand.Rand) string {
		for _, f := range fs {
			text = f(text, r)
		}
		return text
	}
}

// Variants is the evasion set, in the order docs/QUALITY.md lists it. Each
// must be found at the clean copy's similarity (see Expected for the
// coverage of a disguise that adds characters).
func Variants() []Variant {
	return []Variant{
		{"cyrillic a e o c p x", replace(cyrillic, "aeocpx")},
		{"cyrillic a o (subset)", replace(cyrillic, "ao")},
		{"cyrillic all twins, capitals too", replace(cyrillic, "")},
		{GreekCapitals, replace(greek, "")},
		{"zero-width space between letters", between("\u200B", 1)},
		{"zero-width non-joiner/joiner", chain(between("\u200C", 0.5), between("\u200D", 0.5))},
		{"soft hyphens inside words", between("\u00AD", 0.4)},
		{"word joiner", between("\u2060", 0.5)},
		{"bidi controls (LRM, RLO+PDF)", chain(between("\u200E", 0.3), between("\u202E\u202C", 0.2))},
		{"letter-spaced sentences, \" \".join", spaceSentences("   ", 0.3)},
		{LetterSpacedSingle, spaceSentences(" ", 0.3)},
		{"mixed: cyrillic + zero-width + soft hyphen", chain(replace(cyrillic, "aeo"), between("\u200B", 0.3), between("\u00AD", 0.2))},
	}
}

// GreekCapitals names the Greek variant, which replaces capital N by Greek
// capital Ν: its case fold ν looks like "v" (disguise.Prototype), its own
// look "N" (disguise.CapitalPrototype), so the tokenizer must read "Νο" as
// "No", not "vo", from the Latin words around it.
const GreekCapitals = "greek look-alikes (capital N included)"

// LetterSpacedSingle names the variant whose words are one space apart like
// its letters: the tokenizer must cut each run into its words
// (disguise.SpacedWords).
const LetterSpacedSingle = "letter-spaced sentences, single spaces"

// Essay returns a clean essay that copies from sources: own paragraphs
// alternate with copied ones (each a run of sentences of a source), so that
// about share of its characters are copied. The copies are verbatim.
func Essay(own string, sources []string, share float64, r *rand.Rand) string {
	ownS := sentences(squash(own))
	var srcS [][]string
	for _, s := range sources {
		srcS = append(srcS, sentences(squash(s)))
	}
	var sb strings.Builder
	copied, total := 0, 0
	oi := 0
	for oi < len(ownS) && total < 12000 {
		if total > 0 && float64(copied) < share*float64(total) {
			ss := srcS[r.IntN(len(srcS))]
			start := r.IntN(max(len(ss)-8, 1))
			for _, s := range ss[start:min(start+4+r.IntN(4), len(ss))] {
				sb.WriteString(s)
				copied += utf8.RuneCountInString(s)
				total += utf8.RuneCountInString(s)
			}
			continue
		}
		sb.WriteString(ownS[oi])
		total += utf8.RuneCountInString(ownS[oi])
		oi++
	}
	return sb.String()
}

// squash folds all white space to single spaces.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") + " " }

// Case is the evasion set's archive and clean essay.
type Case struct {
	// Sources are copied from; Others are in the archive and not copied.
	Sources, Others []string
	// Essay copies about 44 % of its characters from Sources; the rest is
	// another text's.
	Essay string
}

// LicenceDir holds the licence texts every Debian system ships (package
// base-files): free English prose on related topics, so that chance
// matches between them exist.
const LicenceDir = "/usr/share/common-licenses"

// LicenceCase builds the Case from the licence texts in dir: GPL-3 and
// Apache-2.0 are the sources, MPL-2.0 the writer's own prose, LGPL-2.1,
// Artistic and BSD the rest of the archive.
func LicenceCase(dir string) (Case, error) {
	read := func(name string) (string, error) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		return string(b), err
	}
	var c Case
	var texts [6]string
	for i, name := range []string{"GPL-3", "Apache-2.0", "MPL-2.0", "LGPL-2.1", "Artistic", "BSD"} {
		s, err := read(name)
		if err != nil {
			return Case{}, err
		}
		texts[i] = s
	}
	c.Sources = texts[:2]
	c.Others = texts[3:]
	c.Essay = Essay(texts[2], c.Sources, 0.44, rand.New(rand.NewPCG(18, 3)))
	return c, nil
}
