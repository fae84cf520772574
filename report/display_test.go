package report

import (
	"strings"
	"testing"
)

func TestReflow(t *testing.T) {
	in := "A heading\n\nThis line of a PDF is long enough to have been wrapped\nby the layout, and goes on\nshort line\n- a list item that is long enough to look wrapped\n- next item\nend"
	want := "A heading\n\nThis line of a PDF is long enough to have been wrapped by the layout, and goes on\nshort line\n- a list item that is long enough to look wrapped\n- next item\nend"
	if got := Reflow(in); got != want {
		t.Fatalf("Reflow:\n%q\nwant\n%q", got, want)
	}
	if len(Reflow(in)) != len(in) {
		t.Fatal("reflow changed the length: offsets would no longer hold")
	}
	// A DOCX or ODT text has a line per paragraph: its heading stays on a
	// line of its own after a long paragraph (issue 19 item 5).
	para := strings.Repeat("Young actors learn their lines early and rehearse them every day. ", 4)
	docx := "Thesis declaration\nStudent: Jana Novakova, who wrote this thesis on her own and cites every source she used.\nIntroduction\n" + para + "\nMethods\n" + para
	if got := Reflow(docx); got != docx {
		t.Fatalf("a line-per-paragraph text was reflowed:\n%q", got)
	}
}
