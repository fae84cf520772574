package hostile

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"strings"
)

// pdfObjects writes a PDF of the given objects (numbered from 1; a body
// that starts with "<<" and holds a "stream" marker is written as is),
// with a correct cross-reference table and a trailer whose /Root is 1 0 R.
// extraTrailer is added to the trailer dictionary.
func pdfObjects(objs []string, extraTrailer string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R %s>>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, extraTrailer, xref)
	return b.Bytes()
}

// stream is the body of a stream object holding data, with extra
// dictionary entries.
func stream(dict string, data []byte) string {
	return fmt.Sprintf("<< /Length %d %s>>\nstream\n%s\nendstream", len(data), dict, data)
}

// flateStream is stream with data deflated.
func flateStream(dict string, data []byte) string {
	var z bytes.Buffer
	w, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	w.Write(data)
	w.Close()
	return stream("/Filter /FlateDecode "+dict, z.Bytes())
}

const helvetica = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"

// AbsurdXrefPDF is item 0: a small PDF whose cross-reference table has a
// subsection starting at object 2^34. The PDF library grows its table to
// that many entries (ensureXrefLen), 512 GB, and Go dies with "fatal
// error: runtime: out of memory", which no recover catches.
func AbsurdXrefPDF() []byte {
	base := SimplePDF("absurd cross-reference table")
	i := bytes.LastIndex(base, []byte("xref\n0 "))
	j := bytes.Index(base[i:], []byte("trailer"))
	absurd := "xref\n0 1\n0000000000 65535 f \n17179869184 1\n0000000015 00000 n \n"
	out := append([]byte{}, base[:i]...)
	out = append(out, absurd...)
	rest := base[i+j:]
	// startxref still points at the table: it starts where it did.
	return append(out, rest...)
}

// SimplePDF is a valid one-page PDF that reads text.
func SimplePDF(text string) []byte {
	content := fmt.Sprintf("BT /F1 12 Tf 72 720 Td (%s) Tj ET", text)
	return pdfObjects([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		stream("", []byte(content)),
		helvetica,
	}, "")
}

// SelfListingPageTreePDF is item 1: a page tree whose root lists itself
// twice among its kids (/Kids [2 0 R 4 0 R 2 0 R]) and a page drawing a
// form XObject that draws itself twice.
func SelfListingPageTreePDF() []byte {
	return pdfObjects([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [2 0 R 4 0 R 2 0 R] /Count 3 >>",
		helvetica,
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 5 0 R /Resources << /Font << /F1 3 0 R >> /XObject << /X 6 0 R >> >> >>",
		stream("", []byte("BT /F1 12 Tf 72 720 Td (A page that draws a form) Tj ET /X Do")),
		stream("/Type /XObject /Subtype /Form /BBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> /XObject << /X 6 0 R >> >>",
			[]byte("BT /F1 9 Tf 72 700 Td (the form draws itself) Tj ET /X Do /X Do")),
	}, "")
}

// BadHexPDF is item 1b: its trailer holds a malformed hex string, and the
// PDF library's error quotes the bytes after it: "\x10 % \x1f0/\xa0",
// control characters and invalid UTF-8 that PostgreSQL refuses to store.
func BadHexPDF() []byte {
	return pdfObjects([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>",
	}, "/ID [<\x10 % \x1f0/\xa0\xff\x00> <00>] ")
}

// BadHexContentPDF is item 1b inside a page: its content stream holds a
// malformed hex string followed by invalid UTF-8, NUL, a terminal escape,
// a bidi override and line breaks, which a parser's error may quote. The
// test file for every place a reason is stored, logged or printed.
func BadHexContentPDF() []byte {
	content := "BT /F1 11 Tf 72 700 Td <\x10%\x1f0/\xa0\xff\x00\x1b[2J \u202eevil\r\n\x07> Tj ET"
	return pdfObjects([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		stream("", []byte(content)),
		helvetica,
	}, "")
}

