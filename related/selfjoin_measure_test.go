package related

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/plagd/plagd/internal/measure"
)

// TestMeasureExactSelf times the exact self join (k 30, the engine's
// depth) of the realistic corpus's vectors cut to 200 terms, the full run's
// join: the median of PLAGD_RELATED_REPEAT runs on the same vectors. With
// PLAGD_RELATED_COPIES the N documents are repeated (copiedVectors), for
// an archive larger than the corpus's vectors take long to make.
// PLAGD_RELATED_MEASURE=1 PLAGD_RELATED_N=20000 go test ./related -run
// TestMeasureExactSelf -v -timeout 30m
func TestMeasureExactSelf(t *testing.T) {
	measure.Gate(t, "PLAGD_RELATED_MEASURE")
	n := measure.EnvInt("PLAGD_RELATED_N", 20000)
	repeat := measure.EnvInt("PLAGD_RELATED_REPEAT", 5)
	vs := copiedVectors(realisticVectors(n), measure.EnvInt("PLAGD_RELATED_COPIES", 1))
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
	t.Logf("%d documents, k 30: self join median %s of %v, %d postings read", len(vs), took[len(took)/2], took, st.Postings)
}

// TestMeasureBatchJoin times an incremental run's batch join both ways,
// alternating: ExactOf (each query reads the archive's inverted index into
// an accumulator of the archive's size; the index built beforehand, not
// timed) and ExactScan (each archive document read against an index of
// the batch). The archive is the realistic corpus's vectors (N documents,
// 200 terms) repeated PLAGD_RELATED_COPIES times with their weights
// jittered by up to 10 %, so that every term lies in COPIES times as many
// documents, as in an archive COPIES times larger without topics; the
// batch is 800 documents spread over it, floors 0.05, k 30. Medians of
// PLAGD_RELATED_REPEAT runs of each. PLAGD_RELATED_TOPICS=1 takes the
// topic corpus instead (documents of one topic share its terms, most pairs
// share none).
//
//	PLAGD_RELATED_MEASURE=1 PLAGD_RELATED_N=100000 PLAGD_RELATED_COPIES=10 \
//	  go test ./related -run TestMeasureBatchJoin -v -timeout 1h
func TestMeasureBatchJoin(t *testing.T) {
	measure.Gate(t, "PLAGD_RELATED_MEASURE")
	n := measure.EnvInt("PLAGD_RELATED_N", 20000)
	copies := measure.EnvInt("PLAGD_RELATED_COPIES", 10)
	repeat := measure.EnvInt("PLAGD_RELATED_REPEAT", 3)
	corpus := 0
	if measure.EnvInt("PLAGD_RELATED_TOPICS", 0) == 1 {
		corpus = 1
	}
	vs := copiedVectors(corpusVectors(corpus, n), copies)
	dict := NewDict()
	s := SelfSet(dict, dict.Docs(vs, Pool(0)))
	x := NewIndex(s)
	qs := make([]int32, 800)
	for j := range qs {
		qs[j] = int32(j * len(vs) / len(qs))
	}
	floor := make([]float32, len(vs))
	for i := range floor {
		floor[i] = 0.05
	}
	var of, scan []time.Duration
	for range repeat {
		t0 := time.Now()
		ExactOf(s, x, 30, qs, floor, Pool(0))
		of = append(of, time.Since(t0))
		t0 = time.Now()
		ExactScan(s, 30, qs, floor, Pool(0))
		scan = append(scan, time.Since(t0))
	}
	slices.Sort(of)
	slices.Sort(scan)
	t.Logf("%d documents, batch of 800: ExactOf median %s of %v; ExactScan median %s of %v",
		len(vs), of[len(of)/2], of, scan[len(scan)/2], scan)
}

// copiedVectors is base repeated copies times, the weights of every copy
// after the first jittered by up to 10 %: every term lies in copies times
// as many documents, as in an archive copies times larger without topics.
func copiedVectors(base []Vector, copies int) []Vector {
	r := rand.New(rand.NewPCG(1, 2))
	vs := make([]Vector, 0, len(base)*copies)
	for c := range copies {
		for _, v := range base {
			if c > 0 {
				w := slices.Clone(v.W)
				for i := range w {
					w[i] *= 0.9 + 0.2*r.Float32()
				}
				v.W = w
			}
			vs = append(vs, v)
		}
	}
	return vs
}

// realisticVectors is the vectors of the realistic corpus's first n
// documents cut to 200 terms, under a model counted over 10,000 of them
// with the 5 % share, as the engine makes them.
func realisticVectors(n int) []Vector { return corpusVectors(0, n) }

// corpusVectors is realisticVectors for measureCorpora(n)[c] (0 the
// realistic corpus, 1 the topic corpus).
func corpusVectors(c, n int) []Vector {
	counts, df := countAll(measureCorpora(n)[c], n, 10000)
	m := NewModel(1, df, 0.05)
	m.MaxTerms = 200
	vs, _ := weighAll(m, counts)
	return vs
}
