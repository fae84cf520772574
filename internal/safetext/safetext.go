package safetext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Ellipsis ends a string that Line or Clip shortened.
const Ellipsis = "…"

// Line returns s as one line of at most max bytes: invalid UTF-8 becomes
// U+FFFD, every control and format character (C0, C1, DEL, bidi overrides,
// zero-width characters) and every line break becomes a space, runs of
// spaces collapse to one, and a longer result is cut at a character
// boundary and ends with Ellipsis. max <= 0 means no length limit. Use it
// for reasons, titles, file names and log fields.
func Line(s string, max int) string {
	var b strings.Builder
	b.Grow(min(len(s), boundFor(max)))
	space := false
	for _, r := range s { // range yields U+FFFD for each invalid byte
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.IsSpace(r) {
			if r != utf8.RuneError {
				space = b.Len() > 0
				continue
			}
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
		if max > 0 && b.Len() > max+len(Ellipsis) {
			break // enough to know it must be cut
		}
	}
	return Clip(b.String(), max)
}

// maxExtensionBytes is the longest extension FileName keeps whole.
const maxExtensionBytes = 16

// FileName returns a file name as one line (Line) of at most max bytes
// that keeps its extension, by which plagd detects a file's format: a
// longer name loses the end of its stem, marked with Ellipsis. An
// extension longer than 16 bytes is not taken for one.
func FileName(name string, max int) string {
	name = Line(name, 0)
	if max <= 0 || len(name) <= max {
		return name
	}
	ext := ""
	if i := strings.LastIndexByte(name, '.'); i > 0 && len(name)-i <= maxExtensionBytes && !strings.ContainsAny(name[i:], "/\\") {
		ext = name[i:]
	}
	return Clip(strings.TrimSuffix(name, ext), max-len(ext)) + ext
}

// Text returns s as storable multi-line text: invalid UTF-8 becomes U+FFFD
// and NUL bytes are dropped; other characters are kept. It does not bound
// the length (a document's text is bounded where it is extracted).
func Text(s string) string {
	if utf8.ValidString(s) && !strings.Contains(s, "\x00") {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}

// Clip cuts valid UTF-8 s to at most max bytes at a character boundary,
// ending it with Ellipsis when it was cut (the ellipsis counts in max).
// max <= 0 means no limit; a max too small for the ellipsis cuts without it.
func Clip(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	keep := max - len(Ellipsis)
	tail := Ellipsis
	if keep <= 0 {
		keep, tail = max, ""
	}
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return strings.TrimRight(s[:keep], " ") + tail
}

func boundFor(max int) int {
	if max <= 0 {
		return 1 << 30
	}
	return max + 8
}
