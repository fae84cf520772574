package extract

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file cleans what the layout rebuilt: typographic ligatures and
// spaces, words hyphenated at line ends, and the running headers, footers
// and page numbers that would otherwise repeat through the text (and make
// every thesis of a faculty look alike).

// glyphReplacer expands the characters PDFs draw for typesetting reasons.
// Ligatures are expanded here, before the layout spaces words, rather than
// left to NFKC later: one glyph "ﬁ" must count as the two letters of one
// word. Space-like characters become plain spaces so they separate words;
// U+FFFD (a glyph without a Unicode mapping) is dropped and counted by the
// caller.
var glyphReplacer = strings.NewReplacer(
	"\ufb00", "ff", "\ufb01", "fi", "\ufb02", "fl", "\ufb03", "ffi", "\ufb04", "ffl",
	"\ufb05", "st", "\ufb06", "st",
	"\u00a0", " ", "\u2000", " ", "\u2001", " ", "\u2002", " ", "\u2003", " ",
	"\u2004", " ", "\u2005", " ", "\u2006", " ", "\u2007", " ", "\u2008", " ",
	"\u2009", " ", "\u200a", " ", "\u200b", " ", "\u202f", " ", "\u205f", " ", "\u3000", " ",
	"\u2010", "-", "\u2011", "-",
	"\ufffd", "",
)

// cleanGlyph maps one glyph's text; see glyphReplacer.
func cleanGlyph(s string) string {
	for _, r := range s {
		if r < 0xa0 {
			continue
		}
		return glyphReplacer.Replace(s)
	}
	return s
}

const softHyphen = "\u00ad"

// joinHyphenated joins words split at line ends: "infor-" followed by a line
// starting "mation" becomes "information". It applies only when the hyphen
// follows a letter and the next line, in the same paragraph or the next
// column or page, starts with a lower-case letter, so "Jan Novák -" and
// "2020-" before "2021" stay.
//
// A compound broken at its own hyphen ("word-" / "level") looks the same.
// Without a dictionary the document itself is asked: if it spells the
// compound with a hyphen elsewhere and never without, the hyphen is kept
// ("word-level"); otherwise the word is joined, which is what hyphenating
// typesetters (LaTeX, groff, InDesign) need. (Asking whether both halves are
// words of their own was tried: it splits Czech "ne-musí" and repeated
// fragments, so a compound broken once at its own hyphen stays joined.) Czech typesetting repeats the
// hyphen of a broken compound on the next line ("česko-" / "-slovenský");
// that one is kept once. A soft hyphen at a line end always joins. Soft
// hyphens inside lines are invisible and removed.
func joinHyphenated(lines []textLine) []textLine {
	vocab := vocabulary(lines)
	out := make([]textLine, 0, len(lines))
	for _, l := range lines {
		if n := len(out); n > 0 && l.before != breakPara {
			prev := &out[n-1]
			if joined, ok := joinPair(prev.text, l.text, vocab); ok {
				// The completed word moves up; the rest of the next line
				// stays a line of its own, as printed.
				prev.text, l.text = splitAfterWord(joined, len(prev.text))
				if l.text == "" {
					continue
				}
				l.before = breakLine
			}
		}
		out = append(out, l)
	}
	for i := range out {
		out[i].text = strings.ReplaceAll(out[i].text, softHyphen, "")
	}
	return out
}

// splitAfterWord cuts s at the first space at or after byte i.
func splitAfterWord(s string, i int) (string, string) {
	i = min(max(i-1, 0), len(s))
	j := strings.IndexByte(s[i:], ' ')
	if j < 0 {
		return s, ""
	}
	return s[:i+j], strings.TrimLeft(s[i+j:], " ")
}

// vocabulary counts the lower-cased words of the lines, hyphenated
// compounds as one word, for joinPair's question "does the document spell
// it this way elsewhere?".
func vocabulary(lines []textLine) map[string]int {
	v := map[string]int{}
	for _, l := range lines {
		for _, w := range strings.Fields(l.text) {
			if w = trimWord(w); w != "" {
				v[strings.ToLower(w)]++
			}
		}
	}
	return v
}

