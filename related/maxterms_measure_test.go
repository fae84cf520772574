package related

import (
	"testing"
	"time"

	"github.com/plagd/plagd/internal/measure"
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
	for _, corpus := range measureCorpora(n) {
		counts, df := countAll(corpus, n, 0)
		var uncut [][]Neighbor
		for _, maxTerms := range []int{0, 200, 100, 50} {
			m := NewModel(1, df, 0.05)
			m.MaxTerms = maxTerms
			vs, postings := weighAll(m, counts)
			t0 := time.Now()
			s := Prepare(nil, vs, true, Pool(0))
			top, st := ExactSelf(s, NewIndex(s), 10, Pool(0))
			took := time.Since(t0)
			if uncut == nil {
				uncut = top
			}
			t.Logf("%s, %d documents, max_terms %d: %d vector postings, join %ss (%d postings read), uncut top 10 kept %.3f",
				corpus.name, n, maxTerms, postings, secs(took), st.Postings, keptShare(uncut, top))
		}
	}
}
