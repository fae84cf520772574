package related

import (
	"fmt"
	"testing"
	"time"

	"github.com/plagd/plagd/internal/measure"
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
	for _, corpus := range measureCorpora(n) {
		counts, df := countAll(corpus, n, 10000)
		var base [][]Neighbor
		for _, maxDF := range []int{0, 2000, 1000, 500} {
			share := 0.05
			if maxDF > 0 {
				share = min(share, float64(maxDF)/float64(n))
			}
			m := NewModel(1, df, share)
			m.MaxTerms = 200
			vs, postings := weighAll(m, counts)
			empty := 0
			for _, v := range vs {
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
			lists := 0
			for _, l := range top {
				if len(l) > 0 {
					lists++
				}
			}
			t.Logf("%s, %d documents, %s: %d vector postings (%d empty vectors), join %ss (%d postings read), top 10 kept %.3f, nonempty lists %d",
				corpus.name, n, capName(maxDF), postings, empty, secs(took), st.Postings, keptShare(base, top), lists)
		}
	}
}

func capName(maxDF int) string {
	if maxDF == 0 {
		return "5 % share"
	}
	return fmt.Sprintf("at most %d documents", maxDF)
}