// trimWord strips the punctuation around a word, keeping inner hyphens.
func trimWord(w string) string {
	return strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// joinPair joins two lines if the first ends with a word broken by a hyphen.
func joinPair(a, b string, vocab map[string]int) (string, bool) {
	a = strings.TrimRight(a, " ")
	b = strings.TrimLeft(b, " ")
	first, _ := utf8.DecodeRuneInString(b)
	switch {
	case strings.HasSuffix(a, softHyphen):
		if unicode.IsLetter(first) {
			return strings.TrimSuffix(a, softHyphen) + b, true
		}
	case strings.HasSuffix(a, "-"):
		before, _ := utf8.DecodeLastRuneInString(a[:len(a)-1])
		if !unicode.IsLetter(before) {
			return "", false
		}
		if unicode.IsLower(first) {
			head := a[strings.LastIndexByte(a, ' ')+1 : len(a)-1]
			tail, _, _ := strings.Cut(b, " ")
			head, tail = strings.ToLower(trimWord(head)), strings.ToLower(trimWord(tail))
			if vocab[head+"-"+tail] > 0 && vocab[head+tail] == 0 {
				return a + b, true // a compound: keep its hyphen
			}
			return a[:len(a)-1] + b, true
		}
		if first == '-' {
			second, _ := utf8.DecodeRuneInString(b[1:])
			if unicode.IsLetter(second) {
				return a + b[1:], true
			}
		}
	}
	return "", false
}

// renderLines writes lines as text: one line per line, a blank line before
// a paragraph, a column or a page.
func renderLines(lines []textLine) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
			if l.before != breakLine {
				b.WriteByte('\n')
			}
		}
		b.WriteString(latinInCyrillic(l.text))
	}
	return b.String()
}

// pageLines are the lines of one page with the page's vertical extent.
type pageLines struct {
	lines       []*line // top first
	top, bottom float64
}

// Running headers and footers live in a band at the top and bottom of the
// page, and only the outermost lines there count.
const (
	marginBand  = 0.12 // of the page height
	marginLines = 2
)

// pageNumber matches lines that are only a page number, in the ways theses
// print them: "7", "- 7 -", "Page 7 of 80", "Strana 7", "7/80", "vii".
var pageNumber = regexp.MustCompile(`(?i)^(?:[-–—]\s*)?(?:(?:page|strana|stránka|str\.|s\.)\s*)?(?:\d{1,4}|[ivxlc]{1,7})(?:\s*(?:of|z|ze|/)\s*\d{1,4})?(?:\s*[-–—])?$`)

// runningKey is a line's identity for repetition: case and digits ignored,
// so "Chapter 3 · page 12" on one page matches "Chapter 3 · page 13".
func runningKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.Join(strings.Fields(s), " ")) {
		if unicode.IsDigit(r) {
			r = '#'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// dropRunningLines removes headers, footers and page numbers: lines among
// the outermost marginLines at the top or bottom of a page, within the
// marginBand, that are a bare page number or whose runningKey recurs on at
// least two pages and 40 % of them (books alternate left and right headers,
// so each is on half the pages; the title page usually has none).
func dropRunningLines(pages []pageLines) {
	type cand struct{ page, idx int }
	keyPages := map[string]map[int]bool{}
	var cands []cand
	isCand := func(p pageLines, i int) bool {
		h := p.top - p.bottom
		if h <= 0 {
			return false
		}
		y := p.lines[i].y
		return (i < marginLines && y >= p.top-marginBand*h) ||
			(i >= len(p.lines)-marginLines && y <= p.bottom+marginBand*h)
	}
	for pi, p := range pages {
		for i := range p.lines {
			if !isCand(p, i) {
				continue
			}
			cands = append(cands, cand{pi, i})
			k := runningKey(lineText(p.lines[i]))
			if keyPages[k] == nil {
				keyPages[k] = map[int]bool{}
			}
			keyPages[k][pi] = true
		}
	}
	drop := map[cand]bool{}
	for _, c := range cands {
		text := strings.TrimSpace(lineText(pages[c.page].lines[c.idx]))
		n := len(keyPages[runningKey(text)])
		if pageNumber.MatchString(text) || (n >= 2 && float64(n) >= 0.4*float64(len(pages))) {
			drop[c] = true
		}
	}
	for pi := range pages {
		kept := pages[pi].lines[:0:0]
		for i, l := range pages[pi].lines {
			if !drop[cand{pi, i}] {
				kept = append(kept, l)
			}
		}
		pages[pi].lines = kept
	}
}
