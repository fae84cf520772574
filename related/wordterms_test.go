package related

import (
	"strings"
	"testing"

	"github.com/plagd/plagd/invindex"
)

// TestWordTerms: each word gets the hash of the term Terms gives it (its
// stem; 0 for a stop word), the same the second time (from the caches),
// and a disguised spelling the term of the plain one.
func TestWordTerms(t *testing.T) {
	text := "The committee examined the theses carefully, and the examiners examined them again. " +
		strings.Repeat("Rivers drain the northern slopes. ", 3)
	tok := invindex.NewTokenizer(invindex.DefaultParams())
	words := tok.Words(text, nil)
	lang := Detect(Words(text, nil), AllLangs)
	if lang != LangEnglish {
		t.Fatalf("language %v, want english", lang)
	}
	for round := 0; round < 2; round++ {
		terms := WordTerms(text, words)
		if len(terms) != len(words) {
			t.Fatalf("%d terms for %d words", len(terms), len(words))
		}
		for i, w := range words {
			word := strings.ToLower(text[w.Start:w.End])
			var want uint64
			if stem, ok := lang.Term(word); ok {
				want = TermHash(stem)
			}
			if terms[i] != want {
				t.Fatalf("round %d: %q has term %x, want %x", round, word, terms[i], want)
			}
		}
		if terms[0] != 0 {
			t.Errorf("the stop word %q has a term", "The")
		}
		// "examined" twice: one term, the stem's.
		if terms[2] == 0 || terms[2] != TermHash("examin") {
			t.Errorf("examined: %x, want the hash of examin", terms[2])
		}
	}
	// A look-alike letter (Cyrillic о in "slopes") reads as the plain word.
	disguised := strings.Replace(text, "slopes", "sl\u043epes", 1)
	dw := tok.Words(disguised, nil)
	dt := WordTerms(disguised, dw)
	for i, w := range dw {
		if strings.Contains(disguised[w.Start:w.End], "\u043e") && dt[i] != TermHash("slope") {
			t.Errorf("disguised %q: term %x, want the hash of slope", disguised[w.Start:w.End], dt[i])
		}
	}
}
