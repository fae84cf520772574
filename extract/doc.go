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
package extract
