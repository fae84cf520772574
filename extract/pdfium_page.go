package extract

import (
	"fmt"
	"math"
	"unicode"
)

// This file turns what PDFium knows about a page's characters into the
// glyph lists of pdf_layout.go: per character its Unicode text, the origin
// of its baseline, its advance (the loose box, which spans the advance
// width rather than the ink), its size and its direction.

// maxCountedObjects bounds the page objects looked at to tell a scanned or
// outlined page from an empty one.
const maxCountedObjects = 10000

// PDFium's page object types (FPDF_PAGEOBJ_*).
const (
	pageObjPath    = 2
	pageObjImage   = 3
	pageObjShading = 4
	pageObjForm    = 5
)

// pdfiumOpenFailure is PDFium's failure to open a file: code is
// FPDF_GetLastError's, or err the call's own failure.
type pdfiumOpenFailure struct {
	code int
	err  error
}

func (f *pdfiumOpenFailure) Error() string {
	if f.err != nil {
		return f.err.Error()
	}
	return fmt.Sprintf("PDFium error %d", f.code)
}

// readPDFium reads every page of a PDF with PDFium. An error means PDFium
// could not open the file at all (a *pdfiumOpenFailure) or could not start.
func readPDFium(content []byte, bud *budget) (contents []pageContent, err error) {
	s, err := newPDFiumSession(bud.ctx)
	if err != nil {
		bud.check()
		return nil, &pdfiumOpenFailure{err: err}
	}
	clean := false
	defer func() { s.close(clean) }()
	var code int
	s.doc, s.buf, code, err = s.openDocument(content)
	if err != nil || s.doc == 0 {
		bud.check()
		clean = err == nil
		return nil, &pdfiumOpenFailure{code: code, err: err}
	}
	n, err := s.call("FPDF_GetPageCount", s.doc)
	if err != nil {
		bud.check()
		return nil, &pdfiumOpenFailure{err: err}
	}
	count := int32Of(n)
	contents = make([]pageContent, 0, min(max(count, 0), bud.lim.MaxPages))
	failed := false
	for i := range count {
		bud.page()
		c := s.readPage(s.doc, i, bud)
		failed = failed || c.failure != nil
		contents = append(contents, c)
	}
	clean = !failed
	return contents, nil
}

