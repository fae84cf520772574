package extract

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/plagd/plagd/internal/testpdf"
)

// hiddenPDFPage lays the copied paragraph out as a page content stream:
// visible pieces drawn after visOps, hidden letters after hidOps (or, with
// outside, off the page, without moving the pen), on wrapped lines of 11
// pt Helvetica. before is drawn first (a box, an image).
func hiddenPDFPage(before, visOps, hidOps string, outside bool) (string, int) {
	const size, left, right, lead = 11.0, 72.0, 523.0, 15.0
	x, y := left, 760.0
	var b strings.Builder
	b.WriteString(before + "\n")
	put := func(ops, s string, px, py float64) {
		fmt.Fprintf(&b, "BT %s /F1 %g Tf 1 0 0 1 %.2f %.2f Tm (%s) Tj ET\n", ops, size, px, py, testpdf.Escape(s))
	}
	vis := func(s string) string {
		if w := testpdf.Width(s, size); s != " " && x+w > right {
			x, y = left, y-lead
		}
		put("0 Tr "+visOps, s, x, y)
		x += testpdf.Width(s, size)
		return ""
	}
	hid := func(s string) string {
		if outside {
			put("0 Tr "+hidOps, s, -400, -400)
			return ""
		}
		// The hidden letters' own font size, if their ops set one, decides
		// how far they move the pen.
		sz := size
		if strings.Contains(hidOps, "Tf") {
			fmt.Sscanf(strings.Fields(hidOps)[1], "%g", &sz)
			fmt.Fprintf(&b, "BT 0 Tr %s 1 0 0 1 %.2f %.2f Tm (%s) Tj ET\n", hidOps, x, y, testpdf.Escape(s))
		} else {
			put("0 Tr "+hidOps, s, x, y)
		}
		x += testpdf.Width(s, sz)
		return ""
	}
	_, n := interleave(vis, hid)
	return b.String(), n
}

// TestPDF_Hidden: a copied paragraph with letters hidden between its
// words, each way a PDF page can hide them, reads as the clean paragraph
// and is flagged, with either engine; text a reader does see, and a
// scan's OCR layer, are kept and not flagged.
func TestPDF_Hidden(t *testing.T) {
	const darkBox = "0 0 0 rg 40 600 520 200 re f"
	const image = "q 520 0 0 200 40 600 cm /Im1 Do Q"
	for _, c := range []struct {
		name, before, vis, hid string
		outside, hidden        bool
	}{
		{name: "white", vis: "0 g", hid: "1 g", hidden: true},
		{name: "near white", vis: "0 g", hid: "0.95 0.96 0.97 rg", hidden: true},
		{name: "invisible", vis: "0 g", hid: "3 Tr", hidden: true},
		{name: "tiny", vis: "0 g", hid: "/F1 0.5 Tf", hidden: true},
		{name: "outside the page", vis: "0 g", hid: "0 g", outside: true, hidden: true},
		{name: "white beside a white box", before: "1 g 40 600 520 200 re f", vis: "0 g", hid: "1 g", hidden: true},
		{name: "grey", vis: "0 g", hid: "0.8 g", hidden: false},
		{name: "small", vis: "0 g", hid: "/F1 5 Tf", hidden: false},
		{name: "white on a dark box", before: darkBox, vis: "1 g", hid: "1 g", hidden: false},
		{name: "white on an image", before: image, vis: "1 g", hid: "1 g", hidden: false},
		{name: "OCR layer over a scan", before: image, vis: "3 Tr", hid: "3 Tr", hidden: false},
	} {
		for _, engine := range []PDFEngine{PDFEnginePDFium, PDFEngineGo} {
			t.Run(c.name+"/"+string(engine), func(t *testing.T) {
				page, n := hiddenPDFPage(c.before, c.vis, c.hid, c.outside)
				pdf := testpdf.Pages(page)
				r, err := Read(context.Background(), pdf, "a.pdf", "", Options{PDFEngine: engine})
				if !c.hidden {
					if err != nil || r.Flags != nil || !strings.Contains(r.Text, "qz") {
						t.Fatalf("seen text changed: %q %+v %v", r.Text, r.Flags, err)
					}
					return
				}
				wantClean(t, r, err, n)
			})
		}
	}
}

// TestPDF_HiddenBySize: the size that counts is the one on the page, the
// font size times the text matrix's scale: 1 pt text scaled by 11 is seen,
// 11 pt text scaled by 0.05 is not.
func TestPDF_HiddenBySize(t *testing.T) {
	page := "BT /F1 1 Tf 11 0 0 11 72 700 Tm (Scaled up text stays) Tj ET\n" +
		"BT /F1 11 Tf 0.05 0 0 0.05 200 700 Tm (zqzq) Tj ET\n" +
		"BT /F1 11 Tf 1 0 0 1 72 680 Tm (in the text.) Tj ET"
	for _, engine := range []PDFEngine{PDFEnginePDFium, PDFEngineGo} {
		t.Run(string(engine), func(t *testing.T) {
			r, err := Read(context.Background(), testpdf.Pages(page), "a.pdf", "", Options{PDFEngine: engine})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(strings.Fields(r.Text), " "); got != "Scaled up text stays in the text." {
				t.Errorf("text %q", got)
			}
			if len(r.Flags) != 1 || r.Flags[0].Count != 4 || !strings.Contains(r.Flags[0].Detail, "tiny") {
				t.Errorf("flags %+v, want 4 tiny characters", r.Flags)
			}
		})
	}
}
