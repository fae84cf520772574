package testpdf

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/plagd/plagd/extract"
)

// words normalises text for comparison: its words, single-spaced.
func words(s string) string { return strings.Join(strings.Fields(s), " ") }

func TestText_ExtractsBack(t *testing.T) {
	// Varied words: lines that look alike at the top of every page would
	// be taken for a running header and dropped, as they should.
	vocab := strings.Fields("river stone lantern harvest meadow copper violet window garden thunder " +
		"silver orchard candle market bridge winter summer forest valley mirror")
	var para []string
	x := uint32(7)
	for range 900 { // several pages
		x = x*1664525 + 1013904223
		para = append(para, vocab[x>>16%uint32(len(vocab))])
	}
	body := `The first paragraph has "a quoted sentence (with parentheses)" and a back\slash.` +
		"\n\n" + strings.Join(para, " ") + "\n\nThe last paragraph."
	pdf := Text("A Test Essay", body)
	if n := bytes.Count(pdf, []byte("/Type /Page ")); n < 2 {
		t.Fatalf("want several pages, got %d", n)
	}
	got, err := extract.Text(pdf, "essay.pdf", "application/pdf", extract.Options{})
	if err != nil {
		t.Fatalf("extract.Text: %v", err)
	}
	want := words("A Test Essay " + body)
	if g := words(got); g != want {
		i := 0
		for i < len(g) && i < len(want) && g[i] == want[i] {
			i++
		}
		t.Errorf("text read back differs at byte %d of %d:\n got …%q\nwant …%q", i, len(want),
			g[max(0, i-40):min(len(g), i+80)], want[max(0, i-40):min(len(want), i+80)])
	}
	// Paragraphs stay apart: the first ends a line.
	if !strings.Contains(got, "back\\slash.\n") {
		t.Errorf("paragraph break lost after the first paragraph: %q", got[:min(len(got), 200)])
	}
}

func TestLines_Xref(t *testing.T) {
	pdf := Lines([]string{"one", "", "two (2)"})
	// Every xref entry points at "N 0 obj".
	m := regexp.MustCompile(`(?s)\nxref\n0 (\d+)\n(.*?)trailer`).FindSubmatch(pdf)
	if m == nil {
		t.Fatal("no xref table")
	}
	n, _ := strconv.Atoi(string(m[1]))
	entries := strings.Split(strings.TrimSpace(string(m[2])), "\n")
	if len(entries) != n {
		t.Fatalf("xref says %d entries, has %d", n, len(entries))
	}
	for i, e := range entries[1:] {
		off, _ := strconv.Atoi(e[:10])
		if want := fmt.Sprintf("%d 0 obj", i+1); !bytes.HasPrefix(pdf[off:], []byte(want)) {
			t.Errorf("xref entry %d points at %q, want %q", i+1, pdf[off:off+10], want)
		}
	}
	start := regexp.MustCompile(`startxref\n(\d+)\n`).FindSubmatch(pdf)
	off, _ := strconv.Atoi(string(start[1]))
	if !bytes.HasPrefix(pdf[off:], []byte("xref\n")) {
		t.Errorf("startxref %d does not point at the xref table", off)
	}
	got, err := extract.Text(pdf, "", "", extract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if words(got) != "one two (2)" {
		t.Errorf("got %q", got)
	}
}

func TestWrap(t *testing.T) {
	long := strings.Repeat("abcdefgh ", 100)
	for _, l := range Wrap(long) {
		if width(l) > textWidth {
			t.Errorf("line too wide (%.0f pt): %q", width(l), l)
		}
	}
	if got := Wrap("  a   b "); len(got) != 1 || got[0] != "a b" {
		t.Errorf("Wrap = %q", got)
	}
}