// readPage reads one page; a page PDFium cannot load records why and
// costs only itself.
func (s *pdfiumSession) readPage(doc uint64, index int, bud *budget) pageContent {
	var out pageContent
	fail := func(err error) pageContent {
		bud.check() // a call that failed because the document's time is up
		out.failure = err
		return out
	}
	page, err := s.loadPage(doc, index)
	if err != nil {
		return fail(err)
	}
	defer s.call("FPDF_ClosePage", page)
	tp, err := s.call("FPDFText_LoadPage", page)
	if err != nil || tp == 0 {
		return fail(orNoPage(err))
	}
	defer s.call("FPDFText_ClosePage", tp)
	n, err := s.call("FPDFText_CountChars", tp)
	if err != nil {
		return fail(err)
	}
	chars := min(int32Of(n), maxPageGlyphs)
	bud.glyphs(chars) // a page of a million glyphs fails before it is read
	var orient []int
	var why []string // per glyph: why it cannot be seen, "" when it can
	look := pdfiumLook{page: page}
	if chars > 0 {
		look.objects = s.suspectObjects(page, chars, bud)
	}
	left, top, right, bottom, boxOK := s.pageBox(page)
	if boxOK {
		look.crop, look.cropOK = [4]float64{min(left, right), min(bottom, top), max(left, right), max(bottom, top)}, true
	}
	hiddenSeen, invisibleOnly := false, true // invisibleOnly: no seen glyph, and no hidden glyph but invisible ones
	spaceNext := false                       // PDFium inferred a space before the next character
	for i := range chars {
		g, geo, q, kind, err := s.char(tp, i, &out)
		if err != nil {
			return fail(err)
		}
		switch kind {
		case charNone:
			continue
		case charGeneratedSpace:
			spaceNext = len(out.glyphs) > 0
			continue
		}
		w, err := s.hiddenWhy(&look, tp, i, geo, g, bud)
		if err != nil {
			return fail(err)
		}
		if w != "" {
			hiddenSeen = true
		}
		if (w == "" && !g.space()) || (w != "" && w != reasonInvisible) {
			invisibleOnly = false
		}
		k := len(out.glyphs) - 1
		if k >= 0 && why[k] == w && orient[k] == q && out.glyphs[k].x == g.x && out.glyphs[k].y == g.y && !out.glyphs[k].space() {
			// One glyph that stands for several characters (a ligature
			// mapped to "ffi"): PDFium gives each the same origin.
			out.glyphs[k].s += g.s
			out.glyphs[k].w = max(out.glyphs[k].w, g.end()-out.glyphs[k].x)
			spaceNext = false
			continue
		}
		if spaceNext && orient[k] == q {
			if sp, ok := inferredSpace(out.glyphs[k], g); ok {
				out.glyphs = append(out.glyphs, sp)
				orient = append(orient, q)
				why = append(why, "")
			}
		}
		spaceNext = false
		out.glyphs = append(out.glyphs, g)
		orient = append(orient, q)
		why = append(why, w)
	}
	if hiddenSeen {
		orient = dropHidden(&out, orient, why, invisibleOnly && s.hasImage(page, bud))
	}
	q := mainQuarter(orient)
	out.glyphs, out.side = splitOrientation(out.glyphs, orient, q)
	if boxOK {
		out.bottom, out.top = verticalExtent(q, left, bottom, right, top)
	} else {
		out.bottom, out.top = glyphExtent(out.glyphs)
	}
	if out.drawn-out.unmapped < minPageGlyphs {
		s.countObjects(page, &out, bud)
	}
	return out
}

// loadPage loads a page with the text of its annotations made part of
// it: the filled-in fields of a form, the text boxes a reader added
// (FreeText) and stamps are annotations, drawn over the page by their
// appearance streams, which a viewer shows and pdftotext reads. PDFium's
// text page holds only the page's own content, so a page with
// annotations is flattened (their appearances merged into its content,
// as printing does) and loaded again.
func (s *pdfiumSession) loadPage(doc uint64, index int) (uint64, error) {
	page, err := s.call("FPDF_LoadPage", doc, uint64(index))
	if err != nil || page == 0 {
		return 0, orNoPage(err)
	}
	annots, err := s.call("FPDFPage_GetAnnotCount", page)
	if err != nil || int32Of(annots) <= 0 {
		return page, err
	}
	const flatNormalDisplay, flattenSuccess = 0, 1
	flat, err := s.call("FPDFPage_Flatten", page, flatNormalDisplay)
	if err != nil || int32Of(flat) != flattenSuccess {
		return page, err
	}
	if _, err := s.call("FPDF_ClosePage", page); err != nil {
		return 0, err
	}
	page, err = s.call("FPDF_LoadPage", doc, uint64(index))
	if err != nil || page == 0 {
		return 0, orNoPage(err)
	}
	return page, nil
}

// errNoPage: PDFium returned no page or text page without saying why.
type errNoPage struct{}

func (errNoPage) Error() string { return "the page could not be loaded" }

func orNoPage(err error) error {
	if err != nil {
		return err
	}
	return errNoPage{}
}

// What a character of PDFium's text page is to the layout.
type charKind int

const (
	charNone           charKind = iota // no glyph: a line break, or a character no font maps
	charGlyph                          // a glyph drawn on the page
	charGeneratedSpace                 // a space PDFium inferred between two glyphs
)

// inferredSpace is the space PDFium inferred between glyphs a and b of one
// line, placed midway between them (b may stand left of a: right-to-left
// text comes in reading order).
func inferredSpace(a, b glyph) (glyph, bool) {
	if math.Abs(a.y-b.y) > baselineTol*math.Max(a.size, b.size) {
		return glyph{}, false // a line break, not a space
	}
	x := (a.end() + b.x) / 2
	if b.x < a.x {
		x = (b.end() + a.x) / 2
	}
	return glyph{x: x, y: a.y, size: a.size, s: " ", gen: true}, true
}

