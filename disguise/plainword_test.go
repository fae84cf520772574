package disguise

import "testing"

// TestPlainWord: a word as Plain would write it in its text, from the
// text's dominant script and the words around it.
func TestPlainWord(t *testing.T) {
	for _, c := range []struct{ word, dominant, prev, next, want string }{
		{"copy", "Latin", "", "", "copy"},                     // nothing to undo
		{"с\u200bору", "Latin", "to", "and", "copy"},          // invisible and look-alikes
		{"Lісеnѕе", "Cyrillic", "", "", "License"},            // mixed: Latin whatever the text
		{"сору", "Cyrillic", "Yоu", "аnd", "copy"},            // look-alikes between mixed words
		{"сору", "Cyrillic", "студенты", "дома", "сору"},      // a Russian word among Russian ones
		{"студенты", "Cyrillic", "", "списывали", "студенты"}, // no twin for most letters
		{"Νοmοs", "Latin", "the", "of", "Nomos"},              // Greek capital Nu as N
	} {
		if got := PlainWord(c.word, c.dominant, c.prev, c.next); got != c.want {
			t.Errorf("PlainWord(%q, %s, %q, %q) = %q, want %q", c.word, c.dominant, c.prev, c.next, got, c.want)
		}
	}
}
