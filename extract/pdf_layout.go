package extract

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// This file rebuilds words, lines, columns and paragraphs from the glyphs a
// PDF page draws. A PDF has no words or lines, only pieces of text placed at
// coordinates: the spaces between words are often not characters at all but
// moves of the pen (pdflatex never draws a space), so text concatenated in
// drawing order glues words together. Everything here is pure and works on
// glyph lists, so the tests can build pages by hand.

// glyph is one piece of text drawn on a page, in PDF points with Y growing
// upwards: (x, y) is the start of its baseline, w its advance width and
// size its font size (its height on the page).
type glyph struct {
	x, y, w, size float64
	s             string
	// gen marks a space PDFium inferred between two characters (it draws
	// nothing). Lines of right-to-left script break words only at spaces,
	// these included; other lines ignore them (lineText).
	gen bool
}

func (g glyph) end() float64 { return g.x + g.w }

// space reports whether the glyph is a drawn space, which separates words
// whatever the gap around it.
func (g glyph) space() bool { return strings.TrimFunc(g.s, unicode.IsSpace) == "" }

// Layout thresholds, as fractions of the font size. They follow pdftotext's
// choices where those are known to work on real documents.
const (
	// baselineTol: glyphs whose baselines differ by less than this share a
	// line. Superscripts (footnote marks) rise about 0.3-0.4 em; the next
	// line is at least 1 em away.
	baselineTol = 0.5
	// wordGap: a horizontal gap wider than this is a space. Kerning and
	// letter spacing stay under 0.1 em; the narrowest word spaces of tightly
	// justified lines are about 0.2 em.
	wordGap = 0.15
	// dupOverlap: a glyph repeating the previous one this close is a fake
	// bold (the same text drawn twice, slightly shifted) and is dropped.
	dupOverlap = 0.3
	// paraGap: a line spacing this many times the usual one starts a paragraph.
	paraGap = 1.4
	// minGutter: a column gutter is at least this wide. Word spaces are
	// narrower and, unlike a gutter, do not line up over many lines.
	minGutter = 0.8
	// minSplitLines: how many lines must have text on each side of a gutter
	// before the page is read as columns.
	minSplitLines = 5
)

// line is a run of glyphs on one baseline, ordered left to right.
type line struct {
	glyphs []glyph
	y      float64 // baseline
	size   float64 // largest font size
}

func (l *line) minX() float64 { return l.glyphs[0].x }
func (l *line) maxX() float64 {
	m := math.Inf(-1)
	for _, g := range l.glyphs {
		m = max(m, g.end())
	}
	return m
}

// groupLines sorts glyphs into lines by baseline, top of the page first, each
// line ordered by X. A glyph joins the line whose baseline is within
// baselineTol of the larger font size, so raised footnote marks stay on their
// line while the next line, a full line height below, starts a new one.
func groupLines(gs []glyph) []*line {
	gs = slices.Clone(gs)
	sort.SliceStable(gs, func(i, j int) bool {
		if gs[i].y != gs[j].y {
			return gs[i].y > gs[j].y
		}
		return gs[i].x < gs[j].x
	})
	var lines []*line
	var cur *line
	for _, g := range gs {
		if cur != nil && math.Abs(cur.y-g.y) <= baselineTol*math.Max(cur.size, g.size) {
			cur.glyphs = append(cur.glyphs, g)
			// The line's baseline is its largest text's, so that a run of
			// small superscripts does not drag it upwards.
			if g.size > cur.size {
				cur.size, cur.y = g.size, g.y
			}
			continue
		}
		cur = &line{glyphs: []glyph{g}, y: g.y, size: g.size}
		lines = append(lines, cur)
	}
	for _, l := range lines {
		slices.SortStableFunc(l.glyphs, func(a, b glyph) int { return cmp.Compare(a.x, b.x) })
	}
	return lines
}

// lineText spells a line: glyphs in X order, with a space wherever the gap to
// the previous glyph exceeds wordGap of the font size or a space is drawn,
// and without the duplicate glyphs of fake bold. A line of right-to-left
// script comes out in reading order (logicalOrder).
func lineText(l *line) string {
	rtl := isRTLLine(l.glyphs)
	var words [][]string // the glyphs' texts, word by word
	var prev *glyph
	pendingSpace := false
	for i := range l.glyphs {
		g := &l.glyphs[i]
		if g.gen && !rtl {
			continue
		}
		if g.space() {
			pendingSpace = len(words) > 0
			continue
		}
		if prev != nil {
			size := math.Max(math.Min(prev.size, g.size), 1)
			if g.s == prev.s && math.Abs(g.x-prev.x) < dupOverlap*math.Max(prev.w, size*0.3) {
				continue // fake bold
			}
			if g.x-prev.end() > wordGap*size && !rtl {
				pendingSpace = true
			}
		}
		if pendingSpace || len(words) == 0 {
			words = append(words, nil)
			pendingSpace = false
		}
		words[len(words)-1] = append(words[len(words)-1], g.s)
		prev = g
	}
	logicalOrder(words)
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		for _, s := range w {
			b.WriteString(s)
		}
	}
	return b.String()
}

