package disguise

import (
	"strings"
	"testing"

	"github.com/plagd/plagd/internal/testseed"
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

// TestMaybeDisguised_FalseMeansUnchanged: the quick test never says no to
// a text Plain would change, on random texts of single letters and digits,
// words, one and several spaces, punctuation, accented and non-Latin
// letters, look-alikes, no-break and invisible characters.
func TestMaybeDisguised_FalseMeansUnchanged(t *testing.T) {
	r := testseed.Rand(t)
	// Mostly single letters one space apart, so that runs of two, three
	// and more come often; the characters Plain undoes only in some texts,
	// so that many reach the letter-spacing rule alone.
	clean := []string{"a ", "b ", "I ", "s ", "x ", "7 ", "é ", "ü ", "ß ", "a", "z", "word ", "it", "don", "'", ",", ".",
		"-", "(", " ", "  ", "   ", "\n", "é t", "ñ", "—"}
	disguised := []string{"\u00A0", "\u200B", "\u00AD", "а", "о", "Ω"}
	changed, quick := 0, 0
	for range 20000 {
		var sb strings.Builder
		for range 1 + r.IntN(14) {
			if r.IntN(40) == 0 {
				sb.WriteString(disguised[r.IntN(len(disguised))])
			} else {
				sb.WriteString(clean[r.IntN(len(clean))])
			}
		}
		text := sb.String()
		if MaybeDisguised(text) {
			quick++
			continue
		}
		if got := plain(text); got != text {
			t.Fatalf("MaybeDisguised(%q) is false, but Plain's steps make it %q", text, got)
		}
		changed++
	}
	if quick == 0 || changed == 0 {
		t.Fatalf("%d texts passed the quick test and %d failed it: the generator tests nothing", changed, quick)
	}
}

// TestMaybeDisguised_Examples: pairs of single letters, common in English,
// are not runs; runs of three are, accented letters too.
func TestMaybeDisguised_Examples(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"It's a good idea, isn't it? I a m sure.", true}, // "I a m"
		{"It's a good idea, and that's a fact.", false},
		{"Section 3 a of the act", false},
		{"c o p y", true},
		{"l'é t é", true},
		{"A B", false},
		{"A B C", true},
		{"A  B  C", false}, // wider gaps: words of a spaced sentence, no run
		{"co\u200Bpy", true},
		{"сору", true},
		{"naïve café", false},
	} {
		if got := MaybeDisguised(c.text); got != c.want {
			t.Errorf("MaybeDisguised(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}
