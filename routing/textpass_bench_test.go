package routing

import (
	"bytes"
	"slices"
	"sync"
	"testing"

	"github.com/plagd/plagd/internal/synth"
)

var realisticTexts = sync.OnceValues(func() ([]string, int64) {
	g := synth.New(synth.Realistic())
	texts := make([]string, 200)
	var n int64
	for i := range texts {
		texts[i] = g.Doc(i).Text
		n += int64(len(texts[i]))
	}
	return texts, n
})

// BenchmarkFeaturesRealistic is the routing phase's worker on the realistic
// archive's texts.
func BenchmarkFeaturesRealistic(b *testing.B) {
	texts, n := realisticTexts()
	b.SetBytes(n)
	for b.Loop() {
		for _, t := range texts {
			Features([]byte(t), DefaultParams)
		}
	}
}

func BenchmarkNormalizeRealistic(b *testing.B) {
	texts, n := realisticTexts()
	b.SetBytes(n)
	for b.Loop() {
		for _, t := range texts {
			Normalize([]byte(t))
		}
	}
}

// TestExtractorEqualsFeatures: one Extractor over the realistic texts and
// some edge cases (its buffers carried from text to text) gives Features'
// features and a fresh Normalize's text.
func TestExtractorEqualsFeatures(t *testing.T) {
	texts, _ := realisticTexts()
	texts = append([]string{"", "  A\tB  ", "\xffÉtÉ\u2028x", "short"}, texts[:40]...)
	var x Extractor
	for i, s := range texts {
		want := Features([]byte(s), DefaultParams)
		if got := x.FeaturesString(s, DefaultParams); !slices.Equal(got, want) {
			t.Fatalf("text %d: Extractor gives %d features, Features %d", i, len(got), len(want))
		}
		if got, want := NormalizeAppend([]byte("prefix "), []byte(s)), append([]byte("prefix "), Normalize([]byte(s))...); !bytes.Equal(got, want) {
			t.Fatalf("text %d: NormalizeAppend differs", i)
		}
	}
}

func BenchmarkExtractorRealistic(b *testing.B) {
	texts, n := realisticTexts()
	b.SetBytes(n)
	var x Extractor
	for b.Loop() {
		for _, t := range texts {
			x.FeaturesString(t, DefaultParams)
		}
	}
}
