package related

import (
	"sync"
	"testing"

	"github.com/plagd/plagd/termstat"
)

// benchSet is a generated topic corpus of 10k documents, self join.
var benchSet = sync.OnceValue(func() *Set {
	c := newTopicCorpus(3, 50)
	n := 10000
	counts := make([][]TermCount, n)
	Pool(0).Run(n, func(i int) { counts[i] = Count(Terms(LangNone, Words(c.text(i), nil), nil), nil) })
	df := termstat.NewDocFreq()
	for _, tc := range counts {
		df.Add(tc)
	}
	m := NewModel(1, df, 0.05)
	vs := make([]Vector, n)
	for i := range counts {
		vs[i] = m.Vector(counts[i])
	}
	return Prepare(nil, vs, true, Pool(0))
})

func BenchmarkExact(b *testing.B) {
	s := benchSet()
	x := NewIndex(s)
	b.ResetTimer()
	for b.Loop() {
		Exact(s, x, 10, Pool(0))
	}
}

func BenchmarkZOLIP(b *testing.B) {
	s := benchSet()
	b.ResetTimer()
	for b.Loop() {
		ZOLIP(s, Params{K: 10, Lambda: 8, Sigma: 0.8}, Pool(0))
	}
}

func BenchmarkPrefix(b *testing.B) {
	s := benchSet()
	b.ResetTimer()
	for b.Loop() {
		PrefixJoin(s, 10, []float64{0.5}, Pool(0), 64, 64)
	}
}

func BenchmarkAnalyze(b *testing.B) {
	texts := sampleTexts(b)
	var n int
	for _, t := range texts {
		n += len(t)
	}
	b.SetBytes(int64(n))
	for b.Loop() {
		for _, t := range texts {
			Analyze(t, nil)
		}
	}
}
