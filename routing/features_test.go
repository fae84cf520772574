package routing

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/plagd/plagd/disguise"
	"github.com/plagd/plagd/internal/testseed"
)

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"":                         "",
		"   ":                      "",
		"Hello   World\n\tFoo ":    "hello world foo",
		"\n ÄÖÜ  Straße\u00a0Ende": "äöü straße ende",
		"a\xffB  c":                "a\xffb c",
		"x \xff y":                 "x \xff y",
	} {
		if got := string(Normalize([]byte(in))); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

// bruteFingerprint is the definition: the minimum hash over all q-grams.
func bruteFingerprint(c []byte, q int) uint64 {
	if len(c) <= q {
		return mix(polyHash(c))
	}
	best := ^uint64(0)
	for i := 0; i+q <= len(c); i++ {
		best = min(best, mix(polyHash(c[i:i+q])))
	}
	return best
}

func TestFingerprint_BruteForce(t *testing.T) {
	data := newTextGen(6).doc(5000)
	for _, q := range []int{1, 5, Q} {
		for start := 0; start < 300; start += 7 {
			for _, n := range []int{0, 1, q - 1, q, q + 1, 100, 280} {
				if start+n > len(data) || n < 0 {
					continue
				}
				c := data[start : start+n]
				if got, want := Fingerprint(c, q), bruteFingerprint(c, q); got != want {
					t.Fatalf("q=%d chunk %q: %x, want %x", q, c, got, want)
				}
			}
		}
	}
}

func TestFeatures(t *testing.T) {
	g := newTextGen(7)
	doc := g.doc(10000)
	fs := Features(doc, DefaultParams)
	if !slices.IsSorted(fs) || len(slices.Compact(slices.Clone(fs))) != len(fs) {
		t.Fatal("features not a sorted set")
	}
	if n := len(Chunks(Normalize(doc), DefaultChunkParams, nil)); len(fs) > n || len(fs) < n*9/10 {
		t.Errorf("%d features from %d chunks", len(fs), n)
	}
	if len(Features(nil, DefaultParams)) != 0 || len(Features([]byte(" \n"), DefaultParams)) != 0 {
		t.Error("empty text has features")
	}
	// Formatting does not change features.
	reformatted := bytes.ToUpper([]byte(strings.ReplaceAll(string(doc), " ", " \n\t ")))
	if !slices.Equal(fs, Features(reformatted, DefaultParams)) {
		t.Error("reformatting changed the features")
	}
	// Near-copies share most features, unrelated texts almost none.
	near := Jaccard(fs, Features(g.nearCopy(doc, 0.01), DefaultParams))
	other := Jaccard(fs, Features(g.doc(10000), DefaultParams))
	t.Logf("Jaccard near-copy (1%% words edited) %.3f, unrelated %.3f", near, other)
	if near < 0.5 || other > 0.05 {
		t.Errorf("Jaccard near-copy %.3f, unrelated %.3f", near, other)
	}
}

// TestNormalizeUndoesDisguises: look-alike letters and invisible characters
// normalise away (FeatureVersion 2), so a disguised copy routes as the clean
// one.
func TestNormalizeUndoesDisguises(t *testing.T) {
	clean := "The copy of a paper, Expected Output."
	for _, d := range []string{
		"The сору оf а рарer, Ехpected Output.",
		"The co\u200Bpy of a pa\u00ADper, Ex\u2060pected Out\u200Dput.",
		"Тhе copy of a paper, Expected Οutput.",
	} {
		if got, want := string(Normalize([]byte(d))), string(Normalize([]byte(clean))); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", d, got, want)
		}
	}
}

// normalizeByRune is Normalize's definition, rune by rune: the reference
// for its fast path over ASCII runs.
func normalizeByRune(text []byte) []byte {
	var out []byte
	space := false
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRune(text[i:])
		raw := text[i : i+n]
		i += n
		switch {
		case r == utf8.RuneError && n == 1:
		case disguise.IsInvisible(r):
			continue
		case r < utf8.RuneSelf && (r == ' ' || '\t' <= r && r <= '\r'), r >= utf8.RuneSelf && unicode.IsSpace(r):
			space = true
			continue
		}
		if space && len(out) > 0 {
			out = append(out, ' ')
		}
		space = false
		if r == utf8.RuneError && n == 1 {
			out = append(out, raw...)
			continue
		}
		lr := unicode.ToLower(r)
		if p, ok := disguise.Prototype(lr); ok && r >= utf8.RuneSelf {
			out = append(out, p...)
			continue
		}
		out = utf8.AppendRune(out, lr)
	}
	return out
}

// TestNormalize_ByRune: Normalize equals its rune-by-rune definition on
// random texts of ASCII words and capitals, every kind of white space,
// accented and look-alike letters, invisible characters and invalid bytes.
func TestNormalize_ByRune(t *testing.T) {
	r := testseed.Rand(t)
	parts := []string{"word", "Word", "WORD", "x", "7", ".", ",", "'", " ", "  ", "\t", "\n", "\r\n", "\v", "\f",
		"\u00a0", "\u2003", "é", "É", "ß", "Straße", "а", "С", "\u200b", "\u00ad", "\xff", "\xc3", "—", "€"}
	for range 20000 {
		var sb strings.Builder
		for range r.IntN(20) {
			sb.WriteString(parts[r.IntN(len(parts))])
		}
		in := []byte(sb.String())
		if got, want := Normalize(in), normalizeByRune(in); !bytes.Equal(got, want) {
			t.Fatalf("Normalize(%q) = %q, by rune %q", in, got, want)
		}
	}
}
