package invindex

import (
	"strings"
	"testing"
)

// TestSpacedSentence: a sentence letter-spaced with single spaces between
// its words as between its letters is cut into its words (offsets of the
// disguised text, hashes of the clean one); with wider gaps between words
// every run is one word, as before; a short run that may be a name stays
// whole; look-alikes inside a run count as their prototype.
func TestSpacedSentence(t *testing.T) {
	tk := defaultTokenizer()
	words := func(s string) []string {
		var out []string
		for _, w := range tk.Words(s, nil) {
			out = append(out, s[w.Start:w.End])
		}
		return out
	}
	for _, c := range []struct{ disguised, clean, want string }{
		{"Y o u m a y n o t u s e t h i s f i l e.", "You may not use this file.", "Y o u|m a y|n o t|u s e|t h i s|f i l e"},
		{"Y o u   m a y   n o t.", "You may not.", "Y o u|m a y|n o t"},
		{"S e c t i o n 2 o f t h e L i c e n c e", "Section 2 of the Licence", "S e c t i o n|2|o f|t h e|L i c e n c e"},
		{"Y о u m а y n о t", "You may not", "Y о u|m а y|n о t"}, // Cyrillic о, а
		{"It is D O N I here", "It is DONI here", "It|is|D O N I|here"},
	} {
		if got := strings.Join(words(c.disguised), "|"); got != c.want {
			t.Errorf("%q: words %q, want %q", c.disguised, got, c.want)
		}
		got, want := wordHashes(tk, c.disguised), wordHashes(tk, c.clean)
		if len(got) != len(want) {
			t.Fatalf("%q: %d words, %q has %d", c.disguised, len(got), c.clean, len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%q: word %d hashes %#x, want %#x as in %q", c.disguised, i, got[i], want[i], c.clean)
			}
		}
	}
}

// BenchmarkWordsSpaced tokenises text in which every third sentence is
// letter-spaced with single spaces: the cost of cutting runs into words.
func BenchmarkWordsSpaced(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 200; i++ {
		s := "You may not use this file except in compliance with the License. "
		if i%3 == 0 {
			s = strings.Join(strings.Split(strings.ReplaceAll(s[:len(s)-2], " ", ""), ""), " ") + ". "
		}
		sb.WriteString(s)
	}
	text := sb.String()
	tk := defaultTokenizer()
	ws := tk.Words(text, nil)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for range b.N {
		ws = tk.Words(text, ws)
	}
}
