package extract

// What a reader of a PDF page cannot see, from what PDFium knows of each
// character:
//   - text render mode 3 or 7 (invisible; clipping only), except on a page
//     whose only text is invisible and which shows an image: that is the
//     text layer OCR laid under a scan, which is the page's text;
//   - a fill of (nearly) no opacity, for text that is only filled;
//   - a font size under 1 pt;
//   - a character whose box lies wholly outside the page's crop box;
//   - a fill colour within nearColorDiff of white, for text that is only
//     filled, when nothing under it colours the page: no image, shading or
//     form, and no filled path of another colour, has bounds that hold the
//     character's centre (objects are not ordered, so white text on a
//     dark box is seen even when the box is drawn after it; a page put
//     inside a form, as pdfpages does, hides no white text from plagd).
// A hidden character is left out; each run of them becomes one mark glyph
// at its place (at the end of the glyph before it when it lies outside
// the page), which the layout keeps in line and normalize turns into a
// span.

// pdfiumHiddenScratch is where in the scratch buffer these calls write.
const pdfiumHiddenScratch = 56

// pdfiumLook is what one page's characters are judged against.
type pdfiumLook struct {
	// objects: some text object of the page is invisible, transparent or
	// white, or the page holds forms (whose objects are not listed), so
	// each character's text object is looked at; otherwise only sizes and
	// places are, which cost no call.
	objects      bool
	crop         [4]float64 // left, bottom, right, top
	cropOK       bool
	obj          uint64 // the text object of the last character
	objWhy       string // why its characters are hidden whatever their size and place
	objWhite     bool   // its fill is (nearly) white
	covers       [][4]float64
	coversLoaded bool
	page         uint64
}

// hiddenWhy says why character i, drawn at geo with glyph g, cannot be
// seen, or "".
func (s *pdfiumSession) hiddenWhy(look *pdfiumLook, tp uint64, i int, geo charGeometry, g glyph, bud *budget) (string, error) {
	obj := uint64(0)
	if look.objects {
		var err error
		if obj, err = s.call("FPDFText_GetTextObject", tp, uint64(i)); err != nil {
			return "", err
		}
	}
	if obj != look.obj {
		look.obj, look.objWhy, look.objWhite = obj, "", false
		if obj != 0 {
			if err := s.judgeTextObject(look, obj); err != nil {
				return "", err
			}
		}
	}
	if look.objWhy != "" {
		return look.objWhy, nil
	}
	if look.cropOK {
		l, b, r, t := look.crop[0], look.crop[1], look.crop[2], look.crop[3]
		if geo.right <= l || geo.left >= r || geo.top <= b || geo.bottom >= t {
			return reasonOutside, nil
		}
	}
	if g.size < 1 {
		return reasonTiny, nil
	}
	if look.objWhite {
		if !look.coversLoaded {
			look.coversLoaded = true
			look.covers = s.coveringObjects(look.page, bud)
		}
		cx, cy := (geo.left+geo.right)/2, (geo.top+geo.bottom)/2
		for _, c := range look.covers {
			if cx >= c[0] && cx <= c[2] && cy >= c[1] && cy <= c[3] {
				return "", nil
			}
		}
		return reasonWhite, nil
	}
	return "", nil
}

// judgeTextObject reads a text object's render mode and fill.
func (s *pdfiumSession) judgeTextObject(look *pdfiumLook, obj uint64) error {
	mode, err := s.call("FPDFTextObj_GetTextRenderMode", obj)
	if err != nil {
		return err
	}
	switch int32Of(mode) {
	case renderInvisible, renderClip:
		look.objWhy = reasonInvisible
		return nil
	case renderFill, renderFillClip:
	default:
		return nil // stroked text: its outline shows whatever the fill
	}
	c, a, ok, err := s.fillColor(obj)
	if err != nil || !ok {
		return err
	}
	switch {
	case a < minFillAlpha:
		look.objWhy = reasonTransparent
	case c.near(white):
		look.objWhite = true
	}
	return nil
}

// pageObjText is FPDF_PAGEOBJ_TEXT.
const pageObjText = 1

