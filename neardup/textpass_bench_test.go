package neardup

import (
	"slices"
	"sync"
	"testing"

	"github.com/plagd/plagd/internal/synth"
	"github.com/plagd/plagd/invindex"
)

// realisticWords are 200 documents of the realistic synthetic archive,
// tokenised as the text pass does.
var realisticWords = sync.OnceValues(func() ([][]invindex.Word, int64) {
	g := synth.New(synth.Realistic())
	tok := invindex.NewTokenizer(invindex.DefaultParams())
	ws := make([][]invindex.Word, 200)
	var n int64
	for i := range ws {
		t := g.Doc(i).Text
		n += int64(len(t))
		ws[i] = tok.Words(t, nil)
	}
	return ws, n
})

func BenchmarkTermCounts(b *testing.B) {
	ws, n := realisticWords()
	b.SetBytes(n)
	var fs []Feature
	for b.Loop() {
		for _, w := range ws {
			fs = TermCounts(w, fs[:0])
		}
	}
}

func BenchmarkSimhashRealistic(b *testing.B) {
	ws, n := realisticWords()
	fss := make([][]Feature, len(ws))
	for i, w := range ws {
		fss[i] = TermCounts(w, nil)
	}
	b.SetBytes(n)
	for b.Loop() {
		for _, fs := range fss {
			Simhash(fs, UniformIDF)
		}
	}
}

// TestTermCountsReused: with its buffer reused from text to text,
// TermCounts gives what it gives into a new one.
func TestTermCountsReused(t *testing.T) {
	ws, _ := realisticWords()
	var fs []Feature
	for i, w := range ws[:50] {
		want := TermCounts(w, nil)
		fs = TermCounts(w, fs[:0])
		if !slices.Equal(fs, want) {
			t.Fatalf("text %d: TermCounts differs with a reused buffer", i)
		}
	}
}