// char reads character i of a text page: what kind of character it is
// and, for a glyph, the glyph and its direction in quarter turns.
func (s *pdfiumSession) char(tp uint64, i int, out *pageContent) (g glyph, geo charGeometry, q int, kind charKind, err error) {
	u, err := s.call("FPDFText_GetUnicode", tp, uint64(i))
	if err != nil {
		return g, geo, 0, charNone, err
	}
	r := rune(uint32(u))
	switch {
	case r == '\r' || r == '\n':
		return g, geo, 0, charNone, nil
	case r == pdfiumLineEndHyphen:
		r = '-'
	case unicode.IsSpace(r):
		generated, err := s.call("FPDFText_IsGenerated", tp, uint64(i))
		if err != nil {
			return g, geo, 0, charNone, err
		}
		if int32Of(generated) != 0 {
			return g, geo, 0, charGeneratedSpace, nil
		}
	}
	// A character of a font without a Unicode map is PDFium's best guess
	// (its glyph name, its code in the font's encoding), as pdftotext's
	// is; only a character with no guess at all counts as unmapped.
	text := runeText(r)
	if !unicode.IsSpace(r) {
		out.drawn++
		if text == "" {
			out.unmapped++
			return g, geo, 0, charNone, nil
		}
	}
	geo, err = s.geometry(tp, i)
	if err != nil {
		return g, geo, 0, charNone, err
	}
	q = quarterTurns(geo.a, geo.b)
	x, y := rotate(geo.x, geo.y, q)
	// The advance: how far the loose box reaches past the origin along the
	// text's direction.
	end := math.Inf(-1)
	for _, c := range [][2]float64{{geo.left, geo.bottom}, {geo.left, geo.top}, {geo.right, geo.bottom}, {geo.right, geo.top}} {
		cx, _ := rotate(c[0], c[1], q)
		end = math.Max(end, cx)
	}
	g = glyph{x: x, y: y, w: math.Max(0, end-x), size: geo.size * math.Hypot(geo.c, geo.d), s: text}
	if !isFinite(g.x, g.y, g.w, g.size) {
		return g, geo, 0, charNone, nil
	}
	return g, geo, q, charGlyph, nil
}

// pdfiumLineEndHyphen is the code PDFium gives a hyphen at the end of a
// line (the layout joins the word's halves, pdf_clean.go).
const pdfiumLineEndHyphen = 0x02

// runeText is the text of one character, cleaned like the Go reader's
// (decodeCode): "" for a character that says nothing (none, a control
// character, the replacement character or a private-use code).
func runeText(r rune) string {
	if r <= 0 || r > unicode.MaxRune || (r >= 0xd800 && r <= 0xdfff) || r == unicode.ReplacementChar ||
		(r < 0x20 && r != '\t') || (r >= 0xe000 && r <= 0xf8ff) {
		return ""
	}
	return cleanGlyph(string(r))
}

// countObjects counts what a page without text draws instead: images (a
// scan) and shapes (text converted to outlines, drawings), which tell a
// page OCR could read from an empty one.
func (s *pdfiumSession) countObjects(page uint64, out *pageContent, bud *budget) {
	n, err := s.call("FPDFPage_CountObjects", page)
	if err != nil {
		bud.check()
		return
	}
	for i := range min(int32Of(n), maxCountedObjects) {
		bud.spend(16)
		obj, err := s.call("FPDFPage_GetObject", page, uint64(i))
		if err != nil || obj == 0 {
			bud.check()
			return
		}
		t, err := s.call("FPDFPageObj_GetType", obj)
		if err != nil {
			bud.check()
			return
		}
		switch int32Of(t) {
		case pageObjImage, pageObjForm:
			out.images++
		case pageObjPath, pageObjShading:
			out.shapes++
		}
	}
}
