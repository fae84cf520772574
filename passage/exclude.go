package passage

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Exclusions selects what ExcludedRanges finds.
type Exclusions struct {
	Quotes       bool `json:"quotes"`       // text in quotation marks (QuoteRanges)
	Bibliography bool `json:"bibliography"` // the bibliography (BibliographyRange)
	BlockQuotes  bool `json:"block_quotes"` // marked block quotes (BlockQuoteRanges)
	// Common is common text: what the archive holds in more documents than
	// its df cap (CommonRanges). The text alone does not tell it, so
	// ExcludedRanges ignores it; report.Filter applies it to the ranges the
	// report found.
	Common bool `json:"common"`
}

// AllExclusions turns every exclusion on.
func AllExclusions() Exclusions {
	return Exclusions{Quotes: true, Bibliography: true, BlockQuotes: true, Common: true}
}

// ExcludedRanges returns the union of the ranges ex selects, sorted and
// disjoint (UnionRanges).
func ExcludedRanges(text string, ex Exclusions) []Range {
	var rs []Range
	if ex.Quotes {
		rs = append(rs, QuoteRanges(text)...)
	}
	if ex.BlockQuotes {
		rs = append(rs, BlockQuoteRanges(text)...)
	}
	if ex.Bibliography {
		if r, ok := BibliographyRange(text); ok {
			rs = append(rs, r)
		}
	}
	return UnionRanges(rs)
}

// MaxQuoteRunes bounds a quotation: an opening mark whose closing mark is
// further away than this many characters is taken for a stray mark, not a
// quotation, so that one unbalanced quote cannot swallow a document.
const MaxQuoteRunes = 3000

// quoteMark describes an opening quotation mark: the marks that close it,
// and the context rules that tell it from other uses of the same character.
type quoteMark struct {
	closers string
	// openAfterWord: the mark opens even right after a letter or digit
	// (otherwise a straight " after a digit is an inch sign, not a quote).
	openAfterWord bool
	// openBeforeSpace: the mark opens even when white space follows it
	// (otherwise it must hug its text, as German »Text« and straight
	// quotes do).
	openBeforeSpace bool
	// closeBeforeWord: a closer closes even when a letter or digit follows
	// it (otherwise ’ in don’t is an apostrophe, not a closer).
	closeBeforeWord bool
	// closeAfterSpace: a closer closes even after white space (otherwise
	// the « of »…« must hug its text, so that a French « opening the next
	// quotation does not close a stray »).
	closeAfterSpace bool
	// nests: the same character opens and closes, so a quotation inside
	// a quotation uses it too ("… "Kutukan" yang …"). A mark shaped like
	// an opener (white space or an opening bracket before it, a word
	// after it) opens a nested quotation, and the next closer closes that
	// one, not the outer.
	nests bool
}

// quoteMarks are the opening marks QuoteRanges knows, with their closers:
//
//	"…"   straight double quotes (all languages; straight single quotes
//	      are not used: they are apostrophes far more often)
//	“…”   English double;        ‘…’  English single
//	„…“   Czech, German, Slovak; „…”  Polish, Hungarian, Romanian
//	‚…‘   Czech, German single
//	«…»   French, Spanish, Italian, Russian; ‹…› single
//	»…«   German, Czech, Danish (no space inside);  ›…‹ single
//
// Scanning from left to right, a mark that has been used as a closer is
// never an opener, so „…“ in Czech does not make its “ open an English
// quotation.
var quoteMarks = map[rune]quoteMark{
	'"':      {closers: `"`, openAfterWord: false, openBeforeSpace: false, closeBeforeWord: false, closeAfterSpace: true, nests: true},
	'\u201C': {closers: "\u201D", openAfterWord: true, openBeforeSpace: true, closeBeforeWord: true, closeAfterSpace: true},
	'\u201E': {closers: "\u201C\u201D", openAfterWord: true, openBeforeSpace: true, closeBeforeWord: true, closeAfterSpace: true},
	'\u2018': {closers: "\u2019", openAfterWord: false, openBeforeSpace: true, closeBeforeWord: false, closeAfterSpace: true},
	'\u201A': {closers: "\u2018", openAfterWord: true, openBeforeSpace: true, closeBeforeWord: true, closeAfterSpace: true},
	'\u00AB': {closers: "\u00BB", openAfterWord: true, openBeforeSpace: true, closeBeforeWord: true, closeAfterSpace: true},
	'\u2039': {closers: "\u203A", openAfterWord: true, openBeforeSpace: true, closeBeforeWord: true, closeAfterSpace: true},
	'\u00BB': {closers: "\u00AB", openAfterWord: true, openBeforeSpace: false, closeBeforeWord: true, closeAfterSpace: false},
	'\u203A': {closers: "\u2039", openAfterWord: true, openBeforeSpace: false, closeBeforeWord: true, closeAfterSpace: false},
}

