package extract

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plagd/plagd/internal/testpdf"
)

// Layout tests build pages from synthetic glyphs: each letter is a glyph
// half the font size wide, as in a monospaced font.

// word places the letters of s from x on baseline y.
func word(x, y, size float64, s string) []glyph {
	var gs []glyph
	for _, r := range s {
		gs = append(gs, glyph{x: x, y: y, w: size / 2, size: size, s: string(r)})
		x += size / 2
	}
	return gs
}

// textAt places words separated by a gap of gap×size (no space glyphs,
// like pdflatex).
func textAt(x, y, size, gap float64, s string) []glyph {
	var gs []glyph
	for _, w := range strings.Fields(s) {
		gs = append(gs, word(x, y, size, w)...)
		x += float64(len([]rune(w)))*size/2 + gap*size
	}
	return gs
}

func spell(lines []*line) []string {
	var out []string
	for _, l := range lines {
		out = append(out, lineText(l))
	}
	return out
}

func TestLineText_SpacesFromGaps(t *testing.T) {
	cases := []struct {
		name string
		gs   []glyph
		want string
	}{
		{"word gaps without space glyphs", textAt(72, 700, 10, 0.3, "the quick brown fox"), "the quick brown fox"},
		{"tight justified gaps", textAt(72, 700, 10, 0.18, "tight justified line"), "tight justified line"},
		{"kerning is not a space", append(word(72, 700, 10, "Wa"), word(82.5, 700, 10, "ter")...), "Water"},
		{"drawn spaces", word(72, 700, 10, "drawn spaces"), "drawn spaces"},
		{"fake bold drawn twice", append(word(72, 700, 10, "bold"), word(72.3, 700, 10, "bold")...), "bold"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := spell(groupLines(c.gs))
			if len(got) != 1 || got[0] != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestGroupLines_BaselinesAndSuperscripts(t *testing.T) {
	var gs []glyph
	gs = append(gs, textAt(72, 700, 10, 0.3, "second line")...) // drawn first
	gs = append(gs, textAt(72, 712, 10, 0.3, "first line")...)
	gs = append(gs, word(122, 715.5, 6, "1")...) // footnote mark, raised
	gs = append(gs, textAt(72, 688, 10, 0.3, "third")...)
	got := spell(groupLines(gs))
	want := []string{"first line 1", "second line", "third"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// twoColumnPage is a title across the page, then two columns of n lines
// with a 20-point gutter, and a footer across the page.
func twoColumnPage(n int, rightOffset float64) []glyph {
	gs := textAt(72, 760, 14, 0.3, "A Title Across Both Columns Of The Page")
	for i := range n {
		y := 730 - float64(i)*12
		gs = append(gs, textAt(72, y, 10, 0.3, fmt.Sprintf("left %c line text here", 'a'+i))...)
		gs = append(gs, textAt(72+120+20, y-rightOffset, 10, 0.3, fmt.Sprintf("right %c line text goes", 'a'+i))...)
	}
	return gs
}

func readAll(lines []*line) []string {
	var out []string
	for _, b := range readingOrder(lines, 2) {
		for _, l := range blockLines(b) {
			out = append(out, l.text)
		}
	}
	return out
}

func TestReadingOrder_TwoColumns(t *testing.T) {
	for _, off := range []float64{0, 4} { // aligned and misaligned baselines
		got := readAll(groupLines(twoColumnPage(8, off)))
		want := []string{"A Title Across Both Columns Of The Page"}
		for i := range 8 {
			want = append(want, fmt.Sprintf("left %c line text here", 'a'+i))
		}
		for i := range 8 {
			want = append(want, fmt.Sprintf("right %c line text goes", 'a'+i))
		}
		if !slices.Equal(got, want) {
			t.Errorf("offset %v: got\n%q\nwant\n%q", off, got, want)
		}
	}
}

func TestReadingOrder_SingleColumnStaysLineByLine(t *testing.T) {
	// Ragged lines whose word gaps happen to line up for a few lines, and a
	// short table of two cells: neither is a column layout.
	var gs []glyph
	lines := []string{
		"one two three four five six seven", "one two three four five six",
		"alpha beta gamma delta epsilon zeta eta", "short line",
		"another full line of ordinary running text", "and the end of it",
	}
	for i, s := range lines {
		gs = append(gs, textAt(72, 700-float64(i)*12, 10, 0.3, s)...)
	}
	got := readAll(groupLines(gs))
	if !slices.Equal(got, lines) {
		t.Errorf("got %q, want %q", got, lines)
	}
}

func TestBlockLines_Paragraphs(t *testing.T) {
	var gs []glyph
	ys := []float64{700, 688, 676, 652, 640} // a blank line's gap before the 4th
	for i, y := range ys {
		gs = append(gs, textAt(72, y, 10, 0.3, fmt.Sprintf("line %d", i))...)
	}
	got := renderLines(blockLines(groupLines(gs)))
	want := "line 0\nline 1\nline 2\n\nline 3\nline 4"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestJoinHyphenated(t *testing.T) {
	tl := func(texts ...string) []textLine {
		var out []textLine
		for i, s := range texts {
			b := breakLine
			if i == 0 {
				b = breakBlock
			}
			if strings.HasPrefix(s, "¶") {
				s, b = s[len("¶"):], breakPara
			}
			out = append(out, textLine{text: s, before: b})
		}
		return out
	}
	cases := []struct {
		name string
		in   []textLine
		want string
	}{
		{"joined", tl("the infor-", "mation age"), "the information\nage"},
		{"whole line joined", tl("infor-", "mation"), "information"},
		{"capital is not joined", tl("Jan Novák and Smith-", "Jones wrote"), "Jan Novák and Smith-\nJones wrote"},
		{"number is not joined", tl("in 2020-", "2021 we"), "in 2020-\n2021 we"},
		{"dash after space stays", tl("a pause -", "then more"), "a pause -\nthen more"},
		{"not across paragraphs", tl("end-", "¶start"), "end-\n\nstart"},
		{"across a page or column", tl("infor-", "mation"), "information"},
		{"czech repeated hyphen", tl("česko-", "-slovenský spor"), "česko-slovenský\nspor"},
		{"compound known from the document", tl("a word-", "level score and word-level again"), "a word-level\nscore and word-level again"},
		{"soft hyphen at line end", tl("Straße\u00ad", "Name"), "StraßeName"},
		{"soft hyphen inside a line", tl("infor\u00admation"), "information"},
		{"mid-line compounds stay", tl("a well-known self-evident fact"), "a well-known self-evident fact"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := renderLines(joinHyphenated(c.in)); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestCleanGlyph(t *testing.T) {
	cases := map[string]string{
		"\ufb01": "fi", "\ufb02": "fl", "\ufb00": "ff", "\ufb03": "ffi", "\ufb04": "ffl", "\ufb05": "st", "\ufb06": "st",
		"\u00a0": " ", "\u202f": " ", "\u2011": "-", "\ufffd": "", "ř": "ř", "a": "a",
	}
	for in, want := range cases {
		if got := cleanGlyph(in); got != want {
			t.Errorf("cleanGlyph(%q) = %q, want %q", in, got, want)
		}
	}
	// A ligature glyph stays inside its word.
	gs := append(word(72, 700, 10, "e"), glyph{x: 77, y: 700, w: 5, size: 10, s: cleanGlyph("\ufb03")})
	gs = append(gs, word(82, 700, 10, "cient")...)
	if got := lineText(groupLines(gs)[0]); got != "efficient" {
		t.Errorf("ligature word: got %q", got)
	}
}

func TestDropRunningLines(t *testing.T) {
	var pages []pageLines
	for p := 1; p <= 4; p++ {
		var gs []glyph
		if p > 1 { // the title page has no header
			gs = append(gs, textAt(72, 810, 9, 0.3, "Masaryk University Faculty of Informatics")...)
		}
		gs = append(gs, textAt(72, 700, 10, 0.3, fmt.Sprintf("body text of page %d", p))...)
		gs = append(gs, textAt(72, 688, 10, 0.3, "the same body line on every page")...)
		gs = append(gs, textAt(290, 30, 9, 0.3, fmt.Sprintf("Page %d of 4", p))...)
		pages = append(pages, pageLines{lines: groupLines(gs), top: 842, bottom: 0})
	}
	dropRunningLines(pages)
	for i, p := range pages {
		got := spell(p.lines)
		want := []string{fmt.Sprintf("body text of page %d", i+1), "the same body line on every page"}
		if !slices.Equal(got, want) {
			t.Errorf("page %d: got %q, want %q", i+1, got, want)
		}
	}
}

func TestPageNumberPattern(t *testing.T) {
	for _, s := range []string{"7", "- 7 -", "– 12 –", "Page 7 of 80", "Strana 3 z 45", "7/80", "vii", "str. 12"} {
		if !pageNumber.MatchString(s) {
			t.Errorf("%q should be a page number", s)
		}
	}
	for _, s := range []string{"Conclusion", "7 apples", "1.2 Methods", "In 2020"} {
		if pageNumber.MatchString(s) {
			t.Errorf("%q is not a page number", s)
		}
	}
}

// testPDF writes a minimal PDF whose pages have the given content streams,
// in Helvetica with every glyph 500 units wide. image adds an image XObject
// /Im1 to every page's resources.
func testPDF(pages []string, image bool) []byte {
	kids := ""
	for i := range pages {
		kids += fmt.Sprintf("%d 0 R ", 5+2*i)
	}
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", kids, len(pages)),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding /FirstChar 32 /LastChar 255 /Widths [" + strings.Repeat("500 ", 224) + "] >>",
		"<< /Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8 /Length 1 >>\nstream\n\x00\nendstream",
	}
	for i, c := range pages {
		xo := ""
		if image {
			xo = "/XObject << /Im1 4 0 R >>"
		}
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> %s >> /Contents %d 0 R >>", xo, 6+2*i),
			testpdf.Stream(c))
	}
	return testpdf.File(objs...)
}

// tj draws words at (x, y) the way pdflatex does: no space characters,
// the gaps made by TJ displacements.
func tj(x, y float64, words ...string) string {
	var parts []string
	for _, w := range words {
		parts = append(parts, "("+w+")")
	}
	return fmt.Sprintf("BT /F1 10 Tf 1 0 0 1 %g %g Tm [%s] TJ ET\n", x, y, strings.Join(parts, " -300 "))
}

func TestPDF_EndToEnd(t *testing.T) {
	var pages []string
	for p := 1; p <= 3; p++ {
		c := tj(72, 800, "Running", "Header", "Text")
		c += tj(72, 700, "the", "infor-")
		c += tj(72, 688, "mation", "age", "is", "here")
		c += tj(72, 664, fmt.Sprintf("page%d", p), "ends")
		c += fmt.Sprintf("BT /F1 10 Tf 1 0 0 1 290 30 Tm (- %d -) Tj ET\n", p)
		pages = append(pages, c)
	}
	text, err := Text(testPDF(pages, false), "a.pdf", "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "the information\nage is here\n\npage1 ends\n\nthe information\nage is here\n\npage2 ends\n\nthe information\nage is here\n\npage3 ends"
	if text != want {
		t.Errorf("got %q\nwant %q", text, want)
	}
}

func TestPDF_Failures(t *testing.T) {
	good := testPDF([]string{tj(72, 700, "hello", "world")}, false)
	scan := testPDF([]string{"q 500 0 0 700 50 50 cm /Im1 Do Q", "q 500 0 0 700 50 50 cm /Im1 Do Q"}, true)
	cases := []struct {
		name    string
		content []byte
		opt     Options
		kind    Kind
		reason  string
	}{
		{"truncated", good[:len(good)/2], Options{}, ErrCorrupt, "truncated"},
		{"not a pdf", []byte("hello, this is not a PDF at all"), Options{}, ErrCorrupt, "no PDF header"},
		{"garbage after header", append([]byte("%PDF-1.4\n"), append(bytes.Repeat([]byte{0xff, 0x00, 0x7f}, 300), "%%EOF"...)...), Options{}, ErrCorrupt, "damaged"},
		{"scan", scan, Options{}, ErrNoTextLayer, "the 2 pages are images (a scan); enable OCR"},
		{"scan, OCR program missing", scan, Options{OCR: OCROptions{Tesseract: "/nonexistent/tesseract"}}, ErrNoTextLayer, "not found"},
		{"no text at all", testPDF([]string{"0 0 m 100 100 l S"}, false), Options{}, ErrEmpty, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Text(c.content, "x.pdf", "application/pdf", c.opt)
			var e *Error
			if !errors.As(err, &e) || e.Kind != c.kind || !strings.Contains(e.Reason, c.reason) {
				t.Errorf("got %v (%#v), want kind %v with %q", err, e, c.kind, c.reason)
			}
		})
	}
	if text, err := Text(good, "x.pdf", "", Options{}); err != nil || text != "hello world" {
		t.Errorf("good file: %q, %v", text, err)
	}
	// A PDF 2.0 header and junk after %%EOF are accepted, as readers do.
	fixed := append(bytes.Replace(good, []byte("%PDF-1.4"), []byte("%PDF-2.0"), 1), make([]byte, 2000)...)
	if text, err := Text(fixed, "x.pdf", "", Options{}); err != nil || text != "hello world" {
		t.Errorf("PDF 2.0 with padding: %q, %v", text, err)
	}
}

// TestPDF_Fixtures reads the PDFs in testdata that have the true text
// beside them (x.pdf and x.txt) and requires word-level F1 >= 0.98.
// Fixtures named *encrypted*, *scan* or *broken* must fail instead.
func TestPDF_Fixtures(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.pdf"))
	files2, _ := filepath.Glob(filepath.Join("testdata", "*", "*.pdf"))
	files = append(files, files2...)
	if len(files) == 0 {
		t.Skip("no PDF fixtures in testdata")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			text, err := Text(b, f, "", Options{})
			truth, terr := os.ReadFile(strings.TrimSuffix(f, ".pdf") + ".txt")
			if terr != nil {
				t.Logf("no true text; err=%v, %d bytes of text", err, len(text))
				return
			}
			if err != nil {
				t.Fatalf("extract: %v", err)
			}
			f1 := pdfWordF1(text, string(truth))
			t.Logf("word F1 %.4f", f1)
			if f1 < 0.98 {
				t.Errorf("word F1 %.4f < 0.98", f1)
			}
		})
	}
}

// FuzzPDF feeds mutated PDFs through Text: it must return, within its
// timeout, text or an *Error, and never panic.
func FuzzPDF(f *testing.F) {
	f.Add(testPDF([]string{tj(72, 700, "hello", "world")}, false))
	f.Add(testPDF([]string{"q 500 0 0 700 50 50 cm /Im1 Do Q"}, true))
	f.Add(testPDF([]string{tj(72, 700, "infor-") + tj(72, 688, "mation")}, false))
	if fs, _ := filepath.Glob(filepath.Join("testdata", "*.pdf")); len(fs) > 0 {
		for _, p := range fs {
			if b, err := os.ReadFile(p); err == nil && len(b) < 64<<10 {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		if len(content) > 1<<20 {
			return
		}
		_, err := Text(content, "fuzz.pdf", "application/pdf", Options{Timeout: 5e9})
		var e *Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("error of type %T: %v", err, err)
		}
		if e != nil && e.Kind == ErrTimeout {
			t.Fatalf("timeout: %v", err)
		}
	})
}

// TestPDF_OutlinedTextIsNotEmpty: a page whose letters are drawn as shapes
// (as "print to PDF" with fonts converted to outlines makes them) has no
// text layer to read, but it is not empty: it fails as no_text_layer, and
// a page with one rule is still empty.
func TestPDF_OutlinedTextIsNotEmpty(t *testing.T) {
	var ops []string
	for i := range 30 { // thirty small filled shapes in a row: letters
		x := 72 + i*8
		ops = append(ops, fmt.Sprintf("%d 700 m %d 706 l %d 700 l f", x, x+3, x+6))
	}
	_, err := Text(testPDF([]string{strings.Join(ops, "\n")}, false), "x.pdf", "", Options{})
	var e *Error
	if !errors.As(err, &e) || e.Kind != ErrNoTextLayer || !strings.Contains(e.Reason, "outlines") {
		t.Errorf("outlined letters: got %v, want no_text_layer naming outlines", err)
	}
	_, err = Text(testPDF([]string{"72 700 m 500 700 l S"}, false), "x.pdf", "", Options{})
	if !errors.Is(err, ErrEmpty) {
		t.Errorf("one rule: got %v, want empty", err)
	}
}
