package related

import (
	"testing"
	"time"

	"github.com/plagd/plagd/internal/measure"
	"github.com/plagd/plagd/internal/synth"
	"github.com/plagd/plagd/termstat"
)

// TestMeasureMaxTerms: the exact self join (k 10) of the same documents'
// vectors with every term and cut to their 200, 100 and 50 heaviest
// (Model.MaxTerms), on the realistic corpus (no topics) and on the topic
// corpus: vector postings, postings read, join time, and the share of the
// uncut top 10 each cut keeps (docs/RELATED.md, "Vectors of the heaviest
// terms"). PLAGD_RELATED_MEASURE=1 PLAGD_RELATED_N=20000 go test ./related
// -run TestMeasureMaxTerms -v -timeout 30m
func TestMeasureMaxTerms(t *testing.T) {
	measure.Gate(t, "PLAGD_RELATED_MEASURE")
	n := measure.EnvInt("PLAGD_RELATED_N", 20000)
	realistic := synth.New(synth.Realistic())
	topics := newTopicCorpus(3, max(10, n/200))
	for _, corpus := range []struct {
		name  string
		count func(i int) []TermCount
	}{
		{"realistic", func(i int) []TermCount { _, c := Analyze(realistic.Doc(i).Text, nil); return c }},
		{"topics", func(i int) []TermCount { return Count(Terms(LangNone, Words(topics.text(i), nil), nil), nil) }},
	} {
		counts := make([][]TermCount, n)
		Pool(0).Run(n, func(i int) { counts[i] = corpus.count(i) })
		df := termstat.NewDocFreq()
		for _, c := range counts {
			df.Add(c)
		}
		var uncut [][]Neighbor
		for _, maxTerms := range []int{0, 200, 100, 50} {
			m := NewModel(1, df, 0.05)
			m.MaxTerms = maxTerms
			vs := make([]Vector, n)
			Pool(0).Run(n, func(i int) { vs[i] = m.Vector(counts[i]) })
			postings := 0
			for _, v := range vs {
				postings += len(v.Terms)
			}
			t0 := time.Now()
			s := Prepare(nil, vs, true, Pool(0))
			top, st := ExactSelf(s, NewIndex(s), 10, Pool(0))
			took := time.Since(t0)
			if uncut == nil {
				uncut = top
			}
			kept, all := 0, 0
			for i, l := range top {
				in := map[int32]bool{}
				for _, nb := range uncut[i] {
					in[nb.Doc] = true
				}
				for _, nb := range l {
					if in[nb.Doc] {
						kept++
					}
				}
				all += len(uncut[i])
			}
			t.Logf("%s, %d documents, max_terms %d: %d vector postings, join %ss (%d postings read), uncut top 10 kept %.3f",
				corpus.name, n, maxTerms, postings, secs(took), st.Postings, float64(kept)/float64(max(all, 1)))
		}
	}
}
