package disguise

import (
	"strings"
	"testing"

	"github.com/plagd/plagd/internal/synth"
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

// TestMaybeDisguised_FalseMeansNoFlag: Scan skips what the quick test
// passes, so the quick test must never pass a text the whole scan flags.
// Random texts of ordinary words, single letters one and more spaces
// apart, accented Latin letters, and the characters each flag is about
// (look-alikes of other scripts, whole look-alike words, invisible
// characters and soft hyphens inside words, spaced letters with every
// space-like character), a few of each so that flags' thresholds are
// reached.
func TestMaybeDisguised_FalseMeansNoFlag(t *testing.T) {
	r := testseed.Rand(t)
	clean := []string{"a ", "b ", "I ", "s ", "x ", "7 ", "é ", "ü ", "ß ", "word ", "paper ", "naïve ", "it", "don", "'", ",", ".",
		"-", "(", " ", "  ", "   ", "\n", "é t", "ñ", "—", "Straße ", "ﬁle ", "Ａ ", "１ ", "٣ ", "e\u0301 ", "€ "}
	disguised := []string{"\u00A0", "\u2009", "\u202F", "\u200B", "\u200D", "\u00AD", "\uFEFF", "\u034F", "а", "о", "с", "Ω", "ο",
		"сору ", "pa\u00ADper ", "co\u200Bpy ", "Сopy ", "t h e ", "w\u00A0o\u00A0r\u00A0d ", "Это ", "ℓ", "Ꭺ", "ǀ"}
	flagged, quick, passed := 0, 0, 0
	for range 20000 {
		var sb strings.Builder
		rate := 1 + r.IntN(60)
		for range 1 + r.IntN(80) {
			if r.IntN(rate) == 0 {
				sb.WriteString(disguised[r.IntN(len(disguised))])
			} else {
				sb.WriteString(clean[r.IntN(len(clean))])
			}
		}
		text := sb.String()
		fs := scan(text)
		if len(fs) > 0 {
			flagged++
		}
		if MaybeDisguised(text) {
			quick++
			continue
		}
		passed++
		if len(fs) > 0 {
			t.Fatalf("MaybeDisguised(%q) is false, but the scan flags %+v", text, fs)
		}
	}
	if flagged == 0 || quick == 0 || passed == 0 {
		t.Fatalf("%d texts flagged, %d held by the quick test, %d passed it: the generator tests nothing", flagged, quick, passed)
	}
}

// TestMaybeDisguised_ASCIIWalk: the quick test's ASCII walk answers as the
// word-by-word walk does, on random texts of single letters, digits, words
// and separators one and several spaces apart, a few with a non-ASCII
// letter or space somewhere (the hand-over).
func TestMaybeDisguised_ASCIIWalk(t *testing.T) {
	r := testseed.Rand(t)
	parts := []string{"a", "b", "I", "7", "x", "word", "it", "z9", " ", " ", " ", "  ", "\t", "\n", ".", ",", "'", "-", "(", ")"}
	rare := []string{"é", "\u00A0", "а", "\u200B", "ñ"}
	yes, no := 0, 0
	for range 50000 {
		var sb strings.Builder
		for range r.IntN(48) {
			if r.IntN(60) == 0 {
				sb.WriteString(rare[r.IntN(len(rare))])
			} else {
				sb.WriteString(parts[r.IntN(len(parts))])
			}
		}
		text := sb.String()
		got, want := maybeDisguised(text), maybeDisguisedRunes(text)
		if got != want {
			t.Fatalf("maybeDisguised(%q) = %v, the word-by-word walk says %v", text, got, want)
		}
		if got {
			yes++
		} else {
			no++
		}
	}
	if yes == 0 || no == 0 {
		t.Fatalf("%d texts disguised, %d not: the generator tests nothing", yes, no)
	}
}

// BenchmarkMaybeDisguised: the quick test over 200 documents of the
// realistic synthetic archive (ASCII English, as most of an archive), and
// over the same with a non-ASCII letter at the end of each (the
// word-by-word walk for all of it).
func BenchmarkMaybeDisguised(b *testing.B) {
	g := synth.New(synth.Realistic())
	var ascii, accented []string
	var n int64
	for i := range 200 {
		t := g.Doc(i).Text
		ascii = append(ascii, t)
		accented = append(accented, t+" é")
		n += int64(len(t))
	}
	for _, c := range []struct {
		name  string
		texts []string
	}{{"ascii", ascii}, {"accented", accented}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(n)
			for b.Loop() {
				for _, t := range c.texts {
					MaybeDisguised(t)
				}
			}
		})
	}
}
