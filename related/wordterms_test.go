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

// TestWordTerms_LookAlikesThroughout: a text whose every letter with a
// Cyrillic twin is written with it, capitals too, has mostly Cyrillic
// letters; its words still mix in Latin ones ("Lісеnѕе"), so they are Latin
// words in disguise and get the clean text's terms, language and all. A
// Russian text keeps its own terms.
func TestWordTerms_LookAlikesThroughout(t *testing.T) {
	clean := "The licence allows anyone to copy and distribute the software, provided " +
		"that the notice stays with every copy. However, accepting such obligations is your own choice. "
	twins := strings.NewReplacer("a", "а", "c", "с", "e", "е", "i", "і", "o", "о", "p", "р", "s", "ѕ", "x", "х", "y", "у",
		"H", "Н", "T", "Т", "A", "А", "B", "В", "C", "С", "E", "Е", "M", "М", "O", "О", "P", "Р")
	disguised := twins.Replace(clean)
	tok := invindex.NewTokenizer(invindex.DefaultParams())
	cw, dw := tok.Words(clean, nil), tok.Words(disguised, nil)
	if len(cw) != len(dw) {
		t.Fatalf("%d words, %d disguised", len(cw), len(dw))
	}
	ct, dt := WordTerms(clean, cw), WordTerms(disguised, dw)
	for i := range ct {
		if ct[i] != dt[i] {
			t.Errorf("%q: term %x, the clean %q's %x", disguised[dw[i].Start:dw[i].End], dt[i], clean[cw[i].Start:cw[i].End], ct[i])
		}
	}
	russian := "Студенты списывали диссертации из библиотеки университета."
	rw := tok.Words(russian, nil)
	rt := WordTerms(russian, rw)
	if stem, _ := LangRussian.Term("диссертации"); rt[2] != TermHash(stem) {
		t.Errorf("Russian word: term %x, want the hash of %q", rt[2], stem)
	}
}
