package extract

import (
	"bytes"
	"unicode/utf8"

	"golang.org/x/text/encoding/unicode"
)

// decodePlain turns the bytes of a plain-text file into UTF-8. The encoding
// is detected, in order of certainty: a byte-order mark; UTF-16 without one
// (zero bytes alternating with ASCII); valid UTF-8; otherwise the most
// plausible of the legacy 8-bit encodings of the archive's languages
// (see legacy.go). Data that is not text in any of these is ErrBinary.
func decodePlain(b []byte) (string, error) {
	switch {
	case bytes.HasPrefix(b, bomUTF8):
		// The BOM vouches for UTF-8; stray invalid bytes become U+FFFD
		// rather than failing a whole thesis.
		return string(bytes.ToValidUTF8(b[3:], []byte("\uFFFD"))), nil
	case bytes.HasPrefix(b, bomUTF16LE):
		return decodeUTF16(b[2:], unicode.LittleEndian)
	case bytes.HasPrefix(b, bomUTF16BE):
		return decodeUTF16(b[2:], unicode.BigEndian)
	}
	if e, ok := sniffUTF16(b); ok {
		return decodeUTF16(b, e)
	}
	// Trailing NUL padding (left by some editors and disk images) is not a
	// sign of binary data.
	b = bytes.TrimRight(b, "\x00")
	if ratio := controlRatio(b); ratio > maxControlRatio {
		return "", newError(ErrBinary, "binary data, not text: %.0f %% of the bytes are control codes", ratio*100)
	}
	if utf8.Valid(b) {
		return string(b), nil
	}
	if asciiRatio(b) < minASCIIRatio {
		return "", newError(ErrBinary,
			"binary data, not text: mostly non-ASCII bytes that are not UTF-8, UTF-16, Windows-1250, Windows-1252 or ISO-8859-2 text")
	}
	cm := detectLegacy(b)
	s, err := cm.NewDecoder().Bytes(b)
	if err != nil { // charmap decoders do not fail; guard anyway
		return "", newError(ErrCorrupt, "the text could not be decoded as %s: %v", cm, err)
	}
	return string(s), nil
}

const (
	// maxControlRatio: real text has next to no C0 control bytes besides
	// whitespace; random or compressed data has about 10 %.
	maxControlRatio = 0.02
	// minASCIIRatio: even Czech or Polish in an 8-bit encoding is over 80 %
	// ASCII (spaces, punctuation, letters without diacritics); random data
	// is under 40 %.
	minASCIIRatio = 0.6
)

func decodeUTF16(b []byte, e unicode.Endianness) (string, error) {
	s, err := unicode.UTF16(e, unicode.IgnoreBOM).NewDecoder().Bytes(b)
	if err != nil {
		return "", newError(ErrCorrupt, "the UTF-16 text could not be decoded: %v", err)
	}
	// Odd garbage behind a BOM decodes to U+FFFD (unpaired surrogates).
	if n := bytes.Count(s, []byte("\uFFFD")); n > 0 && n*20 > utf8.RuneCount(s) {
		return "", newError(ErrBinary, "binary data, not text: %d invalid UTF-16 characters", n)
	}
	return string(s), nil
}

// sniffUTF16 recognises BOM-less UTF-16 of mostly Latin text: in one byte
// position of each pair nearly all bytes are zero, in the other almost none.
func sniffUTF16(b []byte) (unicode.Endianness, bool) {
	n := min(len(b), 4096) &^ 1
	if n < 4 {
		return unicode.LittleEndian, false
	}
	var zeros [2]int
	for i := 0; i < n; i++ {
		if b[i] == 0 {
			zeros[i&1]++
		}
	}
	pairs := n / 2
	switch {
	case zeros[1]*10 > pairs*7 && zeros[0]*20 < pairs:
		return unicode.LittleEndian, true
	case zeros[0]*10 > pairs*7 && zeros[1]*20 < pairs:
		return unicode.BigEndian, true
	}
	return unicode.LittleEndian, false
}

// controlRatio is the share of bytes that are C0 controls never found in
// text files. Tab, line feed, carriage return, form feed, vertical tab,
// escape (ANSI colours) and SUB (DOS end-of-file) are found in text.
func controlRatio(b []byte) float64 {
	if len(b) == 0 {
		return 0
	}
	n := 0
	for _, c := range b {
		if c < 0x20 && !textControl[c] {
			n++
		}
	}
	return float64(n) / float64(len(b))
}

var textControl = [32]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, 0x1a: true, 0x1b: true}

func asciiRatio(b []byte) float64 {
	n := 0
	for _, c := range b {
		if c < 0x80 {
			n++
		}
	}
	return float64(n) / float64(len(b))
}
