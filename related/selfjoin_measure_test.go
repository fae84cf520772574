package related

import (
	"slices"
	"testing"
	"time"

	"github.com/plagd/plagd/internal/measure"
)

// TestMeasureExactSelf times the exact self join (k 30, the engine's
// depth) of the realistic corpus's vectors cut to 200 terms, the full run's
// join: the median of PLAGD_RELATED_REPEAT runs on the same vectors.
// PLAGD_RELATED_MEASURE=1 PLAGD_RELATED_N=20000 go test ./related -run
// TestMeasureExactSelf -v -timeout 30m
func TestMeasureExactSelf(t *testing.T) {
	measure.Gate(t, "PLAGD_RELATED_MEASURE")
	n := measure.EnvInt("PLAGD_RELATED_N", 20000)
	repeat := measure.EnvInt("PLAGD_RELATED_REPEAT", 5)
	counts, df := countAll(measureCorpora(n)[0], n, 10000)
	m := NewModel(1, df, 0.05)
	m.MaxTerms = 200
	vs, _ := weighAll(m, counts)
	dict := NewDict()
	s := SelfSet(dict, dict.Docs(vs, Pool(0)))
	x := NewIndex(s)
	var took []time.Duration
	var st ExactStats
	for range repeat {
		t0 := time.Now()
		_, st = ExactSelf(s, x, 30, Pool(0))
		took = append(took, time.Since(t0))
	}
	slices.Sort(took)
	t.Logf("%d documents, k 30: self join median %s of %v, %d postings read", n, took[len(took)/2], took, st.Postings)
}