func isWordChar(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// QuoteRanges returns the quotations of text: for each opening mark (see
// quoteMarks) the range from it to its closing mark, both marks included,
// sorted and disjoint. A quotation never spans a paragraph break (a line
// holding only white space) nor more than MaxQuoteRunes characters: an
// opening mark without a closer within those bounds is ignored. Quotations
// nested inside a quotation are part of it.
func QuoteRanges(text string) []Range {
	var out []Range
	for i := 0; i < len(text); {
		j := indexQuoteByte(text[i:])
		if j < 0 {
			break
		}
		i += j
		r, size := utf8.DecodeRuneInString(text[i:])
		m, ok := quoteMarks[r]
		if !ok {
			i += size
			continue
		}
		prev, _ := utf8.DecodeLastRuneInString(text[:i]) // RuneError at the start: not a word rune
		if m.openAfterWord || !isWordChar(prev) {
			next, _ := utf8.DecodeRuneInString(text[i+size:])
			if i+size < len(text) && (m.openBeforeSpace || !unicode.IsSpace(next)) {
				if end, found := quoteEnd(text, i+size, m); found {
					out = append(out, Range{i, end})
					i = end
					continue
				}
			}
		}
		i += size
	}
	return out
}

// quoteBytes marks the bytes that may start a quotation mark (see
// quoteMarks: '"', and the lead bytes of U+00AB/U+00BB and U+2018..U+203A)
// or end a quotation's search (a line feed): the scans skip all others
// without decoding, so that they cost little more than a memory pass.
var quoteBytes = func() (t [256]bool) {
	t['"'], t[0xC2], t[0xE2] = true, true, true
	return t
}()

func indexQuoteByte(s string) int {
	for i := 0; i < len(s); i++ {
		if quoteBytes[s[i]] {
			return i
		}
	}
	return -1
}

// quoteEnd looks for the closer of m from byte i on and returns the end of
// the closing mark. For a mark that nests, a nested quotation's closer
// does not end the outer one; when nesting leaves the outer unclosed (an
// unbalanced inner mark), the first closer ends it, as if nothing nested.
func quoteEnd(text string, i int, m quoteMark) (int, bool) {
	n, depth, first := 0, 0, -1
	for ; i < len(text); i++ {
		c := text[i]
		if c&0xC0 != 0x80 { // a rune starts here
			if n++; n > MaxQuoteRunes {
				break
			}
		}
		if c == '\n' {
			if paragraphBreak(text[i+1:]) {
				break
			}
			continue
		}
		if !quoteBytes[c] {
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if !strings.ContainsRune(m.closers, r) {
			continue
		}
		prev, _ := utf8.DecodeLastRuneInString(text[:i])
		next, _ := utf8.DecodeRuneInString(text[i+size:])
		if m.nests && opensNested(prev, next, i == 0 || i+size == len(text)) {
			depth++
			continue
		}
		if !(m.closeAfterSpace || !unicode.IsSpace(prev)) || !(m.closeBeforeWord || i+size == len(text) || !isWordChar(next)) {
			continue
		}
		if first < 0 {
			first = i + size
		}
		if depth == 0 {
			return i + size, true
		}
		depth--
	}
	if first >= 0 {
		return first, true
	}
	return 0, false
}

// opensNested reports whether a mark that nests, between prev and next,
// is shaped like an opener: after white space or an opening bracket, and
// before a word.
func opensNested(prev, next rune, edge bool) bool {
	return !edge && (unicode.IsSpace(prev) || strings.ContainsRune("([{", prev)) && isWordChar(next)
}

// paragraphBreak reports whether s (the text after a line feed) starts
// with a line of white space only, ended by another line feed.
func paragraphBreak(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\r', '\f', '\v':
		case '\n':
			return true
		default:
			return false
		}
	}
	return false
}

