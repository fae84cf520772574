package testpdf

import (
	"bytes"
	"fmt"
)

// MalformedHex returns a one-page PDF whose content stream holds a
// malformed hex string followed by hostile bytes (invalid UTF-8, NUL, a
// terminal escape, a bidi override, line breaks). PDF libraries fail on it
// with an error that quotes those bytes, as a file of a public PDF test
// corpus did (issue 14 item 1b): the test file for every place a parser's
// reason is stored, logged or printed.
func MalformedHex() []byte {
	content := "BT /F1 11 Tf 72 700 Td <\x10%\x1f0/\xa0\xff\x00\x1b[2J \u202eevil\r\n\x07> Tj ET"
	return Objects(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	)
}

// Objects returns a PDF of the given objects (numbered from 1, object 1
// the catalog) with a correct cross-reference table: the frame for
// hand-made, possibly hostile, object bodies.
func Objects(objs ...string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offs := make([]int, 0, len(objs))
	for i, o := range objs {
		offs = append(offs, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	x := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, x)
	return b.Bytes()
}
