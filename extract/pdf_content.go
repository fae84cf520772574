package extract

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	pdf "github.com/ledongthuc/pdf"
)

// This file interprets a page's content stream into glyphs. The library's
// own Page.Content is not used because its positions are wrong for the
// fonts most theses use: it looks glyph widths up by byte, so two-byte
// (Type0, "Identity-H") fonts, which Word and LibreOffice write for any
// text with Czech letters, get zero widths and every glyph of a string
// lands on one spot; it also ignores word spacing (Tw), text in form
// XObjects, and cannot tell whether a page holds images. Fonts and text
// decoding still come from the library.

// pdfMatrix is a PDF transformation [a b c d e f]: a point (x, y) maps to
// (a·x + c·y + e, b·x + d·y + f).
type pdfMatrix [6]float64

var identity = pdfMatrix{1, 0, 0, 1, 0, 0}

// mul returns m·n: first m, then n.
func (m pdfMatrix) mul(n pdfMatrix) pdfMatrix {
	return pdfMatrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

// pdfFont is what the interpreter needs of a font: how to cut a string
// into character codes, their text, and their widths.
type pdfFont struct {
	enc     pdf.TextEncoding
	twoByte bool
	first   int
	widths  []float64       // simple fonts, from FirstChar
	cidW    map[int]float64 // Type0 fonts, from the descendant's W
	dw      float64         // default width
	scale   float64         // glyph space to text space (1/1000, or Type3's FontMatrix)
	vscale  float64         // font size multiplier (Type3 fonts)
	cost    int             // work units of decoding one character code
}

func (f *pdfFont) width(code int) float64 {
	if f.twoByte {
		if w, ok := f.cidW[code]; ok {
			return w
		}
		return f.dw
	}
	if i := code - f.first; i >= 0 && i < len(f.widths) && f.widths[i] > 0 {
		return f.widths[i]
	}
	return f.dw
}

// maxCIDWidths bounds the W array of a Type0 font, against ranges of
// billions of codes in hostile files.
const maxCIDWidths = 1 << 16

func loadFont(v pdf.Value, bud *budget) *pdfFont {
	font := pdf.Font{V: v}
	cost, usable := checkFontEncoding(v, bud)
	f := &pdfFont{scale: 0.001, vscale: 1, dw: 500, cost: cost}
	if usable {
		f.enc = font.Encoder()
	}
	if f.enc == nil {
		f.enc = nopEncoding{}
	}
	switch v.Key("Subtype").Name() {
	case "Type0":
		f.twoByte = true
		f.dw = 1000
		d := v.Key("DescendantFonts").Index(0)
		if dw := d.Key("DW"); dw.Kind() == pdf.Integer || dw.Kind() == pdf.Real {
			f.dw = dw.Float64()
		}
		f.cidW = map[int]float64{}
		w := d.Key("W")
		for i := 0; i < w.Len() && len(f.cidW) < maxCIDWidths; {
			bud.spend(1)
			c := int(w.Index(i).Int64())
			if next := w.Index(i + 1); next.Kind() == pdf.Array {
				for j := 0; j < next.Len() && len(f.cidW) < maxCIDWidths; j++ {
					f.cidW[c+j] = next.Index(j).Float64()
				}
				i += 2
				continue
			}
			last, wv := int(w.Index(i+1).Int64()), w.Index(i+2).Float64()
			for c2 := c; c2 <= last && c2-c < maxCIDWidths && len(f.cidW) < maxCIDWidths; c2++ {
				f.cidW[c2] = wv
			}
			i += 3
		}
		return f
	case "Type3":
		if m := v.Key("FontMatrix"); m.Len() == 6 {
			if a := m.Index(0).Float64(); a > 0 && a < 10 {
				f.scale = a
			}
			if d := m.Index(3).Float64(); d > 0 && d < 10 {
				f.vscale = d * 1000
			}
		}
	}
	f.first = font.FirstChar()
	ws := v.Key("Widths")
	n := min(ws.Len(), 1<<16)
	bud.spend(n)
	f.widths = make([]float64, n)
	var sum float64
	var cnt int
	for i := range n {
		f.widths[i] = ws.Index(i).Float64()
		if f.widths[i] > 0 {
			sum += f.widths[i]
			cnt++
		}
	}
	if cnt > 0 {
		// Codes outside Widths (a broken font) get the average width
		// rather than zero, which would pile glyphs up.
		f.dw = sum / float64(cnt)
	}
	if fd := v.Key("FontDescriptor").Key("MissingWidth"); fd.Float64() > 0 {
		f.dw = fd.Float64()
	}
	return f
}

type nopEncoding struct{}

func (nopEncoding) Decode(raw string) string { return raw }

// textState is the part of the graphics state the text operators use.
type textState struct {
	ctm                      pdfMatrix
	font                     *pdfFont
	size, tc, tw, th, tl, ts float64
	// What decides whether text is seen (pdf_hidden.go): the render
	// mode, and the fill colour when its colour space is one plagd reads
	// (DeviceGray, DeviceRGB, DeviceCMYK, or numbers of such a count).
	tr     int
	fill   rgb
	fillOK bool
}

// pageContent is what a page draws: glyphs, and how many images and
// undecodable glyphs, which tell a scan or a font without Unicode mapping.
type pageContent struct {
	glyphs      []glyph
	images      int
	drawn       int       // non-space glyphs
	unmapped    int       // glyphs without a Unicode mapping
	shapes      int       // paths and shadings, counted only on pages with little text (PDFium)
	side        [][]glyph // text in other directions than the page's, one list per direction
	failure     any       // why a content stream could not be read to its end
	top, bottom float64
	hidden      []pdfHiddenRun // text left out as hidden (PDFium), a mark glyph standing for each run
}

// maxPageGlyphs: a page yields at most this many glyphs; the rest of the
// page is not read (the document's glyphs are bounded by Limits.MaxGlyphs).
const maxPageGlyphs = 500000

// errPageFull stops interpreting a page that reached maxPageGlyphs.
type errPageFull struct{}

// pdfDoc is what the pages of one document share: its budget and the
// fonts already loaded, by object.
type pdfDoc struct {
	bud     *budget
	fonts   map[objRef]*pdfFont
	streams map[objRef]decodedStream // content streams and forms, decoded once
}

type decodedStream struct {
	v       pdf.Value
	size    int
	failure any
}

func newPDFDoc(bud *budget) *pdfDoc {
	return &pdfDoc{bud: bud, fonts: map[objRef]*pdfFont{}, streams: map[objRef]decodedStream{}}
}

// decode decodes a content stream or form once per document. Every use
// still counts its bytes against the budget: drawing a form a thousand
// times costs what reading it a thousand times would.
func (d *pdfDoc) decode(v pdf.Value) (pdf.Value, any) {
	ref, ok := refOf(v)
	if !ok || v.Kind() != pdf.Stream {
		return decodeContent(v, d.bud)
	}
	if s, hit := d.streams[ref]; hit {
		d.bud.streamBytes(s.size)
		return s.v, s.failure
	}
	before := d.bud.bytes
	dv, failure := decodeContent(v, d.bud)
	d.streams[ref] = decodedStream{v: dv, size: int(d.bud.bytes - before), failure: failure}
	return dv, failure
}

// interp interprets the content streams of one page.
type interp struct {
	doc    *pdfDoc
	bud    *budget
	out    pageContent
	orient []int           // per glyph: its rotation in quarter turns
	forms  map[objRef]bool // the form XObjects being drawn, against a form drawing itself

	why     []string   // per glyph: why it cannot be seen, "" when it can (reasonWhite: if nothing colours the page)
	crop    [4]float64 // the page's crop box: left, bottom, right, top
	cropOK  bool
	covered bool // a filled path not near white, or a shading, colours the page somewhere
}

// readPage interprets a page. A content stream the library cannot parse
// panics inside it; what was read up to there is kept, so one damaged
// stream costs its own text, not the page's or the document's.
func readPage(p pdf.Page, doc *pdfDoc) pageContent {
	in := &interp{doc: doc, bud: doc.bud, forms: map[objRef]bool{}}
	if l, b, r, t, ok := rawPageBox(p); ok {
		in.crop, in.cropOK = [4]float64{min(l, r), min(b, t), max(l, r), max(b, t)}, true
	}
	in.run(p.V.Key("Contents"), p.V.Key("Resources"), pageResources(p), identity, 0)
	in.dropHidden()
	q := mainQuarter(in.orient)
	in.out.glyphs, in.out.side = splitOrientation(in.out.glyphs, in.orient, q)
	in.out.bottom, in.out.top = pageBox(p, q, in.out.glyphs)
	return in.out
}

// pageResources finds the page's resources, which may be inherited from
// the page tree.
func pageResources(p pdf.Page) pdf.Value {
	v := p.V
	for range 32 {
		if v.IsNull() {
			break
		}
		if r := v.Key("Resources"); !r.IsNull() {
			return r
		}
		v = v.Key("Parent")
	}
	return pdf.Value{}
}

// pageBox returns the vertical extent of the page (crop box, else media
// box, inheritable), in the orientation q of its text.
func pageBox(p pdf.Page, q int, glyphs []glyph) (bottom, top float64) {
	l, b, r, t, ok := rawPageBox(p)
	if !ok {
		return glyphExtent(glyphs)
	}
	return verticalExtent(q, l, b, r, t)
}

// rawPageBox is the page's crop box, else its media box, inheritable, as
// the file gives it.
func rawPageBox(p pdf.Page) (left, bottom, right, top float64, ok bool) {
	var box pdf.Value
	v := p.V
	for range 32 {
		if v.IsNull() {
			break
		}
		if b := v.Key("CropBox"); b.Len() == 4 {
			box = b
			break
		}
		if b := v.Key("MediaBox"); b.Len() == 4 {
			box = b
			break
		}
		v = v.Key("Parent")
	}
	if box.Len() != 4 {
		return 0, 0, 0, 0, false
	}
	return box.Index(0).Float64(), box.Index(1).Float64(), box.Index(2).Float64(), box.Index(3).Float64(), true
}

func (in *interp) run(contents, res, inherited pdf.Value, ctm pdfMatrix, depth int) {
	if res.IsNull() {
		res = inherited
	}
	defer func() {
		if r := recover(); r != nil {
			rethrowStop(r)
			if _, full := r.(errPageFull); full {
				if depth > 0 {
					panic(r)
				}
				return
			}
			if in.out.failure == nil {
				in.out.failure = r
			}
		}
	}()
	fonts := map[string]*pdfFont{}
	st := textState{ctm: ctm, th: 1, fillOK: true} // black
	var stack []textState
	var tm, tlm pdfMatrix
	inImage := false
	decoded, failure := in.doc.decode(contents)
	if failure != nil && in.out.failure == nil {
		in.out.failure = failure
	}
	pdf.Interpret(decoded, func(stk *pdf.Stack, op string) {
		in.bud.spend(1 + stk.Len())
		args := make([]pdf.Value, stk.Len())
		for i := len(args) - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		if inImage {
			inImage = op != "EI"
			return
		}
		num := func(i int) float64 {
			if i < len(args) {
				return args[i].Float64()
			}
			return 0
		}
		nextLine := func() {
			tlm = pdfMatrix{1, 0, 0, 1, 0, -st.tl}.mul(tlm)
			tm = tlm
		}
		show := func(v pdf.Value) {
			if v.Kind() != pdf.String || st.font == nil {
				return
			}
			tm = in.show(v.RawString(), &st, tm)
		}
		switch op {
		case "q":
			if len(stack) < 1000 {
				stack = append(stack, st)
			}
		case "Q":
			if n := len(stack); n > 0 {
				st, stack = stack[n-1], stack[:n-1]
			}
		case "cm":
			if len(args) == 6 {
				st.ctm = pdfMatrix{num(0), num(1), num(2), num(3), num(4), num(5)}.mul(st.ctm)
			}
		case "BT":
			tm, tlm = identity, identity
		case "Tf":
			if len(args) == 2 {
				name := args[0].Name()
				f, ok := fonts[name]
				if !ok {
					f = in.font(res.Key("Font"), name)
					fonts[name] = f
				}
				st.font, st.size = f, num(1)
			}
		case "Tc":
			st.tc = num(0)
		case "Tw":
			st.tw = num(0)
		case "Tz":
			st.th = num(0) / 100
		case "TL":
			st.tl = num(0)
		case "Ts":
			st.ts = num(0)
		case "TD":
			st.tl = -num(1)
			fallthrough
		case "Td":
			tlm = pdfMatrix{1, 0, 0, 1, num(0), num(1)}.mul(tlm)
			tm = tlm
		case "Tm":
			if len(args) == 6 {
				tlm = pdfMatrix{num(0), num(1), num(2), num(3), num(4), num(5)}
				tm = tlm
			}
		case "T*":
			nextLine()
		case "'":
			nextLine()
			if len(args) == 1 {
				show(args[0])
			}
		case "\"":
			if len(args) == 3 {
				st.tw, st.tc = num(0), num(1)
				nextLine()
				show(args[2])
			}
		case "Tj":
			if len(args) == 1 {
				show(args[0])
			}
		case "TJ":
			if len(args) == 1 {
				a := args[0]
				for i := 0; i < a.Len(); i++ {
					x := a.Index(i)
					if x.Kind() == pdf.String {
						show(x)
						continue
					}
					tx := -x.Float64() / 1000 * st.size * st.th
					tm = pdfMatrix{1, 0, 0, 1, tx, 0}.mul(tm)
				}
			}
		case "Tr":
			st.tr = int(num(0))
		case "g", "rg", "k":
			st.fill, st.fillOK = deviceColor(args)
		case "cs":
			switch len(args) {
			case 1:
				n := args[0].Name()
				st.fill, st.fillOK = rgb{}, n == "DeviceGray" || n == "DeviceRGB" || n == "DeviceCMYK"
			}
		case "sc", "scn":
			if st.fillOK {
				st.fill, st.fillOK = deviceColor(args)
			}
		case "f", "F", "f*", "B", "B*", "b", "b*":
			if !st.fillOK || !st.fill.near(white) {
				in.covered = true
			}
		case "sh":
			in.covered = true
		case "BI":
			in.out.images++
		case "ID":
			inImage = true
		case "Do":
			if len(args) != 1 {
				return
			}
			x := res.Key("XObject").Key(args[0].Name())
			switch x.Key("Subtype").Name() {
			case "Image":
				in.out.images++
			case "Form":
				ref, _ := refOf(x)
				if depth >= in.bud.lim.MaxXObjectDepth || in.forms[ref] {
					return // too deep, or a form drawing itself
				}
				in.bud.call()
				in.forms[ref] = true
				defer delete(in.forms, ref)
				m := identity
				if fm := x.Key("Matrix"); fm.Len() == 6 {
					for i := range 6 {
						m[i] = fm.Index(i).Float64()
					}
				}
				in.run(x, x.Key("Resources"), res, m.mul(st.ctm), depth+1)
			}
		}
	})
}

// show draws a string: it cuts it into character codes (two bytes each
// for Type0 fonts), records a glyph for each and advances the text matrix.
func (in *interp) show(raw string, st *textState, tm pdfMatrix) pdfMatrix {
	f := st.font
	step := 1
	if f.twoByte {
		step = 2
	}
	for i := 0; i+step <= len(raw); i += step {
		in.bud.glyphs(1)
		in.bud.spend(f.cost)
		code := int(raw[i])
		if step == 2 {
			code = code<<8 | int(raw[i+1])
		}
		w0 := f.width(code) * f.scale
		s := decodeCode(f.enc, raw[i:i+step])
		trm := pdfMatrix{st.size * st.th, 0, 0, st.size, 0, st.ts}.mul(tm).mul(st.ctm)
		full := tm.mul(st.ctm)
		q := quarterTurns(full[0], full[1])
		x, y := rotate(trm[4], trm[5], q)
		sx, sy := math.Hypot(full[0], full[1]), math.Hypot(full[2], full[3])
		g := glyph{x: x, y: y, w: w0 * st.size * st.th * sx, size: math.Abs(st.size * sy * f.vscale), s: s}
		if !g.space() {
			in.out.drawn++
			if s == "" {
				in.out.unmapped++
			}
		}
		if s != "" && isFinite(g.x, g.y, g.w, g.size) {
			if len(in.out.glyphs) >= maxPageGlyphs {
				panic(errPageFull{})
			}
			in.out.glyphs = append(in.out.glyphs, g)
			in.orient = append(in.orient, q)
			in.why = append(in.why, in.hiddenWhy(st, trm, g))
		}
		tx := w0*st.size + st.tc
		if step == 1 && code == ' ' {
			tx += st.tw
		}
		tm = pdfMatrix{1, 0, 0, 1, tx * st.th, 0}.mul(tm)
	}
	return tm
}

// decodeCode is the text of one character code, cleaned (see cleanGlyph);
// "" when the font does not say which character it is.
func decodeCode(enc pdf.TextEncoding, code string) string {
	s := enc.Decode(code)
	if !utf8.ValidString(s) {
		// A byte string passed through undecoded: read it as Latin-1.
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			b.WriteRune(rune(s[i]))
		}
		s = b.String()
	}
	for _, r := range s {
		if r == unicode.ReplacementChar || (r < 0x20 && r != '\t') || (r >= 0xe000 && r <= 0xf8ff) {
			return ""
		}
	}
	return cleanGlyph(s)
}

