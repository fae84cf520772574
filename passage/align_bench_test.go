package passage

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/plagd/plagd/invindex"
)

// zipfText returns n words drawn from a Zipf distribution over vocab (s =
// 1.1, as in prose: a few function words make up much of the text), in
// sentences, so that short common phrases recur by chance as they do in real
// documents and seed spurious matches.
func zipfText(z *rand.Zipf, rng *rand.Rand, vocab []string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = vocab[z.Uint64()]
		if rng.IntN(18) == 0 {
			out[i] += "."
		}
	}
	return out
}

// alignCorpus is a document and its sources: every fourth source holds a
// few passages of the document (40-120 words, one word in ten replaced).
func alignCorpus(docWords, sources, srcWords int) (doc string, srcs []string) {
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := makeVocab(rng, 20000)
	z := rand.NewZipf(rng, 1.1, 1, uint64(len(vocab)-1))
	d := zipfText(z, rng, vocab, docWords)
	for i := 0; i < sources; i++ {
		s := zipfText(z, rng, vocab, srcWords)
		if i%4 == 0 {
			for k := 0; k < 4; k++ {
				n := 40 + rng.IntN(81)
				from, at := rng.IntN(len(d)-n), rng.IntN(len(s))
				p := append([]string(nil), d[from:from+n]...)
				for j := range p {
					if rng.IntN(10) == 0 {
						p[j] = vocab[rng.IntN(len(vocab))]
					}
				}
				s = append(s[:at], append(p, s[at:]...)...)
			}
		}
		srcs = append(srcs, strings.Join(s, " "))
	}
	return strings.Join(d, " "), srcs
}

// benchmarkAlign aligns one document with its sources, as a similarity
// report does: tokenise the document once, then for each source tokenise
// it and align (Doc: NewDoc for every text plus Align; Align: Align alone,
// on documents prepared beforehand).
func benchmarkAlign(b *testing.B, docWords, sources, srcWords int) {
	doc, srcs := alignCorpus(docWords, sources, srcWords)
	tok := invindex.NewTokenizer(invindex.DefaultParams())
	b.Run("Doc+Align", func(b *testing.B) {
		b.ReportAllocs()
		passages := 0
		for b.Loop() {
			d := NewDoc(tok, doc)
			passages = 0
			for _, s := range srcs {
				passages += len(Align(d, NewDoc(tok, s), Options{}))
			}
		}
		b.ReportMetric(float64(passages), "passages")
	})
	b.Run("Align", func(b *testing.B) {
		docs := make([]*Doc, len(srcs))
		for i, s := range srcs {
			docs[i] = NewDoc(tok, s)
		}
		b.ReportAllocs()
		for b.Loop() {
			d := NewDoc(tok, doc)
			for _, s := range docs {
				Align(d, s, Options{})
			}
		}
	})
	// Sentence seeds on (the evaluation's setting): every word is a
	// content term here, the worst case for the sentence index.
	b.Run("Align+Sentences", func(b *testing.B) {
		docs := make([]*Doc, len(srcs))
		for i, s := range srcs {
			docs[i] = termDoc(tok, s)
		}
		b.ReportAllocs()
		for b.Loop() {
			d := termDoc(tok, doc)
			for _, s := range docs {
				Align(d, s, Options{SentenceDice: 0.4})
			}
		}
	})
}

// BenchmarkAlign_Essay: a 3,000-word essay against its top 100 sources of
// 3,000 words each.
func BenchmarkAlign_Essay(b *testing.B) { benchmarkAlign(b, 3000, 100, 3000) }

// BenchmarkAlign_Thesis: a 100,000-word thesis (300 pages) against 100
// sources of 20,000 words each (theses themselves).
func BenchmarkAlign_Thesis(b *testing.B) { benchmarkAlign(b, 100_000, 100, 20_000) }
