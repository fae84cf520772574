package safetext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLine(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"plain reason", 0, "plain reason"},
		{"malformed hex string \x10 % \x1f0/\xa0x", 0, "malformed hex string % 0/\uFFFDx"},
		{"two\nlines\r\n\tand tab", 0, "two lines and tab"},
		{"nul\x00byte", 0, "nul byte"},
		{"bidi\u202eevil\u200b", 0, "bidi evil"},
		{"\x00\x01 leading", 0, "leading"},
		{"žluťoučký kůň", 11, "žluťou…"},
		{"abcdef", 4, "a…"},
		{"abcdef", 2, "ab"},
		{"abc", 3, "abc"},
	} {
		got := Line(c.in, c.max)
		if got != c.want {
			t.Errorf("Line(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
		if !utf8.ValidString(got) || (c.max > 0 && len(got) > c.max) {
			t.Errorf("Line(%q, %d) = %q: invalid or too long", c.in, c.max, got)
		}
	}
}

func TestLineBoundsHugeInput(t *testing.T) {
	in := strings.Repeat("\xff\x00ab", 1<<20)
	got := Line(in, 200)
	if len(got) > 200 || !utf8.ValidString(got) || strings.ContainsRune(got, 0) {
		t.Fatalf("len %d valid %v", len(got), utf8.ValidString(got))
	}
}

func TestText(t *testing.T) {
	if got := Text("a\x00b\xffc\nd"); got != "ab\uFFFDc\nd" {
		t.Fatalf("Text = %q", got)
	}
	s := "already fine\n"
	if got := Text(s); got != s {
		t.Fatalf("Text changed valid text: %q", got)
	}
}

func FuzzLine(f *testing.F) {
	f.Add("malformed \x10\xa0", 16)
	f.Add("žluťoučký", 5)
	f.Fuzz(func(t *testing.T, s string, max int) {
		max %= 1000
		got := Line(s, max)
		if !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8: %q", got)
		}
		if max > 0 && len(got) > max {
			t.Fatalf("len %d > %d", len(got), max)
		}
		for _, r := range got {
			if r < 0x20 || r == 0x7f {
				t.Fatalf("control %U in %q", r, got)
			}
		}
	})
}

func TestFileName(t *testing.T) {
	long := strings.Repeat("é", 300) + ".pdf"
	got := FileName(long, 255)
	if len(got) > 255 || !strings.HasSuffix(got, Ellipsis+".pdf") || !utf8.ValidString(got) {
		t.Fatalf("FileName(long) = %d bytes %q", len(got), got)
	}
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"essay\u202e  final.pdf", 255, "essay final.pdf"},
		{"essay.pdf", 255, "essay.pdf"},
		// an "extension" over 16 bytes is part of the stem
		{strings.Repeat("x", 20) + "." + strings.Repeat("y", 20), 32, strings.Repeat("x", 20) + "." + strings.Repeat("y", 8) + Ellipsis},
		// a leading dot starts a name, not an extension
		{".hidden" + strings.Repeat("z", 30), 32, ".hidden" + strings.Repeat("z", 22) + Ellipsis},
		{strings.Repeat("a", 40) + ".docx", 32, strings.Repeat("a", 24) + Ellipsis + ".docx"},
	} {
		if got := FileName(c.in, c.max); got != c.want {
			t.Errorf("FileName(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}
