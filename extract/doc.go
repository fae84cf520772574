// Package extract turns the bytes of an uploaded file into plain text.
//
// It is pure: no I/O, no global state beyond read-only tables, so nodes can
// call it concurrently and tests need nothing but bytes. The one exception is
// OCR of scanned PDFs (ocr.go), which runs pdftoppm and tesseract when
// Options.OCR asks for it. Every failure is an
// *Error whose Reason is stored on the document, because "bad input never
// stops the run" (a bad file fails alone) and archive staff need to know why a file
// produced no text.
//
// Formats plug in through the parsers table: a parser gets the raw bytes and
// returns text (for text-based formats such as HTML and RTF it starts with
// decodePlain to get the characters right). Text owns everything around it:
// the size limit, format detection, panic recovery, and the normalisation of
// the result.
//
// # Hidden text
//
// The text is what a reader of the rendered document sees. Text the file
// holds but a reader cannot see (white on a white page, a font of 1 pt or
// less, runs marked hidden, invisible or off-page PDF text) is where an
// evader puts letters between the words of a copied paragraph, so that the
// words no longer match, or filler that dilutes the copied share. Each
// format's parser leaves such text out and reports it with Options.hide,
// which returns a mark (U+FDD0, a Unicode noncharacter) to write where the
// text stood; normalize removes the marks and keeps their byte offsets in
// the final text. Read returns the text and a disguise.HiddenText flag
// whose count is the characters left out (spaces not counted) and whose
// spans are the places, empty ranges of the text; Text and TextContext
// return the text alone. The rules per format are in docx_hidden.go,
// odt_hidden.go, rtf.go, html_hidden.go and pdfium_hidden.go, and with
// their limits in docs/EXTRACTION.md ("Hidden text").
package extract