// isRTLLine reports whether a line is mostly right-to-left script and
// says where its words end: drawn spaces, or spaces PDFium inferred. Such
// a line breaks words only at spaces: right-to-left text set by word
// processors (justified Arabic above all) leaves gaps inside words that
// geometry takes for spaces.
func isRTLLine(glyphs []glyph) bool {
	rtl, ltr, spaces := 0, 0, false
	for _, g := range glyphs {
		spaces = spaces || g.space()
		for _, r := range g.s {
			switch {
			case isRTL(r):
				rtl++
			case unicode.IsLetter(r):
				ltr++
			}
		}
	}
	return spaces && rtl > ltr
}

// logicalOrder turns the words of a line of right-to-left script (Arabic,
// Hebrew), given in the order their glyphs stand from left to right, into
// reading order: the words from right to left, the glyphs of each
// right-to-left word reversed (a glyph's own text, such as a lam-alef
// ligature, is already in reading order), numbers and Latin words left as
// they are. A line that is mostly left-to-right is left alone.
func logicalOrder(words [][]string) {
	rtl, ltr := 0, 0
	for _, w := range words {
		for _, s := range w {
			for _, r := range s {
				switch {
				case isRTL(r):
					rtl++
				case unicode.IsLetter(r):
					ltr++
				}
			}
		}
	}
	if rtl <= ltr {
		return
	}
	slices.Reverse(words)
	for _, w := range words {
		if slices.ContainsFunc(w, func(s string) bool { return strings.IndexFunc(s, isRTL) >= 0 }) {
			slices.Reverse(w)
		}
	}
}

// isRTL reports whether r belongs to a script written right to left.
func isRTL(r rune) bool {
	return unicode.In(r, unicode.Arabic, unicode.Hebrew, unicode.Syriac, unicode.Thaana, unicode.Nko)
}

// gutter is a vertical band [x0, x1] free of glyphs between two columns.
type gutter struct{ x0, x1 float64 }

// findGutter looks for the widest vertical band that no glyph of any line
// crosses except a few spanning lines (titles, a full-width abstract),
// between text on its left and its right in at least minSplitLines lines.
// It returns false when the layout does not make columns clear, and the
// page is then read line by line across its width.
func findGutter(lines []*line) (gutter, bool) {
	if len(lines) < minSplitLines {
		return gutter{}, false
	}
	left, right := math.Inf(1), math.Inf(-1)
	var sizes []float64
	for _, l := range lines {
		left, right = math.Min(left, l.minX()), math.Max(right, l.maxX())
		sizes = append(sizes, l.size)
	}
	slices.Sort(sizes)
	size := sizes[len(sizes)/2]
	width := right - left
	if width <= 0 || width > 1e5 || size <= 0 {
		return gutter{}, false
	}
	// Coverage of 1-point bins: how many lines have a glyph over each.
	bins := int(math.Ceil(width)) + 1
	cover := make([]int, bins)
	for _, l := range lines {
		last := -1
		for _, g := range l.glyphs {
			if g.space() {
				continue
			}
			a := max(int(g.x-left), last+1)
			bEnd := min(int(math.Ceil(g.end()-left)), bins-1)
			for i := a; i <= bEnd; i++ {
				cover[i]++
			}
			last = max(last, bEnd)
		}
	}
	// Only the middle of the text block can hold a gutter between columns.
	lo, hi := int(0.2*width), int(0.8*width)
	if hi <= lo {
		return gutter{}, false
	}
	// A gutter may be crossed by a few spanning lines (a title, a wide
	// table, a footer), up to a quarter of the lines; inside a column of
	// text nearly every line covers every point.
	allowed := len(lines) / 4
	best, bestW := gutter{}, 0.0
	for i := lo; i < hi; {
		if cover[i] > allowed {
			i++
			continue
		}
		j := i
		for j < bins && cover[j] <= allowed {
			j++
		}
		if w := float64(j - i); w > bestW {
			best, bestW = gutter{left + float64(i), left + float64(j)}, w
		}
		i = j
	}
	if bestW < minGutter*size {
		return gutter{}, false
	}
	// Columns need text on both sides in enough lines. The two columns'
	// baselines need not align, so a line may hold only one side.
	nLeft, nRight := 0, 0
	for _, l := range lines {
		lp, rp, ok := splitLine(l, best)
		if !ok {
			continue
		}
		if lp != nil {
			nLeft++
		}
		if rp != nil {
			nRight++
		}
	}
	if nLeft < minSplitLines || nRight < minSplitLines {
		return gutter{}, false
	}
	return best, true
}

