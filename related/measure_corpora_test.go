package related

import (
	"github.com/plagd/plagd/internal/synth"
	"github.com/plagd/plagd/termstat"
)

// measureCorpus is a corpus the measurements analyse: its name and each
// document's term counts.
type measureCorpus struct {
	name  string
	count func(i int) []TermCount
}

// measureCorpora are the realistic corpus (internal/synth: no topics, its
// related lists are noise) and the topic corpus (topics_test.go) for n
// documents.
func measureCorpora(n int) []measureCorpus {
	realistic := synth.New(synth.Realistic())
	topics := newTopicCorpus(3, max(10, n/200))
	return []measureCorpus{
		{"realistic", func(i int) []TermCount { _, c := Analyze(realistic.Doc(i).Text, nil); return c }},
		{"topics", func(i int) []TermCount { return Count(Terms(LangNone, Words(topics.text(i), nil), nil), nil) }},
	}
}

// countAll is the term counts of c's first n documents and their document
// frequencies over the first sample of them (0: all; the engine's model
// counts a sample of 10,000).
func countAll(c measureCorpus, n, sample int) ([][]TermCount, *termstat.DocFreq) {
	counts := make([][]TermCount, n)
	Pool(0).Run(n, func(i int) { counts[i] = c.count(i) })
	if sample <= 0 {
		sample = n
	}
	df := termstat.NewDocFreq()
	for _, tc := range counts[:min(n, sample)] {
		df.Add(tc)
	}
	return counts, df
}

// weighAll is every document's vector under m, and their postings.
func weighAll(m *Model, counts [][]TermCount) ([]Vector, int) {
	vs := make([]Vector, len(counts))
	Pool(0).Run(len(counts), func(i int) { vs[i] = m.Vector(counts[i]) })
	postings := 0
	for _, v := range vs {
		postings += len(v.Terms)
	}
	return vs, postings
}

// keptShare is the share of the members of base's top 10 lists that the
// top 10 lists of got hold.
func keptShare(base, got [][]Neighbor) float64 {
	kept, all := 0, 0
	for i, l := range base {
		in := map[int32]bool{}
		for _, nb := range got[i][:min(10, len(got[i]))] {
			in[nb.Doc] = true
		}
		for _, nb := range l[:min(10, len(l))] {
			all++
			if in[nb.Doc] {
				kept++
			}
		}
	}
	return float64(kept) / float64(max(all, 1))
}