// bibliographyHeadings are the headings BibliographyRange recognises, in
// the form normHeading gives them (lower case, single spaces, without
// numbering and a final colon or full stop): English, Czech, Slovak,
// German, French, Spanish, Italian, Polish and Portuguese.
var bibliographyHeadings = func() map[string]bool {
	m := map[string]bool{}
	for _, h := range []string{
		// English
		"references", "reference list", "list of references", "bibliography", "select bibliography",
		"works cited", "works consulted", "literature", "literature cited", "cited literature",
		"sources", "list of sources", "sources cited", "references and sources",
		// Czech
		"literatura", "použitá literatura", "seznam literatury", "seznam použité literatury",
		"seznam použitých zdrojů", "seznam použitých pramenů", "seznam použité literatury a zdrojů",
		"seznam pramenů a literatury", "prameny a literatura", "použité zdroje", "použité prameny",
		"zdroje", "seznam zdrojů", "citovaná literatura", "literatura a zdroje", "použitá literatura a zdroje",
		"bibliografie", "bibliografické odkazy", "seznam bibliografických odkazů",
		// Slovak
		"literatúra", "použitá literatúra", "zoznam literatúry", "zoznam použitej literatúry",
		"zoznam bibliografických odkazov", "zoznam použitých zdrojov", "použité zdroje a literatúra",
		// German
		"literaturverzeichnis", "literatur", "literaturliste", "quellen", "quellenverzeichnis",
		"literatur- und quellenverzeichnis", "quellen- und literaturverzeichnis", "bibliographie",
		// French
		"références", "références bibliographiques", "bibliographie sélective",
		// Spanish, Italian, Polish, Portuguese
		"bibliografía", "referencias", "referencias bibliográficas", "bibliografia",
		"riferimenti bibliografici", "referências", "referências bibliográficas",
	} {
		m[h] = true
	}
	return m
}()

// headingNumber matches the numbering before a heading: "7", "7.", "7.1",
// "VII.", "A.".
var headingNumber = regexp.MustCompile(`^(?:\d+(?:\.\d+)*\.?|[IVXLCivxlc]+\.|[A-Z]\.)\s+`)

// appendixHeading matches a heading that ends a bibliography: "Appendix",
// "Appendix A: Questionnaire", "Příloha 1 – Dotazník", "Anhang".
var appendixHeading = regexp.MustCompile(`(?i)^(?:\d+(?:\.\d+)*\.?\s+)?` +
	`(?:appendix|appendices|annex|annexes|attachments?|list of appendices|` +
	`příloha|přílohy|seznam příloh|príloha|prílohy|zoznam príloh|` +
	`anhang|anlagen?|annexe|annexes|anexo|anexos|apéndices?|allegat[oi]|załącznik(?:i)?|aneks)` +
	`(?:\s+(?:\d+|[A-Z]|[IVXLC]+)\b.*)?$`)

// BibliographyMinStart is where a bibliography heading may begin, as a
// share of the text: a bibliography sits at the end, before the appendices,
// and the table of contents at the start names it too.
const BibliographyMinStart = 0.5