// splitLine divides a line at a gutter; ok is false when a glyph crosses it,
// i.e. the line spans both columns. A side may be nil.
func splitLine(l *line, g gutter) (left, right *line, ok bool) {
	var lg, rg []glyph
	for _, gl := range l.glyphs {
		mid := gl.x + gl.w/2
		switch {
		case gl.space():
			if mid < g.x0 {
				lg = append(lg, gl)
			} else {
				rg = append(rg, gl)
			}
		case gl.end() <= g.x0+0.5:
			lg = append(lg, gl)
		case gl.x >= g.x1-0.5:
			rg = append(rg, gl)
		default:
			return nil, nil, false
		}
	}
	mk := func(gs []glyph) *line {
		if len(gs) == 0 || allSpace(gs) {
			return nil
		}
		return &line{glyphs: gs, y: l.y, size: l.size}
	}
	return mk(lg), mk(rg), true
}

func allSpace(gs []glyph) bool {
	for _, g := range gs {
		if !g.space() {
			return false
		}
	}
	return true
}

// block is a run of lines read one after the other; a new block starts at a
// change of column, where line spacing says nothing about paragraphs.
type block []*line

// readingOrder orders a page's lines into blocks. Where findGutter finds
// columns, lines that span the gutter divide the page into zones, and each
// zone is read left column first, then right; columns are searched again
// inside each column (three-column pages), up to depth levels.
func readingOrder(lines []*line, depth int) []block {
	if len(lines) == 0 {
		return nil
	}
	g, ok := findGutter(lines)
	if !ok || depth <= 0 {
		return []block{lines}
	}
	var out []block
	var left, right, span []*line
	flushCols := func() {
		if len(left) > 0 {
			out = append(out, readingOrder(left, depth-1)...)
		}
		if len(right) > 0 {
			out = append(out, readingOrder(right, depth-1)...)
		}
		left, right = nil, nil
	}
	// Consecutive spanning lines stay one block, so that a full-width title
	// or abstract keeps its paragraph structure.
	flushSpan := func() {
		if len(span) > 0 {
			out = append(out, block(span))
		}
		span = nil
	}
	for _, l := range lines {
		lp, rp, ok := splitLine(l, g)
		if !ok {
			flushCols()
			span = append(span, l)
			continue
		}
		flushSpan()
		if lp != nil {
			left = append(left, lp)
		}
		if rp != nil {
			right = append(right, rp)
		}
	}
	flushSpan()
	flushCols()
	return out
}

// breakKind says what separates a text line from the one before it.
type breakKind int

const (
	breakLine  breakKind = iota // the next line of the same paragraph
	breakPara                   // a new paragraph (a larger vertical gap)
	breakBlock                  // a new column or page: the text may run on
)

// textLine is one line of output text and what precedes it.
type textLine struct {
	text   string
	before breakKind
}

// blockLines spells a block's lines and marks paragraph breaks where the gap
// to the previous line is paraGap times the block's usual line spacing (the
// median gap; with fewer than three lines, the font size times 1.2).
func blockLines(b block) []textLine {
	var gaps []float64
	for i := 1; i < len(b); i++ {
		if d := b[i-1].y - b[i].y; d > 0 {
			gaps = append(gaps, d)
		}
	}
	usual := 0.0
	if len(gaps) >= 2 {
		slices.Sort(gaps)
		usual = gaps[(len(gaps)-1)/2] // the lower median: paragraph gaps are the larger ones
	}
	out := make([]textLine, 0, len(b))
	for i, l := range b {
		t := textLine{text: lineText(l), before: breakBlock}
		if i > 0 {
			t.before = breakLine
			d := b[i-1].y - l.y
			ref := usual
			if ref == 0 {
				ref = 1.2 * math.Max(b[i-1].size, l.size)
			}
			if d > paraGap*ref || d < 0 {
				t.before = breakPara
			}
		}
		if strings.TrimSpace(t.text) != "" {
			out = append(out, t)
		}
	}
	return out
}
