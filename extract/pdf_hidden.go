package extract

import (
	"math"

	"github.com/ledongthuc/pdf"
)

// The hidden text of PDF pages, whichever engine read them
// (pdfium_hidden.go for PDFium; the Go reader below): the reasons, and
// the removal of hidden glyphs from a page.
//
// The Go reader (pdf_content.go) applies PDFium's rules with what its
// interpreter follows: render modes 3 and 7; fonts under 1 pt; a glyph's
// origin outside the crop box (by its size and advance); white fills set
// by g, rg, k, cs and sc/scn of the device colour spaces. It does not
// follow soft masks or ExtGState opacity, and judges white text against
// the whole page: white text is hidden only on a page that draws no image,
// no shading and no filled path of another colour anywhere.

// Text render modes (PDF 32000-1, 9.3.6) and the reasons a PDF character
// cannot be seen.
const (
	renderFill        = 0
	renderInvisible   = 3
	renderFillClip    = 4
	renderClip        = 7
	minFillAlpha      = 13 // of 255: 5 % opacity
	reasonInvisible   = "invisible text (render mode 3)"
	reasonTransparent = "transparent text"
	reasonTiny        = "tiny text (under 1 pt)"
	reasonOutside     = "text outside the page"
	reasonWhite       = "white text on a white page"
)

// pdfHiddenRun is a run of hidden characters a page left out.
type pdfHiddenRun struct {
	why   string
	chars int
}

// dropHidden removes the hidden glyphs of a page (why[i] != "" for glyph
// i), putting one mark glyph per run of them, and records the runs in out.
// ocrLayer keeps invisible text: the page is a scan's OCR layer.
func dropHidden(out *pageContent, orient []int, why []string, ocrLayer bool) []int {
	kept := make([]glyph, 0, len(out.glyphs))
	keptOrient := make([]int, 0, len(orient))
	run := -1 // index in out.hidden of the run being read, -1 after a seen glyph
	for i, g := range out.glyphs {
		w := why[i]
		if w == reasonInvisible && ocrLayer {
			w = ""
		}
		if w == "" {
			kept = append(kept, g)
			keptOrient = append(keptOrient, orient[i])
			run = -1
			continue
		}
		n := hiddenChars(g.s)
		out.drawn -= n
		if run >= 0 && out.hidden[run].why == w {
			out.hidden[run].chars += n
			continue
		}
		out.hidden = append(out.hidden, pdfHiddenRun{why: w})
		run = len(out.hidden) - 1
		out.hidden[run].chars = n
		mark := glyph{x: g.x, y: g.y, size: g.size, s: string(hiddenMark)}
		q := orient[i]
		if w == reasonOutside {
			if len(kept) == 0 {
				continue // nowhere to stand: counted, not placed
			}
			prev := kept[len(kept)-1]
			mark = glyph{x: prev.end(), y: prev.y, size: prev.size, s: string(hiddenMark)}
			q = keptOrient[len(keptOrient)-1]
		}
		kept = append(kept, mark)
		keptOrient = append(keptOrient, q)
	}
	out.glyphs = kept
	return keptOrient
}

// reportHidden records the hidden runs of the pages whose text is the
// document's.
func reportHidden(opt Options, contents []pageContent) {
	for _, c := range contents {
		for _, r := range c.hidden {
			opt.hide(r.why, r.chars)
		}
	}
}

// deviceColor reads the operands of g, rg, k, sc or scn as a grey, RGB or
// CMYK colour by their count; other operands (a pattern's name, the
// components of an ICC space of another count) give no known colour.
func deviceColor(args []pdf.Value) (rgb, bool) {
	v := make([]float64, len(args))
	for i, a := range args {
		if a.Kind() != pdf.Real && a.Kind() != pdf.Integer {
			return rgb{}, false
		}
		v[i] = min(max(a.Float64(), 0), 1)
	}
	b := func(f float64) uint8 { return uint8(f*255 + 0.5) }
	switch len(v) {
	case 1:
		return rgb{b(v[0]), b(v[0]), b(v[0])}, true
	case 3:
		return rgb{b(v[0]), b(v[1]), b(v[2])}, true
	case 4:
		k := 1 - v[3]
		return rgb{b((1 - v[0]) * k), b((1 - v[1]) * k), b((1 - v[2]) * k)}, true
	}
	return rgb{}, false
}

// hiddenWhy says why glyph g, drawn in state st at text rendering matrix
// trm, cannot be seen; reasonWhite is decided with the page (dropHidden).
func (in *interp) hiddenWhy(st *textState, trm pdfMatrix, g glyph) string {
	switch {
	case st.tr == renderInvisible || st.tr == renderClip:
		return reasonInvisible
	case in.cropOK && glyphOutside(in.crop, trm[4], trm[5], math.Max(g.w, g.size), g.size):
		return reasonOutside
	case g.size < 1:
		return reasonTiny
	case (st.tr == renderFill || st.tr == renderFillClip) && st.fillOK && st.fill.near(white):
		return reasonWhite
	}
	return ""
}

// glyphOutside tells whether a glyph whose origin is (x, y), of the given
// reach (advance or size, whichever is larger) and size, lies wholly
// outside box (left, bottom, right, top).
func glyphOutside(box [4]float64, x, y, reach, size float64) bool {
	return x+reach <= box[0] || x-reach >= box[2] || y+size <= box[1] || y-size >= box[3]
}

// dropHidden removes the Go reader's hidden glyphs from the page: white
// text counts only on a page nothing colours, and invisible text on a
// page whose only text it is and which shows an image is an OCR layer.
func (in *interp) dropHidden() {
	if len(in.why) != len(in.out.glyphs) {
		return // a page cut short (errPageFull) between the two appends cannot happen; be safe
	}
	seen, invisibleOnly := false, true
	for i, w := range in.why {
		if w == reasonWhite && (in.covered || in.out.images > 0) {
			in.why[i], w = "", ""
		}
		if w != "" {
			seen = true
		}
		if (w == "" && !in.out.glyphs[i].space()) || (w != "" && w != reasonInvisible) {
			invisibleOnly = false
		}
	}
	if seen {
		in.orient = dropHidden(&in.out, in.orient, in.why, invisibleOnly && in.out.images > 0)
	}
	in.why = nil
}
