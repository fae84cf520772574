package shortans

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/plagd/plagd/internal/measure"
	"github.com/plagd/plagd/internal/testseed"
	"github.com/plagd/plagd/invindex"
	"github.com/plagd/plagd/passage"
	"github.com/plagd/plagd/related"
	"github.com/plagd/plagd/report"
)

// TestMeasureShortans prints the table of docs/QUALITY.md, "Short
// answers": for seeds 1..PLAGD_SHORTANS_SEEDS (20), the ROC AUC of each
// score, copied against original answers, over the Go documentation's
// prose, in process: min, median and max over the seeds, and the heavy
// revisions' median.
//
//	PLAGD_MEASURE_SHORTANS=1 go test ./internal/shortans -run TestMeasureShortans -v
func TestMeasureShortans(t *testing.T) {
	measure.Gate(t, "PLAGD_MEASURE_SHORTANS")
	topics := goDocTopics(t, 2400)
	seeds := measure.EnvInt("PLAGD_SHORTANS_SEEDS", 20)
	extra := func(n int) invindex.Params {
		p := invindex.DefaultParams()
		p.ExtraWindowWords = n
		return p
	}
	type row struct{ all, heavy []float64 }
	rows := map[string]*row{}
	var order []string
	add := func(name string, answers []Answer, scores []float64) {
		if rows[name] == nil {
			rows[name] = &row{}
			order = append(order, name)
		}
		f := Measure(answers, scores)
		rows[name].all = append(rows[name].all, f.AUC)
		rows[name].heavy = append(rows[name].heavy, f.HeavyAUC)
	}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		c, err := Generate(topics, Options{Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		answers := c.Answers()
		base := Scores(context.Background(), c, ScoreOptions{})
		x3 := Scores(context.Background(), c, ScoreOptions{Params: extra(3)})
		x4 := Scores(context.Background(), c, ScoreOptions{Params: extra(4)})
		add("similarity", answers, base[Similarity])
		add("similarity, extra_window_words 4", answers, x4[Similarity])
		add("similarity, extra_window_words 3", answers, x3[Similarity])
		add("coverage", answers, base[Coverage])
		add("coverage, extra_window_words 3", answers, x3[Coverage])
		short := Scores(context.Background(), c, ScoreOptions{Report: report.Options{Align: passage.Options{MinWords: 8}}})
		add("coverage, passages of 8 words or more", answers, short[Coverage])
		add("cosine (IDF over the corpus)", answers, base[Cosine])
		for _, w := range []float64{0.1, 0.25} {
			comb := make([]float64, len(answers))
			for i := range comb {
				comb[i] = base[Similarity][i] + w*base[Cosine][i]
			}
			add(fmt.Sprintf("similarity + %.2f cosine", w), answers, comb)
		}
		add("naive5", answers, base[Naive5])
		n3 := make([]float64, len(answers))
		for i, a := range answers {
			n3[i] = Containment(NGrams(a.Text, 3), NGrams(c.Questions[a.Question].Source, 3))
		}
		add("naive3", answers, n3)
		for _, n := range []int{2, 3} {
			st := make([]float64, len(answers))
			for i, a := range answers {
				st[i] = Containment(stemGrams(a.Text, n), stemGrams(c.Questions[a.Question].Source, n))
			}
			add(fmt.Sprintf("stemmed content-word %d-grams", n), answers, st)
		}
	}
	med := func(v []float64) float64 {
		v = slices.Sorted(slices.Values(v))
		return (v[(len(v)-1)/2] + v[len(v)/2]) / 2
	}
	t.Logf("%d seeds", seeds)
	t.Logf("| score | AUC min | median | max | heavy AUC median |")
	for _, n := range order {
		r := rows[n]
		t.Logf("| %s | %.3f | %.3f | %.3f | %.3f |", n, slices.Min(r.all), med(r.all), slices.Max(r.all), med(r.heavy))
	}
}

// stemGrams is the set of n-grams of text's English terms: stop words
// left out, the rest stemmed (package related's analysis).
func stemGrams(text string, n int) map[string]bool {
	ts := related.Terms(related.LangEnglish, related.Words(text, nil), nil)
	out := map[string]bool{}
	for i := 0; i+n <= len(ts); i++ {
		out[strings.Join(ts[i:i+n], " ")] = true
	}
	return out
}

// TestExtraWindowsFloor: with 3-word extra windows
// (engine.extra_window_words 3) plagd's similarity reaches issue 18's
// target of AUC 0.98 on the short answers but for a few seeds: seeds 1-20
// give 0.986-1.000 (median 0.996), seeds 1-150 three below 0.98, the worst
// 0.969. The floor is that less a margin.
func TestExtraWindowsFloor(t *testing.T) {
	topics := goDocTopics(t, 2400)
	seed := testseed.Seed(t)
	c, err := Generate(topics, Options{Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	p := invindex.DefaultParams()
	p.ExtraWindowWords = 3
	f := Measure(c.Answers(), Scores(context.Background(), c, ScoreOptions{Params: p})[Similarity])
	if f.AUC < 0.96 {
		t.Errorf("seed %d: similarity with extra_window_words 3: AUC %.3f, want at least 0.96", seed, f.AUC)
	}
}
