package shortans

import (
	"slices"
	"sort"
)

// AUC is the area under the ROC curve of a score that should rank pos
// above neg: the probability that a random positive scores higher than a
// random negative, ties counting one half (the Mann-Whitney U statistic
// over |pos|·|neg|). 0.5 is chance, 1 a perfect separation. It is 0.5 when
// either side is empty.
func AUC(pos, neg []float64) float64 {
	if len(pos) == 0 || len(neg) == 0 {
		return 0.5
	}
	n := slices.Clone(neg)
	sort.Float64s(n)
	var u float64
	for _, p := range pos {
		below := sort.SearchFloat64s(n, p) // neg < p
		upto := below
		for upto < len(n) && n[upto] == p {
			upto++
		}
		u += float64(below) + 0.5*float64(upto-below)
	}
	return u / float64(len(pos)*len(neg))
}

// Figures are one score's figures on a corpus.
type Figures struct {
	// AUC separates the copied grades (Cut, Light, Heavy) from None.
	AUC float64 `json:"auc"`
	// HeavyAUC separates Heavy alone from None: the hard case.
	HeavyAUC float64 `json:"heavy_auc"`
	// Mean is the mean score per grade.
	Mean map[string]float64 `json:"mean"`
}

// Measure computes a score's figures; scores[i] is the score of answers[i]
// against its question's source.
func Measure(answers []Answer, scores []float64) Figures {
	var pos, heavy, neg []float64
	sum, n := map[string]float64{}, map[string]int{}
	for i, a := range answers {
		s := scores[i]
		sum[a.Grade] += s
		n[a.Grade]++
		switch {
		case a.Grade == None:
			neg = append(neg, s)
		case Copied(a.Grade):
			pos = append(pos, s)
			if a.Grade == Heavy {
				heavy = append(heavy, s)
			}
		}
	}
	f := Figures{AUC: AUC(pos, neg), HeavyAUC: AUC(heavy, neg), Mean: map[string]float64{}}
	for g, s := range sum {
		f.Mean[g] = s / float64(n[g])
	}
	return f
}
