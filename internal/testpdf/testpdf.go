package testpdf

import (
	"bytes"
	"fmt"
	"strings"
)

// Page geometry, in points: A4 with 72 pt margins, 11 pt text on 15 pt lines.
const (
	pageWidth  = 595
	pageHeight = 842
	margin     = 72
	fontSize   = 11
	leading    = 15
	textWidth  = pageWidth - 2*margin
	// linesPerPage fits between the top and bottom margins.
	linesPerPage = (pageHeight - 2*margin) / leading
)

// helvetica holds the widths (1/1000 em) of Helvetica's glyphs 32..126, from
// the font's standard metrics.
var helvetica = [95]int{
	278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, // space ! " # $ % & ' ( ) * + , - . /
	556, 556, 556, 556, 556, 556, 556, 556, 556, 556, // 0-9
	278, 278, 584, 584, 584, 556, 1015, // : ; < = > ? @
	667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, // A-M
	722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, // N-Z
	278, 278, 278, 469, 556, 333, // [ \ ] ^ _ `
	556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, // a-m
	556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, // n-z
	334, 260, 334, 584, // { | } ~
}

// width is the width of s in points at the page's font size.
func width(s string) float64 {
	w := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 32 || c > 126 {
			c = '?'
		}
		w += helvetica[c-32]
	}
	return float64(w) * fontSize / 1000
}

// Text lays out a title and paragraphs (separated by blank lines; single
// line breaks inside a paragraph are spaces) as wrapped lines, and returns
// the PDF. An empty title is left out.
func Text(title, body string) []byte {
	var lines []string
	if title != "" {
		lines = append(lines, Wrap(title)...)
		lines = append(lines, "")
	}
	for i, para := range strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n\n") {
		para = strings.Join(strings.Fields(para), " ")
		if para == "" {
			continue
		}
		if i > 0 && len(lines) > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, Wrap(para)...)
	}
	return Lines(lines)
}

// Wrap breaks a paragraph into lines that fit the text width, at spaces.
// A word wider than a line gets a line of its own.
func Wrap(para string) []string {
	var out []string
	line := ""
	for _, w := range strings.Fields(para) {
		switch {
		case line == "":
			line = w
		case width(line+" "+w) <= textWidth:
			line += " " + w
		default:
			out = append(out, line)
			line = w
		}
	}
	if line != "" {
		out = append(out, line)
	}
	return out
}

// Lines returns a PDF showing the lines as given, top to bottom, as many
// pages as they need (an empty string is an empty line). No lines make one
// empty page.
func Lines(lines []string) []byte {
	var pages [][]string
	for len(lines) > linesPerPage {
		pages = append(pages, lines[:linesPerPage])
		lines = lines[linesPerPage:]
	}
	pages = append(pages, lines)

	contents := make([]string, len(pages))
	for i, page := range pages {
		var c strings.Builder
		y := pageHeight - margin - fontSize
		for _, line := range page {
			if line != "" {
				fmt.Fprintf(&c, "BT /F1 %d Tf 1 0 0 1 %d %d Tm (%s) Tj ET\n", fontSize, margin, y, escape(line))
			}
			y -= leading
		}
		contents[i] = c.String()
	}
	return Pages(contents...)
}

// escape makes s a PDF literal string's content: backslashes and
// parentheses escaped, anything outside printable ASCII replaced by '?'.
func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' || c == '(' || c == ')':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 32 || c > 126:
			b.WriteByte('?')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Width is the width of s in points in Helvetica at size points, for
// tests that place text themselves (Pages).
func Width(s string, size float64) float64 { return width(s) * size / fontSize }

// Pages returns a PDF of A4 pages whose content streams are given as
// they are: font /F1 is Helvetica (WinAnsi), and /Im1 a 1x1 grey image,
// for tests that need operators Lines does not write (colours, text render
// modes, positions off the page, an image under the text).
func Pages(contents ...string) []byte {
	// Objects: 1 catalog, 2 page tree, 3 font, 4 image, then per page its
	// page dictionary (5+2i) and content stream (6+2i).
	kids := make([]string, len(contents))
	for i := range contents {
		kids[i] = fmt.Sprintf("%d 0 R", 5+2*i)
	}
	widths := make([]string, len(helvetica))
	for i, w := range helvetica {
		widths[i] = fmt.Sprint(w)
	}
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(contents)),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding /FirstChar 32 /LastChar 126 /Widths [" +
			strings.Join(widths, " ") + "] >>",
		"<< /Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8 /Length 1 >>\nstream\n\x80\nendstream",
	}
	for i, c := range contents {
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Resources << /Font << /F1 3 0 R >> /XObject << /Im1 4 0 R >> >> /Contents %d 0 R >>",
				pageWidth, pageHeight, 6+2*i),
			Stream(c))
	}
	return File(objs...)
}

// Stream is the body of a stream object holding content.
func Stream(content string) string {
	return fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content)
}

// File writes a PDF file of the given object bodies, numbered 1, 2, … in
// order (object 1 must be the catalog), with its cross-reference table and
// trailer: the part of a PDF writer every test file shares.
func File(objects ...string) []byte {
	var b bytes.Buffer
	// The binary comment marks the file as binary for transfer programs.
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objects))
	for i, body := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, body)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}

// Escape makes s the content of a PDF literal string (Pages' callers).
func Escape(s string) string { return escape(s) }
