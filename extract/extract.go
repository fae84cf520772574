// Package extract turns the bytes of an uploaded file into plain text.
//
// It is pure: no I/O, no global state beyond read-only tables, so nodes can
// call it concurrently and tests need nothing but bytes. Every failure is an
// *Error whose Reason is stored on the document, because "bad input never
// stops the run" (DESIGN.md §3) and archive staff need to know why a file
// produced no text.
//
// Formats plug in through the parsers table: a parser gets the raw bytes and
// returns text (for text-based formats such as HTML and RTF it starts with
// decodePlain to get the characters right). Text owns everything around it:
// the size limit, format detection, panic recovery, and the normalisation of
// the result.
package extract

import (
	"fmt"
	"strings"
	"unicode"
)

// Options limit extraction.
type Options struct {
	// MaxBytes rejects larger files with ErrTooLarge; 0 means no limit.
	MaxBytes int64
}

// parser extracts raw text from a file already known to be of its format.
// It returns an *Error for anything wrong with the file; its output is
// normalised by Text, so it need not clean line endings or controls.
type parser func(content []byte, opt Options) (string, error)

// parsers holds the formats that can be read today. PDF, DOCX, ODT, RTF and
// HTML are recognised by DetectFormat and reported as unsupported until
// their parsers are added here.
var parsers = map[Format]parser{
	FormatText: func(content []byte, _ Options) (string, error) { return decodePlain(content) },
}

// Text extracts the plain text of a file. filename and contentType may be
// empty; they only help when the bytes are ambiguous. The result is UTF-8
// with "\n" line endings and no control characters other than "\n" and "\t".
// It never panics: a parser that does is reported as ErrCorrupt.
func Text(content []byte, filename, contentType string, opt Options) (text string, err error) {
	if opt.MaxBytes > 0 && int64(len(content)) > opt.MaxBytes {
		return "", TooLarge(int64(len(content)), opt.MaxBytes)
	}
	if len(content) == 0 {
		return "", &Error{Kind: ErrEmpty, Reason: ErrEmpty.Error()}
	}
	format := Format("")
	defer func() {
		if r := recover(); r != nil {
			text = ""
			what := "the file"
			if format != "" {
				what = "the " + format.Name() + " file"
			}
			err = newError(ErrCorrupt, "%s is damaged and could not be read (%v)", what, r)
		}
	}()
	format, what := detect(content, filename, contentType)
	parse, ok := parsers[format]
	switch {
	case ok:
	case format == FormatBinary:
		return "", newError(ErrBinary, "binary data, not text: %s", what)
	default:
		return "", newError(ErrUnsupported, "format %s is not supported yet", format.Name())
	}
	raw, err := parse(content, opt)
	if err != nil {
		return "", err
	}
	text = normalize(raw)
	if strings.TrimFunc(text, unicode.IsSpace) == "" {
		return "", &Error{Kind: ErrEmpty, Reason: ErrEmpty.Error()}
	}
	return text, nil
}

// TooLarge is the ErrTooLarge error for a file of size bytes over limit.
// Ingest uses it too, so that a file refused before it is read and one
// refused by a node read the same.
func TooLarge(size, limit int64) *Error {
	return newError(ErrTooLarge, "the file is %s, more than the limit of %s (extract.max_bytes in the configuration)",
		humanBytes(size), humanBytes(limit))
}

func humanBytes(n int64) string {
	switch {
	case n >= 10<<20:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// normalize makes line endings "\n" and removes characters that carry no
// text: C0 and C1 controls other than "\n" and "\t", DEL and zero-width
// no-break spaces (stray BOMs of concatenated files). Form feed, vertical
// tab and the Unicode line/paragraph separators become "\n" rather than
// vanishing, so the words on either side stay apart.
func normalize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range s {
		switch {
		case r == '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				continue
			}
			b.WriteByte('\n')
		case r == '\n', r == '\t':
			b.WriteRune(r)
		case r == '\f', r == '\v', r == '\u2028', r == '\u2029', r == '\u0085':
			b.WriteByte('\n')
		case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0, r == '\ufeff':
			// dropped
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
