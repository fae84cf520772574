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
