package reportpdf

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/signintech/gopdf"
)

// page is the A4 page in points and the text block within it.
const (
	pageW, pageH           = 595.28, 841.89
	marginX, marginTop     = 56.0, 56.0
	marginBottom           = 64.0
	textLeft, textRight    = marginX, pageW - marginX
	textTop, textBottom    = marginTop, pageH - marginBottom
	fontRegular, fontBold  = "go", "go-bold"
	bodySize, smallSize    = 10.0, 8.5
	bodyLeading            = 1.45 // line height over font size
	paragraphGap           = 0.55 // extra space after a paragraph, in lines
	maxWordWidth           = textRight - textLeft
	labelSize, labelRaise  = 6.5, 3.2 // a passage's number, set above the line
	highlightPad           = 1.2      // highlight rectangles reach this far above and below the glyphs
	maxRenderedTextRunes   = 2_000_000
	maxPassageExcerptRunes = 700
)

// style is how a run of text is set: its font, colour and background.
type style struct {
	bold  bool
	size  float64
	color rgb // text colour
	fill  *rgb
	label string // printed small before the run (a passage's source number)
	// labelColor is the label's colour.
	labelColor rgb
}

// flow sets text on pages: it places words left to right, breaks lines at
// the right edge of the text block and pages at its bottom, and keeps the
// current position. Errors of the PDF writer are kept in err, and every
// call after the first error does nothing.
type flow struct {
	pdf  *gopdf.GoPdf
	x, y float64 // the current position: y is the top of the current line
	err  error
	// newPage adds a page (with its footer) and resets the position.
	newPage func()
	// lineH is the height of the current line (the largest size set in it).
	lineH float64
}

func (f *flow) setFont(bold bool, size float64) {
	if f.err != nil {
		return
	}
	name := fontRegular
	if bold {
		name = fontBold
	}
	f.err = f.pdf.SetFont(name, "", size)
}

func (f *flow) width(s string) float64 {
	if f.err != nil {
		return 0
	}
	w, err := f.pdf.MeasureTextWidth(s)
	if err != nil {
		f.err = err
	}
	return w
}

// room makes sure h points fit below the current line on this page, or
// starts a new page.
func (f *flow) room(h float64) {
	if f.y+h > textBottom {
		f.newPage()
	}
}

// newline ends the current line; extra adds space in lines of size.
func (f *flow) newline(size, extra float64) {
	h := max(f.lineH, size*bodyLeading)
	f.x, f.y, f.lineH = textLeft, f.y+h+extra*size*bodyLeading, 0
}

// text sets s in st, word by word, wrapping at the right edge: line feeds
// break lines, a blank line ends a paragraph. Spaces between words take
// the style of the word before them, so a highlight runs on between the
// words of a passage.
func (f *flow) text(s string, st style) {
	s = strings.ReplaceAll(s, "\t", " ")
	first := true
	for len(s) > 0 && f.err == nil {
		if s[0] == '\n' {
			n := 0
			for n < len(s) && (s[n] == '\n' || s[n] == '\r' || s[n] == ' ') {
				n++
			}
			breaks := strings.Count(s[:n], "\n")
			f.newline(st.size, 0)
			if breaks > 1 {
				f.y += paragraphGap * st.size * bodyLeading
			}
			s = s[n:]
			continue
		}
		word, space := nextWord(s)
		s = s[len(word)+len(space):]
		label := ""
		if first {
			label = st.label
			first = false
		}
		f.word(word, space, label, st)
	}
}

// nextWord splits off the leading word of s (up to a space or line feed)
// and the spaces after it (not a line feed).
func nextWord(s string) (word, space string) {
	i := strings.IndexAny(s, " \n")
	if i < 0 {
		return s, ""
	}
	j := i
	for j < len(s) && s[j] == ' ' {
		j++
	}
	return s[:i], s[i:j]
}

