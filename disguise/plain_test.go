package disguise

import (
	"strings"
	"testing"
)

func TestPlain(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text stays", "plain text stays"},
		{"The сору оf а рарer, Ехpected.", "The copy of a paper, Expected."},
		{"co\u200Bpy pa\u00ADper", "copy paper"},
		{"It is   p l a g i a r i s m   o f   a   t e x t .", "It is   plagiarism   of   a   text ."},
		{"The Νοtice says Υοu may copy Νο part.", "The Notice says You may copy No part."},
		{"Y o u m a y n o t u s e t h i s f i l e.", "You may not use this file."},
		{"Y о u m а y n о t.", "You may not."}, // Cyrillic о, а
		{"It is D O N I, not N A S A.", "It is DONI, not NASA."},
		{"Это пример, сказал он.", "Это пример, сказал он."},
		{"Příliš žluťoučký kůň, a v k s tím.", "Příliš žluťoučký kůň, avks tím."},
	} {
		if got := Plain(c.in); got != c.want {
			t.Errorf("Plain(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	s := strings.Repeat("ordinary words in a row ", 10)
	if got := Plain(s); got != s {
		t.Errorf("Plain changed %q", s)
	}
}

func TestCapitalPrototype(t *testing.T) {
	for r, want := range map[rune]string{'Ν': "n", 'Υ': "y", 'Α': "", 'ν': "", 'N': "", 'В': ""} {
		got, ok := CapitalPrototype(r)
		if got != want || ok != (want != "") {
			t.Errorf("CapitalPrototype(%q) = %q, %v; want %q", r, got, ok, want)
		}
	}
}

func TestSpacedWords(t *testing.T) {
	for _, c := range []struct {
		letters, before, after string
		want                   []int
	}{
		{"youmaynot", " ", ".", []int{3, 6, 9}},
		{"youmaynot", "   ", " ", nil}, // a word of a " ".join sentence
		{"contract", " ", " ", nil},    // one word
		{"doni", " ", ",", nil},        // a name
	} {
		got := SpacedWords(c.letters, c.before, c.after, nil)
		if len(got) != len(c.want) {
			t.Errorf("SpacedWords(%q) = %v, want %v", c.letters, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("SpacedWords(%q) = %v, want %v", c.letters, got, c.want)
			}
		}
	}
}
