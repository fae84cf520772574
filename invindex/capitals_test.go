package invindex

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// wordHashes returns the hashes of text's words.
func wordHashes(tk *Tokenizer, text string) []uint64 {
	var hs []uint64
	for _, w := range tk.Words(text, nil) {
		hs = append(hs, w.Hash)
	}
	return hs
}

// TestCapitalLookAlikes: a Latin word written with Greek capitals "Ν" and
// "Υ" (which fold to "ν", "υ", the look-alikes of "v" and "u") hashes as
// the Latin word, in a word with Latin letters and in a word of Greek
// look-alikes only among Latin words.
func TestCapitalLookAlikes(t *testing.T) {
	tk := defaultTokenizer()
	for _, c := range []struct{ disguised, clean string }{
		{"The Νotice: Νο part, Υou see, ΥΟU.", "The Notice: No part, You see, YOU."},
		{"Νο", "No"},                                 // alone: no telling neighbour, but "ο" is not Latin either
		{"7 Νο 8 license", "7 No 8 license"},         // numbers tell nothing; "license" does
		{"Νο\u200B license", "No license"},           // invisible characters inside
		{"ΝΟΝ ΥΟΚΕ ΝΟ apache", "NON YOKE NO apache"}, // look-alike words in a row
		{"Ϋes is Ύes", "Ÿes is Ýes"},                 // decomposed capitals keep their marks
	} {
		got, want := wordHashes(tk, c.disguised), wordHashes(tk, c.clean)
		if c.disguised == "Νο" {
			// The only case that stays read as Greek: nothing says Latin.
			want = wordHashes(tk, "νο")
		}
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

// TestGreekCaseConsistent: genuine Greek words hash alike in capitals and
// in small letters, next to words that tell they are Greek ("Π", "Λ").
func TestGreekCaseConsistent(t *testing.T) {
	tk := defaultTokenizer()
	for _, s := range []string{
		"ναι, υπαρχει νομος για το νερο",
		"ολοι οι ανθρωποι γεννιουνται ελευθεροι και ισοι στην αξιοπρεπεια και τα δικαιωματα",
		"νεο υλικο: ο νομος, η νυχτα",
	} {
		lower, upper := wordHashes(tk, s), wordHashes(tk, strings.ToUpper(s))
		for i := range lower {
			if lower[i] != upper[i] {
				t.Errorf("%q: word %d hashes differently in capitals", s, i)
			}
		}
	}
}

// TestClassify pins the word classes the Latin reading is decided by.
func TestClassify(t *testing.T) {
	for _, c := range []struct {
		word string
		want wordClass
	}{
		{"No", classLatin}, {"Νo", classLatin}, {"Νο", classAlike}, {"ΝΟΜΟΣ", classAlike},
		{"λογος", classNative}, {"ΥΠΟ", classNative}, {"1991", classNone}, {"é", classLatin},
		{"пример", classNative}, {"сор", classAlike}, {"ΈΝΑ", classNative}, {"ε\u0301να", classNative},
	} {
		if got := classify(c.word); got != c.want {
			t.Errorf("classify(%q) = %d, want %d", c.word, got, c.want)
		}
	}
}

// greekCatalogues is where Debian keeps the Greek translations of its
// programs' messages: real Greek text, in small letters and capitals, with
// Latin program names and options among the words.
const greekCatalogues = "/usr/share/locale/el/LC_MESSAGES"

// TestGreekCataloguesCaseConsistent measures, on the Greek message
// catalogues of the machine, how many Greek words hash differently in
// capitals and in small letters (the Latin reading of a capital look-alike
// applies only to look-alike words among Latin ones) and how many hash
// differently than before that reading existed (small letters as written).
func TestGreekCataloguesCaseConsistent(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(greekCatalogues, "*.mo"))
	if len(files) == 0 {
		t.Skipf("no Greek catalogues in %s", greekCatalogues)
	}
	tk := defaultTokenizer()
	greek := func(w string) bool {
		for _, r := range w {
			if unicode.Is(unicode.Greek, r) {
				return true
			}
		}
		return false
	}
	var words, differ, latinRead int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range moTranslations(b) {
			lower, upper := strings.ToLower(text), strings.ToUpper(text)
			lw, uw := tk.Words(lower, nil), tk.Words(upper, nil)
			if len(lw) != len(uw) {
				continue
			}
			for i, w := range lw {
				word := lower[w.Start:w.End]
				if !greek(word) {
					continue
				}
				words++
				if w.Hash != uw[i].Hash {
					differ++
				}
				if u := upper[uw[i].Start:uw[i].End]; hasCapitalLookAlike(u) && latinWord(u, upper, int(uw[i].Start), int(uw[i].End)) {
					latinRead++
				}
			}
		}
	}
	t.Logf("%d Greek words in %d catalogues: %d hash differently in capitals (%.3f %%), %d capital words read as Latin",
		words, len(files), differ, 100*float64(differ)/float64(max(words, 1)), latinRead)
	// 0.09 % on the 70 catalogues of the machine docs/QUALITY.md reports
	// on; other machines ship other catalogues, hence the margin (without
	// the diacritic and one-letter rules of classify and neighbour it was
	// 1.2 %).
	if words > 1000 && float64(differ) > 0.005*float64(words) {
		t.Errorf("%d of %d Greek words hash differently in capitals, want at most 0.5 %%", differ, words)
	}
}

// moTranslations returns the translated strings of a GNU gettext message
// catalogue (.mo): a header of 32-bit words (magic, revision, count, the
// offsets of the original and translation tables), each table entry a
// length and an offset. Plural forms are separated by NUL.
func moTranslations(b []byte) []string {
	if len(b) < 20 {
		return nil
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if bo.Uint32(b) != 0x950412de {
		bo = binary.BigEndian
	}
	n, tr := int(bo.Uint32(b[8:])), int(bo.Uint32(b[16:]))
	var out []string
	for i := 0; i < n; i++ {
		e := tr + 8*i
		if e+8 > len(b) {
			break
		}
		l, off := int(bo.Uint32(b[e:])), int(bo.Uint32(b[e+4:]))
		if off < 0 || off+l > len(b) {
			continue
		}
		out = append(out, strings.Split(string(b[off:off+l]), "\x00")...)
	}
	return out
}
