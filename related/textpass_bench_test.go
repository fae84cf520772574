package related

import (
	"sync"
	"testing"

	"github.com/plagd/plagd/internal/synth"
	"github.com/plagd/plagd/invindex"
)

// realisticTexts are 200 documents of the realistic synthetic archive, the
// corpus the text pass benchmarks of every package use.
var realisticTexts = sync.OnceValue(func() []string { return generated(200) })

// generated are the first n documents of the realistic synthetic archive.
func generated(n int) []string {
	g := synth.New(synth.Realistic())
	texts := make([]string, n)
	for i := range texts {
		texts[i] = g.Doc(i).Text
	}
	return texts
}

func realisticBytes() int64 { return bytesOf(realisticTexts()) }

func bytesOf(texts []string) int64 {
	var n int64
	for _, t := range texts {
		n += int64(len(t))
	}
	return n
}

func BenchmarkWords(b *testing.B) {
	texts := realisticTexts()
	b.SetBytes(realisticBytes())
	var ws []string
	for b.Loop() {
		for _, t := range texts {
			ws = Words(t, ws[:0])
		}
	}
}

func BenchmarkDetect(b *testing.B) {
	texts := realisticTexts()
	words := make([][]string, len(texts))
	for i, t := range texts {
		words[i] = Words(t, nil)
	}
	b.SetBytes(realisticBytes())
	for b.Loop() {
		for _, w := range words {
			Detect(w, AllLangs)
		}
	}
}

// BenchmarkAnalyzer is the related phase's worker: one Analyzer over the
// archive's texts, its cache warm after the first pass.
func BenchmarkAnalyzer(b *testing.B) {
	texts := realisticTexts()
	b.SetBytes(realisticBytes())
	var a Analyzer
	for b.Loop() {
		for _, t := range texts {
			a.Analyze(t)
		}
	}
}

// archiveTexts are 8,000 documents of the realistic archive: enough for the
// analyser's word table to hold the archive's whole vocabulary (about
// 50,000 words), as it does in a run, where 200 documents keep it small
// enough for the cache.
var archiveTexts = sync.OnceValue(func() []string { return generated(8000) })

// BenchmarkAnalyzerArchive is BenchmarkAnalyzer over archiveTexts.
func BenchmarkAnalyzerArchive(b *testing.B) {
	texts := archiveTexts()
	b.SetBytes(bytesOf(texts))
	var a Analyzer
	for b.Loop() {
		for _, t := range texts {
			a.Analyze(t)
		}
	}
}

// BenchmarkWordTerms: the sentence seeds' terms of every word, as a
// report's cache of sources makes them (the process-wide cache warm after
// the first pass).
func BenchmarkWordTerms(b *testing.B) {
	texts := realisticTexts()
	tok := invindex.NewTokenizer(invindex.DefaultParams())
	words := make([][]invindex.Word, len(texts))
	for i, t := range texts {
		words[i] = tok.Words(t, nil)
	}
	b.SetBytes(realisticBytes())
	for b.Loop() {
		for i, t := range texts {
			WordTerms(t, words[i])
		}
	}
}
