package report

import "strings"

// Reflow joins the hard-wrapped lines of extracted text (a PDF
// keeps its line breaks) so that a paragraph flows in columns of any width (the
// web page's, the printed report's):
// a single line break after a line of at least minWrappedLine bytes
// becomes a space. Blank lines, short lines (headings, list items) and
// breaks before a list marker stay. A text whose paragraphs are lines
// already (DOCX, ODT, HTML: see hardWrapped) is left as it is: joining its
// lines merged a heading into the paragraph before it. Only bytes are
// replaced one for one, so every offset into the text still holds.
func Reflow(text string) string {
	if !hardWrapped(text) {
		return text
	}
	const minWrappedLine = 40
	b := []byte(text)
	lineStart := 0
	for i := 0; i < len(b); i++ {
		if b[i] != '\n' {
			continue
		}
		long := i-lineStart >= minWrappedLine
		lineStart = i + 1
		if !long || i+1 >= len(b) || b[i+1] == '\n' || b[i+1] == '\r' || (i > 0 && b[i-1] == '\n') {
			continue
		}
		switch b[i+1] {
		case '-', '*', ' ', '\t':
			continue
		}
		if strings.HasPrefix(text[i+1:], "•") {
			continue
		}
		b[i] = ' '
	}
	return string(b)
}

// hardWrapped reports whether text reads as broken into lines of a page's
// width (PDF, e-mail, plain text wrapped at 72 characters) rather than
// one line per paragraph: of its lines of at least 40 bytes, fewer than
// one in ten is longer than 160 bytes. A page line rarely holds more than
// 110 characters; a paragraph of more than two sentences does.
func hardWrapped(text string) bool {
	long, veryLong := 0, 0
	for line := range strings.Lines(text) {
		switch n := len(strings.TrimRight(line, "\r\n")); {
		case n > 160:
			veryLong++
			long++
		case n >= 40:
			long++
		}
	}
	return long > 0 && veryLong*10 < long
}
