package extract

import (
	"context"
	"strings"
	"testing"

	"github.com/plagd/plagd/disguise"
)

// TestRead_HiddenSpans: the spans of a HiddenText flag are offsets in the
// final text, after normalize has turned CRLF into LF and dropped
// controls, and adjacent runs left out at one place are one span.
func TestRead_HiddenSpans(t *testing.T) {
	f := Format("hidden-test")
	parsers[f] = func(_ []byte, opt Options) (string, error) {
		var b strings.Builder
		b.WriteString("one\r\ntwo\x01")
		b.WriteString(opt.hide("white text", 3))
		b.WriteString(" three\r\n")
		b.WriteString(opt.hide("white text", 2))
		b.WriteString(opt.hide("tiny text", 4))
		b.WriteString("four")
		return b.String(), nil
	}
	defer delete(parsers, f)
	raw, hidden, err := runParser(context.Background(), parsers[f], f, []byte("x"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	text, marks := normalize(raw)
	if want := "one\ntwo three\nfour"; text != want {
		t.Fatalf("text %q, want %q", text, want)
	}
	flags := hidden.flags(marks)
	if len(flags) != 1 {
		t.Fatalf("flags %+v", flags)
	}
	got := flags[0]
	want := []disguise.Span{{Start: 7, End: 7}, {Start: 14, End: 14}}
	if got.Kind != disguise.HiddenText || got.Count != 9 || len(got.Spans) != 2 || got.Spans[0] != want[0] || got.Spans[1] != want[1] {
		t.Fatalf("flag %+v, want count 9, spans %v", got, want)
	}
	if got.Detail != "left out as hidden: white text: 5 characters in 2 runs; tiny text: 4 characters in 1 run" {
		t.Fatalf("detail %q", got.Detail)
	}
}

// TestRead_MarksFromTheFile: a file that contains the mark itself, and
// hides nothing, gets no flag, and the mark is gone from its text.
func TestRead_MarksFromTheFile(t *testing.T) {
	r, err := Read(context.Background(), []byte("plain \uFDD0text"), "a.txt", "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Text != "plain text" || r.Flags != nil {
		t.Fatalf("got %+v", r)
	}
}

// TestRead_NoFlags: an ordinary file has no flags, and Text is Read's text.
func TestRead_NoFlags(t *testing.T) {
	r, err := Read(context.Background(), []byte("ordinary text\r\n"), "a.txt", "", Options{})
	if err != nil || r.Text != "ordinary text\n" || r.Flags != nil {
		t.Fatalf("got %+v, %v", r, err)
	}
	if s, err := Text([]byte("ordinary text\r\n"), "a.txt", "", Options{}); err != nil || s != r.Text {
		t.Fatalf("Text %q, %v", s, err)
	}
}

// copiedParagraph is the clean text an evader copies; hiddenLetters are
// what they put between its words, hidden, so that the extracted words no
// longer match the source.
const copiedParagraph = "The committee concluded that the proposed method improves recall on reworded copies without losing precision on verbatim ones."

var hiddenLetters = []string{"x", "qz", "k", "wv", "j"}

// interleave builds a paragraph in some format from visible words and
// hidden fillers: vis(word) renders a visible word with its following
// space, hid(letters) renders hidden letters. It returns the rendering and
// the number of hidden characters.
func interleave(vis, hid func(string) string) (string, int) {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(copiedParagraph) {
		sp := " "
		if i == len(strings.Fields(copiedParagraph))-1 {
			sp = ""
		}
		b.WriteString(vis(w))
		if sp != "" {
			h := hiddenLetters[i%len(hiddenLetters)]
			b.WriteString(hid(h))
			n += len(h)
			b.WriteString(vis(sp))
		}
	}
	return b.String(), n
}

// wantClean checks that r reads as the clean paragraph, word for word,
// with one HiddenText flag of want characters whose spans lie in the text;
// want 0: no flag at all.
func wantClean(t *testing.T, r Result, err error, want int) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if got, clean := strings.Join(strings.Fields(r.Text), " "), copiedParagraph; got != clean {
		t.Errorf("text %q\nwant %q", got, clean)
	}
	if want == 0 {
		if r.Flags != nil {
			t.Errorf("flags %+v on a file that hides nothing", r.Flags)
		}
		return
	}
	if len(r.Flags) != 1 || r.Flags[0].Kind != disguise.HiddenText || r.Flags[0].Count != want {
		t.Fatalf("flags %+v, want one hidden_text flag of %d characters", r.Flags, want)
	}
	if len(r.Flags[0].Spans) == 0 || r.Flags[0].Detail == "" {
		t.Errorf("flag without spans or detail: %+v", r.Flags[0])
	}
	for _, s := range r.Flags[0].Spans {
		if s.Start != s.End || s.Start < 0 || s.Start > len(r.Text) {
			t.Errorf("span %+v outside a text of %d bytes", s, len(r.Text))
		}
	}
}