// suspectObjects tells whether a page's characters need their text
// objects looked at: a text object among the page's is invisible,
// transparent or white, or the page has forms, whose objects this does not
// list. One pass over the page's objects costs far less than a call per
// character on the pages, nearly all, where nothing is suspect; on a page
// of more objects than half its chars (a drawing) the pass would cost
// more, and the answer is yes. A failed call answers yes too.
func (s *pdfiumSession) suspectObjects(page uint64, chars int, bud *budget) bool {
	n, err := s.call("FPDFPage_CountObjects", page)
	if err != nil || 2*int32Of(n) > chars {
		return true
	}
	var look pdfiumLook
	for i := range int32Of(n) {
		bud.spend(4)
		obj, err := s.call("FPDFPage_GetObject", page, uint64(i))
		if err != nil || obj == 0 {
			return true
		}
		t, err := s.call("FPDFPageObj_GetType", obj)
		if err != nil {
			return true
		}
		switch int32Of(t) {
		case pageObjForm:
			return true
		case pageObjText:
			if err := s.judgeTextObject(&look, obj); err != nil || look.objWhy != "" || look.objWhite {
				return true
			}
		}
	}
	return false
}

// fillColor is FPDFPageObj_GetFillColor: the object's fill and its alpha.
func (s *pdfiumSession) fillColor(obj uint64) (c rgb, alpha uint32, ok bool, err error) {
	p := s.scratch + pdfiumHiddenScratch
	r, err := s.call("FPDFPageObj_GetFillColor", obj, uint64(p), uint64(p+4), uint64(p+8), uint64(p+12))
	if err != nil || r == 0 {
		return rgb{}, 0, false, err
	}
	v := func(off uint32) uint32 {
		x, _ := s.mem.ReadUint32Le(p + off)
		return min(x, 255)
	}
	return rgb{uint8(v(0)), uint8(v(4)), uint8(v(8))}, v(12), true, nil
}

// coveringObjects lists the bounds of what may colour a page under its
// text: images, shadings, forms, and paths filled with a colour not near
// white. A failed call ends the list: the page's white text is then judged
// against what was found.
func (s *pdfiumSession) coveringObjects(page uint64, bud *budget) [][4]float64 {
	n, err := s.call("FPDFPage_CountObjects", page)
	if err != nil {
		return nil
	}
	var out [][4]float64
	p := s.scratch + pdfiumHiddenScratch
	for i := range min(int32Of(n), maxCountedObjects) {
		bud.spend(16)
		obj, err := s.call("FPDFPage_GetObject", page, uint64(i))
		if err != nil || obj == 0 {
			break
		}
		t, err := s.call("FPDFPageObj_GetType", obj)
		if err != nil {
			break
		}
		switch int32Of(t) {
		case pageObjImage, pageObjShading, pageObjForm:
		case pageObjPath:
			if r, err := s.call("FPDFPath_GetDrawMode", obj, uint64(p), uint64(p+4)); err != nil || r == 0 {
				continue
			}
			if mode, _ := s.mem.ReadUint32Le(p); mode == 0 {
				continue // not filled
			}
			c, a, ok, err := s.fillColor(obj)
			if err != nil || !ok || a < minFillAlpha || c.near(white) {
				continue
			}
		default:
			continue
		}
		if r, err := s.call("FPDFPageObj_GetBounds", obj, uint64(p), uint64(p+4), uint64(p+8), uint64(p+12)); err != nil || r == 0 {
			continue
		}
		f := func(off uint32) float64 {
			v, _ := s.mem.ReadFloat32Le(p + off)
			return float64(v)
		}
		out = append(out, [4]float64{f(0), f(4), f(8), f(12)})
	}
	return out
}

// hasImage tells whether a page draws an image (or a form, which may hold
// one): a page of invisible text over it is a scan's OCR layer.
func (s *pdfiumSession) hasImage(page uint64, bud *budget) bool {
	n, err := s.call("FPDFPage_CountObjects", page)
	if err != nil {
		return false
	}
	for i := range min(int32Of(n), maxCountedObjects) {
		bud.spend(16)
		obj, err := s.call("FPDFPage_GetObject", page, uint64(i))
		if err != nil || obj == 0 {
			return false
		}
		t, err := s.call("FPDFPageObj_GetType", obj)
		if err != nil {
			return false
		}
		if k := int32Of(t); k == pageObjImage || k == pageObjForm {
			return true
		}
	}
	return false
}
