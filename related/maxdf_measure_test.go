package related

import (
	"fmt"
	"testing"
	"time"

	"github.com/plagd/plagd/internal/measure"
	"github.com/plagd/plagd/internal/synth"
	"github.com/plagd/plagd/termstat"
)

// TestMeasureMaxDF: the exact self join (k 30) of n documents' vectors
// (200 heaviest terms) with terms in more than 5 % of the documents
// dropped, as before, and with terms in more than D documents dropped,
// on the realistic corpus (no topics: its lists are noise) and on the
// topic corpus: postings, pairs, join time, and the share of the 5 % top
// 10 that each cap keeps. PLAGD_RELATED_MEASURE=1 PLAGD_RELATED_N=100000
// go test ./related -run TestMeasureMaxDF -v -timeout 1h
func TestMeasureMaxDF(t *testing.T) {
	measure.Gate(t, "PLAGD_RELATED_MEASURE")
	n := measure.EnvInt("PLAGD_RELATED_N", 100000)
	realistic := synth.New(synth.Realistic())
	topics := newTopicCorpus(3, max(10, n/200))
	for _, corpus := range []struct {
		name  string
		count func(i int) []TermCount
	}{
		{"topics", func(i int) []TermCount { return Count(Terms(LangNone, Words(topics.text(i), nil), nil), nil) }},
		{"realistic", func(i int) []TermCount { _, c := Analyze(realistic.Doc(i).Text, nil); return c }},
	} {
		counts := make([][]TermCount, n)
		Pool(0).Run(n, func(i int) { counts[i] = corpus.count(i) })
		df := termstat.NewDocFreq()
		for _, c := range counts[:min(n, 10000)] {
			df.Add(c)
		}
		var base [][]Neighbor
		for _, maxDF := range []int{0, 2000, 1000, 500} {
			share := 0.05
			if maxDF > 0 {
				share = min(share, float64(maxDF)/float64(n))
			}
			m := NewModel(1, df, share)
			m.MaxTerms = 200
			vs := make([]Vector, n)
			Pool(0).Run(n, func(i int) { vs[i] = m.Vector(counts[i]) })
			postings, empty := 0, 0
			for _, v := range vs {
				postings += len(v.Terms)
				if len(v.Terms) == 0 {
					empty++
				}
			}
			dict := NewDict()
			s := SelfSet(dict, dict.Docs(vs, Pool(0)))
			t0 := time.Now()
			top, st := ExactSelf(s, NewIndex(s), 30, Pool(0))
			took := time.Since(t0)
			if base == nil {
				base = top
			}
			kept, all, lists := 0, 0, 0
			for i, l := range base {
				in := map[int32]bool{}
				for _, nb := range top[i][:min(10, len(top[i]))] {
					in[nb.Doc] = true
				}
				for _, nb := range l[:min(10, len(l))] {
					all++
					if in[nb.Doc] {
						kept++
					}
				}
				if len(top[i]) > 0 {
					lists++
				}
			}
			t.Logf("%s, %d documents, %s: %d vector postings (%d empty vectors), join %ss (%d postings read), top 10 kept %.3f, nonempty lists %d",
				corpus.name, n, capName(maxDF), postings, empty, secs(took), st.Postings, float64(kept)/float64(max(all, 1)), lists)
		}
	}
}

func capName(maxDF int) string {
	if maxDF == 0 {
		return "5 % share"
	}
	return fmt.Sprintf("at most %d documents", maxDF)
}