// NestedXObjectsPDF is item 2: a page drawing form 1, each form i drawing
// form i+1 fan times, depth forms deep, the last drawing a word: fan^depth
// executions (12^8, about 430 million, for the file).
func NestedXObjectsPDF(depth, fan int) []byte {
	depth, fan = max(depth, 1), max(fan, 1)
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /XObject << /X 6 0 R >> /Font << /F1 5 0 R >> >> >>",
		stream("", []byte("BT /F1 12 Tf 72 760 Td (Nested forms) Tj ET /X Do")),
		helvetica,
	}
	for i := 0; i < depth; i++ {
		num := 6 + i
		var body, res string
		if i == depth-1 {
			body = "BT /F1 9 Tf 72 700 Td (leaf) Tj ET"
			res = "<< /Font << /F1 5 0 R >> >>"
		} else {
			body = strings.Repeat("/X Do ", fan)
			res = fmt.Sprintf("<< /XObject << /X %d 0 R >> /Font << /F1 5 0 R >> >>", num+1)
		}
		objs = append(objs, stream("/Type /XObject /Subtype /Form /BBox [0 0 595 842] /Resources "+res, []byte(body)))
	}
	return pdfObjects(objs, "")
}

// SharedStreamPDF is item 3: pages pages that all draw the same deflated
// content stream of glyphs glyphs (60 and about 510,000 in the issue: 11.5
// KB on disk, 30 million glyphs to place).
func SharedStreamPDF(pages, glyphs int) []byte {
	pages, glyphs = max(pages, 1), max(glyphs, 1)
	var c bytes.Buffer
	c.WriteString("BT /F1 8 Tf 10 830 Td 9 TL\n")
	line := strings.Repeat("a", 100)
	for left := glyphs; left > 0; left -= len(line) {
		fmt.Fprintf(&c, "(%s) '\n", line[:min(left, len(line))])
	}
	c.WriteString("ET\n")
	kids := make([]string, pages)
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"", // the page tree, below
		helvetica,
		flateStream("", c.Bytes()),
	}
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", len(objs)+1)
		objs = append(objs, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 3 0 R >> >> >>")
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), pages)
	return pdfObjects(objs, "")
}

// XrefStreamPDF is a valid one-page PDF as PDF 1.5 writers make it: its
// dictionaries in a deflated object stream, its cross-reference table a
// stream (/W, /Index, /Size), so that mutations reach those numbers.
func XrefStreamPDF(text string) []byte {
	inStream := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		helvetica,
	}
	ids := []int{1, 2, 3, 5}
	var hdr, body bytes.Buffer
	for i, o := range inStream {
		fmt.Fprintf(&hdr, "%d %d ", ids[i], body.Len())
		body.WriteString(o + "\n")
	}
	objstm := append(hdr.Bytes(), body.Bytes()...)
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	off4 := b.Len()
	fmt.Fprintf(&b, "4 0 obj\n%s\nendobj\n", stream("", []byte(fmt.Sprintf("BT /F1 12 Tf 72 720 Td (%s) Tj ET", text))))
	off6 := b.Len()
	fmt.Fprintf(&b, "6 0 obj\n%s\nendobj\n", flateStream(fmt.Sprintf("/Type /ObjStm /N %d /First %d", len(inStream), hdr.Len()), objstm))
	off7 := b.Len()
	var x bytes.Buffer
	entry := func(typ byte, f2 uint32, f3 uint16) {
		x.Write([]byte{typ, byte(f2 >> 24), byte(f2 >> 16), byte(f2 >> 8), byte(f2), byte(f3 >> 8), byte(f3)})
	}
	entry(0, 0, 65535)
	for obj := 1; obj <= 7; obj++ {
		switch obj {
		case 4:
			entry(1, uint32(off4), 0)
		case 6:
			entry(1, uint32(off6), 0)
		case 7:
			entry(1, uint32(off7), 0)
		default:
			k := map[int]uint16{1: 0, 2: 1, 3: 2, 5: 3}[obj]
			entry(2, 6, k)
		}
	}
	fmt.Fprintf(&b, "7 0 obj\n%s\nendobj\n", stream("/Type /XRef /Size 8 /W [1 4 2] /Index [0 8] /Root 1 0 R", x.Bytes()))
	fmt.Fprintf(&b, "startxref\n%d\n%%%%EOF\n", off7)
	return b.Bytes()
}