// word sets one word and the spaces after it.
func (f *flow) word(word, space, label string, st style) {
	f.setFont(st.bold, st.size)
	w := f.width(word)
	lw := 0.0
	if label != "" {
		f.setFont(true, labelSize)
		lw = f.width(label) + 1
		f.setFont(st.bold, st.size)
	}
	if w+lw > maxWordWidth { // a word longer than a line: set it in pieces
		f.longWord(word, space, label, st)
		return
	}
	if f.x > textLeft && f.x+lw+w > textRight {
		f.newline(st.size, 0)
	}
	h := st.size * bodyLeading
	f.room(h)
	f.lineH = max(f.lineH, h)
	if label != "" {
		f.setFont(true, labelSize)
		f.textAt(label, f.x, baseline(f.y, st.size)-labelRaise, st.labelColor)
		f.x += lw
		f.setFont(st.bold, st.size)
	}
	sw := 0.0
	if space != "" {
		sw = f.width(" ")
	}
	if f.x+w+sw > textRight {
		sw = 0 // no highlighted space hanging past the edge
	}
	f.put(word, f.x, f.y, st.color, st.fill, st.size)
	if st.fill != nil && sw > 0 {
		f.fillRect(f.x+w, f.y, sw, st.size, *st.fill)
	}
	f.x += w + sw
}

// longWord sets a word wider than a line rune by rune, breaking where the
// line ends.
func (f *flow) longWord(word, space, label string, st style) {
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			f.word(b.String(), "", label, st)
			label = ""
			b.Reset()
		}
	}
	for _, r := range word {
		b.WriteRune(r)
		if f.width(b.String()) > maxWordWidth*0.9 {
			flush()
			f.newline(st.size, 0)
		}
	}
	flush()
	if space != "" {
		f.x += f.width(" ")
	}
}

// put draws s with its top-left corner at (x, y): the background first,
// then the glyphs on the baseline of a line of the given size.
func (f *flow) put(s string, x, y float64, c rgb, fill *rgb, size float64) {
	if f.err != nil || s == "" {
		return
	}
	if fill != nil {
		f.fillRect(x, y, f.width(s), size, *fill)
	}
	f.textAt(s, x, baseline(y, size), c)
}

// baseline is the baseline of a line of text of size whose top is y.
func baseline(y, size float64) float64 { return y + size*bodyLeading - size*0.3 }

// textAt draws s in the current font from x on the given baseline.
func (f *flow) textAt(s string, x, base float64, c rgb) {
	if f.err != nil {
		return
	}
	f.pdf.SetTextColor(c.r, c.g, c.b)
	f.pdf.SetXY(x, base)
	f.err = f.pdf.Text(s)
}

// fillRect paints the background of a run of text of the given size that
// starts at (x, y).
func (f *flow) fillRect(x, y, w, size float64, c rgb) {
	f.pdf.SetFillColor(c.r, c.g, c.b)
	top := baseline(y, size) - size*0.82 - highlightPad
	f.pdf.RectFromUpperLeftWithStyle(x, top, w, size*1.12+2*highlightPad, "F")
}

// line sets s on a line of its own in st, wrapping if it must.
func (f *flow) line(s string, st style) {
	if f.x > textLeft {
		f.newline(st.size, 0)
	}
	f.text(s, st)
	f.newline(st.size, 0)
}

// gap leaves vertical space of n lines of size.
func (f *flow) gap(n, size float64) {
	if f.x > textLeft {
		f.newline(size, 0)
	}
	f.y += n * size * bodyLeading
}

// clip shortens s to at most n runes, at a word boundary, with an ellipsis.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, k := 0, 0
	for i = range s {
		if k == n {
			break
		}
		k++
	}
	cut := strings.LastIndexFunc(s[:i], unicode.IsSpace)
	if cut < i/2 {
		cut = i
	}
	return strings.TrimRightFunc(s[:cut], unicode.IsSpace) + " …"
}
