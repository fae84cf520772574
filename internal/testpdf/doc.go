// Package testpdf writes small, valid PDFs of plain text for tests: one
// font (Helvetica, WinAnsiEncoding, with its real glyph widths), A4 pages,
// one line of text per text object, and a cross-reference table with the
// correct byte offsets, so that strict readers accept the file as is.
//
//	pdf := testpdf.Text("Essay", "First paragraph ...\n\nSecond paragraph ...")
//
// Only printable ASCII is drawn; any other character becomes '?'.
package testpdf
