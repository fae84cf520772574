package routing

import (
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