// BibliographyRange finds the bibliography of text: from a heading line
// (one of bibliographyHeadings, case-insensitive, alone on its line but for
// numbering and a final colon or full stop) that starts in the second half
// of the text (BibliographyMinStart), to the next appendix heading line
// (Appendix, Příloha, Anhang, … see appendixHeading) or the end of the
// text. With several such headings the last one wins. ok is false when
// there is none.
func BibliographyRange(text string) (r Range, ok bool) {
	minStart := int(float64(len(text)) * BibliographyMinStart)
	open := false // r runs to the end of the text so far
	for start := 0; start < len(text); {
		end := lineEnd(text, start)
		switch {
		case end-start > maxHeadingBytes:
		case start >= minStart && bibliographyHeadings[normHeading(text[start:end])]:
			r, ok, open = Range{start, len(text)}, true, true
		case open && appendixHeading.MatchString(strings.TrimSpace(text[start:end])):
			r.End, open = start, false
			for r.End > r.Start && unicode.IsSpace(rune(text[r.End-1])) {
				r.End--
			}
		}
		start = end + 1
	}
	return r, ok
}

// maxHeadingBytes bounds the lines looked at as headings.
const maxHeadingBytes = 200

// normHeading reduces a line to its comparable heading text: trimmed,
// numbering and a final colon or full stop removed, white space collapsed,
// lower case.
func normHeading(line string) string {
	s := strings.TrimSpace(line)
	s = headingNumber.ReplaceAllString(s, "")
	s = strings.TrimRight(s, ":. ")
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// BlockQuoteRanges returns the block quotes plain text marks, line by line
// (each range from the line's first non-blank byte to its end, without the
// line feed; adjacent lines joined):
//
//   - lines starting with ">" (after at most three spaces), as e-mail and
//     Markdown quote;
//   - runs of at least two consecutive lines indented by four or more
//     spaces or a tab, but only when indented lines are at most a quarter
//     of the text's non-blank lines: where more are indented, indentation
//     is the document's layout (first-line indents of one-line paragraphs,
//     code), not a mark.
//
// Formats whose block quotes extraction does not keep apart (PDF, DOCX)
// have none; so this finds too little rather than too much.
func BlockQuoteRanges(text string) []Range {
	type line struct {
		start, body, end int // line start, first non-blank byte, end (before '\n')
		indented, marked bool
	}
	var lines []line
	nonBlank, indented := 0, 0
	for start := 0; start < len(text); {
		end := lineEnd(text, start)
		l := line{start: start, body: start, end: end}
		cols := 0
		for l.body < end && (text[l.body] == ' ' || text[l.body] == '\t') {
			if text[l.body] == '\t' {
				cols += 4
			} else {
				cols++
			}
			l.body++
		}
		if l.body < end {
			nonBlank++
			l.marked = text[l.body] == '>' && l.body-start <= 3
			l.indented = cols >= 4
			if l.indented {
				indented++
			}
		}
		for l.end > l.body && (text[l.end-1] == ' ' || text[l.end-1] == '\t' || text[l.end-1] == '\r') {
			l.end--
		}
		lines = append(lines, l)
		start = end + 1
	}
	useIndent := indented > 0 && 4*indented <= nonBlank
	var out []Range
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if l.marked {
			out = append(out, Range{l.body, l.end})
			continue
		}
		if !useIndent || !l.indented {
			continue
		}
		j := i
		for j < len(lines) && lines[j].indented {
			j++
		}
		if j-i >= 2 {
			for _, m := range lines[i:j] {
				out = append(out, Range{m.body, m.end})
			}
		}
		i = j - 1
	}
	return joinLines(text, out)
}

// joinLines joins ranges separated only by white space.
func joinLines(text string, rs []Range) []Range {
	n := 0
	for _, r := range rs {
		if n > 0 && strings.TrimSpace(text[rs[n-1].End:r.Start]) == "" {
			rs[n-1].End = r.End
			continue
		}
		rs[n] = r
		n++
	}
	return rs[:n]
}

// lineEnd is the offset of the '\n' ending the line that starts at start, or
// the end of text.
func lineEnd(text string, start int) int {
	if i := strings.IndexByte(text[start:], '\n'); i >= 0 {
		return start + i
	}
	return len(text)
}
