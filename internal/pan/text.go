package pan

import (
	"os"
	"unicode/utf8"
)

// Text is a corpus file as stored, and the map from its byte offsets to the
// character offsets PAN uses.
//
// PAN offsets count characters (Unicode code points) of the file exactly as
// stored: a BOM counts as one character, "\r\n" as two, and nothing is
// normalised (the corpus generators worked on the raw text; the scorer never
// reads the texts). plagd's stored text is normalised by extract.Text (BOM
// and control characters dropped, "\r\n" turned into "\n"), so offsets into
// it would be off by the characters dropped before a passage. The evaluation
// therefore aligns the files as stored, read from the corpus, and converts
// the aligner's byte offsets with Chars. Bytes that are not valid UTF-8
// count as one character each (they occur in no PAN corpus).
type Text struct {
	Name  string // file name, the reference used in PAN XML
	S     string
	ascii bool
	chars []int32 // chars[i] = characters before byte i, for i in 0..len(S); nil when ascii
}

// NewText prepares s (the content of the file called name).
func NewText(name, s string) *Text {
	t := &Text{Name: name, S: s, ascii: true}
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			t.ascii = false
			break
		}
	}
	if !t.ascii {
		t.chars = make([]int32, len(s)+1)
		n := int32(0)
		for i := 0; i < len(s); {
			_, size := utf8.DecodeRuneInString(s[i:])
			for k := 0; k < size; k++ {
				t.chars[i+k] = n // inside a character: its start
			}
			n++
			i += size
		}
		t.chars[len(s)] = n
	}
	return t
}

// ReadText reads a corpus file.
func ReadText(name, path string) (*Text, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return NewText(name, string(b)), nil
}

// Chars is the character offset of byte offset b (clamped to the text).
func (t *Text) Chars(b int) int {
	b = max(0, min(b, len(t.S)))
	if t.ascii {
		return b
	}
	return int(t.chars[b])
}

// Len is the length of the text in characters.
func (t *Text) Len() int { return t.Chars(len(t.S)) }
