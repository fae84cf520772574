package related

import (
	"math"
	"slices"
	"testing"

	"github.com/plagd/plagd/internal/measure"
)

// TestMeasureSplitBound measures whether any exact bound could spare the
// self join (k 30) pairs on the realistic corpus. Split the terms at a
// document frequency D: a pair that shares no term in D documents or fewer
// (no rare term) has a cosine of at most |a_C|·|b_C|, the norms of the two
// vectors' common parts. So a join could read the rare terms' postings
// alone (their share of the all-pairs work is logged), rank each
// document's candidates, and need to verify only the pairs without a rare
// term whose bound reaches the lower of the two documents' k-th candidate
// cosines (logged as a share of all pairs). A split that helps makes both
// shares small.
//
//	PLAGD_RELATED_MEASURE=1 PLAGD_RELATED_N=20000 go test ./related -run TestMeasureSplitBound -v -timeout 30m
func TestMeasureSplitBound(t *testing.T) {
	measure.Gate(t, "PLAGD_RELATED_MEASURE")
	n := measure.EnvInt("PLAGD_RELATED_N", 20000)
	const k = 30
	vs := realisticVectors(n)
	dict := NewDict()
	s := SelfSet(dict, dict.Docs(vs, Pool(0)))
	x := NewIndex(s)
	exact, _ := ExactSelf(s, x, k, Pool(0))
	kth := make([]float64, 0, n)
	for _, l := range exact {
		if len(l) == k {
			kth = append(kth, float64(l[k-1].Sim))
		}
	}
	slices.Sort(kth)
	t.Logf("%d documents: the k-th cosine p10 %.3f, p50 %.3f, p90 %.3f", n, kth[len(kth)/10], kth[len(kth)/2], kth[len(kth)*9/10])
	df := make([]int64, len(x.off)-1)
	var all float64
	for term := range df {
		df[term] = x.off[term+1] - x.off[term]
		all += float64(df[term]) * float64(df[term])
	}
	acc := make([]float64, n)
	mark := make([]bool, n)
	for _, share := range []float64{0.001, 0.002, 0.005, 0.01} {
		D := int64(share * float64(n))
		var rare float64
		for _, f := range df {
			if f <= D {
				rare += float64(f) * float64(f)
			}
		}
		common := make([]float64, n) // |a_C|
		for i, q := range s.q {
			var sum float64
			for j, term := range q.t {
				if df[term] > D {
					sum += float64(q.w[j]) * float64(q.w[j])
				}
			}
			common[i] = math.Sqrt(sum)
		}
		// Each document's candidates (sharing a rare term) and the k-th
		// best of their full cosines.
		cand := make([][]int32, n)
		kthCand := make([]float64, n)
		missed := 0
		for a, q := range s.q {
			var touched []int32
			for _, term := range q.t {
				if df[term] > D {
					continue
				}
				for _, d := range x.doc[x.off[term]:x.off[term+1]] {
					if int(d) != a && !mark[d] {
						mark[d] = true
						touched = append(touched, d)
					}
				}
			}
			for j, term := range q.t {
				for p := x.off[term]; p < x.off[term+1]; p++ {
					acc[x.doc[p]] += float64(q.w[j]) * float64(x.w[p])
				}
			}
			sims := make([]float64, 0, len(touched))
			for _, d := range touched {
				sims = append(sims, acc[d])
			}
			slices.Sort(sims)
			if len(sims) >= k {
				kthCand[a] = sims[len(sims)-k]
			}
			for _, nb := range exact[a] {
				if !mark[nb.Doc] {
					missed++
				}
			}
			for _, d := range touched {
				mark[d] = false
			}
			cand[a] = touched
			clear(acc)
		}
		var verify int64
		for a := range n {
			for _, d := range cand[a] {
				mark[d] = true
			}
			for b := a + 1; b < n; b++ {
				if !mark[b] && common[a]*common[b] >= min(kthCand[a], kthCand[b]) {
					verify++
				}
			}
			for _, d := range cand[a] {
				mark[d] = false
			}
		}
		cs := slices.Clone(common)
		slices.Sort(cs)
		t.Logf("D = %.1f %% (%d documents): rare terms' work %.3f of all pairs'; |a_C| p10 %.2f, p50 %.2f, p90 %.2f; "+
			"exact list members sharing no rare term %d of %d; pairs left to verify %.3f of all",
			100*share, D, rare/all, cs[n/10], cs[n/2], cs[n*9/10], missed, n*k, float64(verify)/(float64(n)*float64(n-1)/2))
	}
}