func isFinite(fs ...float64) bool {
	for _, f := range fs {
		if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 1e7 {
			return false
		}
	}
	return true
}

// quarterTurns is the direction of text drawn with the matrix's x axis
// (a, b), rounded to quarter turns counter-clockwise.
func quarterTurns(a, b float64) int {
	q := int(math.Round(math.Atan2(b, a)/(math.Pi/2))) % 4
	if q < 0 {
		q += 4
	}
	return q
}

// rotate turns a point by q quarter turns clockwise, so that text drawn q
// quarter turns counter-clockwise reads left to right.
func rotate(x, y float64, q int) (float64, float64) {
	switch q {
	case 1:
		return y, -x
	case 2:
		return -x, -y
	case 3:
		return -y, x
	}
	return x, y
}

// mainQuarter is the orientation (in quarter turns) of most of a page's
// glyphs, given each glyph's.
func mainQuarter(orient []int) int {
	var n [4]int
	for _, q := range orient {
		n[q]++
	}
	best := 0
	for q := 1; q < 4; q++ {
		if n[q] > n[best] {
			best = q
		}
	}
	return best
}

// splitOrientation separates the glyphs drawn in the page's main
// direction q from those drawn in other directions (a table's turned
// column heads, a chart's axis labels, a stamp up the margin), which are
// returned by direction, each in its own frame, to be laid out after the
// page's text and never mixed into its lines.
func splitOrientation(glyphs []glyph, orient []int, q int) (main []glyph, side [][]glyph) {
	var other [4][]glyph
	for i, g := range glyphs {
		if orient[i] == q {
			main = append(main, g)
		} else {
			other[orient[i]] = append(other[orient[i]], g)
		}
	}
	for _, gs := range other {
		if len(gs) > 0 {
			side = append(side, gs)
		}
	}
	return main, side
}

// verticalExtent is the bottom and top of the box (x0, y0)-(x1, y1) seen
// in text turned q quarter turns.
func verticalExtent(q int, x0, y0, x1, y1 float64) (bottom, top float64) {
	bottom, top = math.Inf(1), math.Inf(-1)
	for _, c := range [][2]float64{{x0, y0}, {x0, y1}, {x1, y0}, {x1, y1}} {
		_, y := rotate(c[0], c[1], q)
		bottom, top = math.Min(bottom, y), math.Max(top, y)
	}
	return bottom, top
}

// glyphExtent stands in for a page without a box: the glyphs' own
// vertical extent, a little enlarged.
func glyphExtent(glyphs []glyph) (bottom, top float64) {
	bottom, top = math.Inf(1), math.Inf(-1)
	for _, g := range glyphs {
		bottom, top = math.Min(bottom, g.y), math.Max(top, g.y+g.size)
	}
	return bottom - 36, top + 36
}
