package synth

import (
	"context"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestDeterministic(t *testing.T) {
	opt := Options{Seed: 42, MeanWords: 300, TemplateShare: 0.2}
	a, b := New(opt), New(opt)
	for _, i := range []int{0, 1, 7, 99, 1234} {
		da, db := a.Doc(i), b.Doc(i)
		if da.Text != db.Text || da.Title != db.Title || da.ExternalID != db.ExternalID {
			t.Fatalf("doc %d differs between two generators with seed 42", i)
		}
		if again := a.Doc(i); again.Text != da.Text {
			t.Fatalf("doc %d differs between two calls", i)
		}
	}
	if New(Options{Seed: 43, MeanWords: 300}).Doc(5).Text == a.Doc(5).Text {
		t.Fatal("seeds 42 and 43 give the same document")
	}
}

// TestEachOrder checks that parallel generation yields exactly Doc(i), in order.
func TestEachOrder(t *testing.T) {
	g := New(Options{Seed: 3, MeanWords: 200})
	next := 10
	err := g.Each(context.Background(), 10, 200, 3, func(i int, d Doc) error {
		if i != next {
			t.Fatalf("got doc %d, want %d", i, next)
		}
		next++
		if d.Text != g.Doc(i).Text {
			t.Fatalf("doc %d from Each differs from Doc", i)
		}
		return nil
	})
	if err != nil || next != 200 {
		t.Fatalf("Each: err %v, stopped at %d", err, next)
	}
}

// TestPlantedCopies checks that every planted passage is in its source and
// in the copy: verbatim passages sentence for sentence, edited ones mostly.
func TestPlantedCopies(t *testing.T) {
	g := New(Options{Seed: 7, MeanWords: 500, CopyShare: 0.3, NearDupShare: 0.05})
	copiers, neardups, verbatim, edited, editedFound := 0, 0, 0, 0, 0
	for i := range 400 {
		d := g.Doc(i)
		cs := g.Planted(i)
		if (len(cs) > 0) != (len(d.CopiedFrom) > 0) {
			t.Fatalf("doc %d: Planted %d passages, CopiedFrom %v", i, len(cs), d.CopiedFrom)
		}
		if d.NearDup {
			neardups++
		} else if len(cs) > 0 {
			copiers++
		}
		for _, c := range cs {
			if c.Src >= i {
				t.Fatalf("doc %d copies from a later document %d", i, c.Src)
			}
			src := g.Doc(c.Src).Text
			for k := c.Start; k < c.Start+c.N; k++ {
				s := g.Sentence(c.Src, k)
				if !strings.Contains(src, s) {
					t.Fatalf("sentence %d of doc %d is not in its own text", k, c.Src)
				}
				if c.Edited {
					edited++
					if strings.Contains(d.Text, s) {
						editedFound++
					}
				} else {
					verbatim++
					if !strings.Contains(d.Text, s) {
						t.Fatalf("doc %d lacks verbatim sentence %d of doc %d", i, k, c.Src)
					}
				}
			}
		}
	}
	if copiers < 80 || neardups < 5 || verbatim == 0 || edited == 0 {
		t.Fatalf("too few planted copies: %d copiers, %d near-duplicates, %d/%d sentences", copiers, neardups, verbatim, edited)
	}
	// With 4 % of words replaced, a 19-word sentence survives intact with
	// probability 0.96^19 ≈ 46 % (near-duplicates replace half as often).
	if f := float64(editedFound) / float64(edited); f < 0.25 || f > 0.85 {
		t.Fatalf("%.0f %% of edited sentences survive intact, want about half", 100*f)
	}
	t.Logf("%d copiers, %d near-duplicates, %d verbatim and %d edited sentences (%d intact)", copiers, neardups, verbatim, edited, editedFound)
}

func TestTemplate(t *testing.T) {
	g := New(Options{Seed: 5, MeanWords: 200, TemplateShare: 0.3, Faculties: 2})
	n := 0
	for i := range 1000 {
		if strings.HasPrefix(g.Doc(i).Text, "Declaration. I hereby declare") {
			n++
		}
	}
	if n < 250 || n > 350 {
		t.Fatalf("%d of 1000 documents carry the declaration, want about 300", n)
	}
}

// TestLengths checks the archive shape: the mean follows MeanWords, most
// documents are essays, theses are about ten times longer.
func TestLengths(t *testing.T) {
	for _, mean := range []int{0, 1000, 100} {
		g := New(Options{Seed: 11, MeanWords: mean})
		const n = 3000
		var sum, essays, essayWords, thesisWords float64
		for i := range n {
			d := g.Doc(i)
			w := float64(len(strings.Fields(d.Text)))
			sum += w
			if d.Kind == "essay" {
				essays++
				essayWords += w
			} else {
				thesisWords += w
			}
		}
		got, want := sum/n, g.MeanWords()
		if math.Abs(got-want)/want > 0.08 {
			t.Errorf("mean_words=%d: mean %.0f words, want %.0f", mean, got, want)
		}
		if essays/n < 0.9 || essays/n > 0.99 {
			t.Errorf("mean_words=%d: %.1f %% essays, want about 95 %%", mean, 100*essays/n)
		}
		if r := (thesisWords / (n - essays)) / (essayWords / essays); r < 6 || r > 14 {
			t.Errorf("mean_words=%d: theses are %.1f× essays, want about 10×", mean, r)
		}
	}
}

// TestZipf checks the word statistics: function words dominate, "the" is
// the most frequent word, and the vocabulary is large.
func TestZipf(t *testing.T) {
	g := New(Options{Seed: 1})
	counts := map[string]int{}
	total := 0
	for i := range 50 {
		for _, w := range strings.Fields(strings.ToLower(g.Doc(i).Text)) {
			counts[strings.Trim(w, ".,")]++
			total++
		}
	}
	if f := float64(counts["the"]) / float64(total); f < 0.05 || f > 0.12 {
		t.Errorf(`"the" is %.1f %% of words, want 5-12 %%`, 100*f)
	}
	if len(counts) < 10000 {
		t.Errorf("only %d distinct words in %d", len(counts), total)
	}
	if len(g.vocab.words) != 50000 {
		t.Errorf("vocabulary has %d words", len(g.vocab.words))
	}
}

// BenchmarkDoc reports generation speed, which must stay far above the
// chunking speed it feeds.
func BenchmarkDoc(b *testing.B) {
	g := New(Options{Seed: 1, MeanWords: 1000, CopyShare: 0.1})
	var bytes int64
	start := time.Now()
	i := 0
	for b.Loop() {
		bytes += int64(len(g.Doc(i).Text))
		i++
	}
	b.ReportMetric(float64(bytes)/time.Since(start).Seconds()/1e6, "MB/s")
}

// The realistic archive has what real ones have, in the shares asked for,
// reproducibly: assignment prompts at the top of essays (the same paragraph
// in every essay of a course), stock phrases opening sentences (shared by
// the archive, carried by copies), declarations, and more copiers.
func TestRealistic(t *testing.T) {
	opt := Realistic()
	opt.Seed = 7
	g := New(opt)
	const n = 3000
	essays, prompted, copiers := 0, 0, 0
	promptUse := map[string]int{}
	for i := range n {
		d := g.Doc(i)
		if d.Kind == "essay" {
			essays++
			for _, p := range g.prompts {
				if strings.HasPrefix(d.Text, p) || strings.Contains(d.Text, "\n\n"+p+"\n\n") {
					prompted++
					promptUse[p]++
					break
				}
			}
		}
		if len(d.CopiedFrom) > 0 && !d.NearDup {
			copiers++
		}
		if i < 3 && d.Text != New(opt).Doc(i).Text {
			t.Fatalf("document %d differs between two generators of the same options", i)
		}
	}
	if share := float64(prompted) / float64(essays); share < 0.45 || share > 0.55 {
		t.Errorf("%.3f of the essays carry a prompt, want about %.2f", share, opt.PromptShare)
	}
	if max := slices.Max(slices.Collect(maps.Values(promptUse))); max < 10 {
		t.Errorf("the most used prompt is in %d essays: prompts are not shared", max)
	}
	if share := float64(copiers) / n; share < 0.26 || share > 0.34 {
		t.Errorf("%.3f of the documents copy, want about %.2f", share, opt.CopyShare)
	}
	// Stock phrases: the share of sentences that open with one.
	opened, sentences := 0, 0
	for j := range 200 {
		for k := range 50 {
			s := g.Sentence(j, k)
			sentences++
			for _, p := range g.stock {
				if len(s) > len(p) && strings.EqualFold(s[:len(p)], p) {
					opened++
					break
				}
			}
		}
	}
	if share := float64(opened) / float64(sentences); share < 0.06 || share > 0.11 {
		t.Errorf("%.3f of the sentences open with a stock phrase, want about %.3f", share, opt.StockRate)
	}
}

// Without the realistic options the corpus is the clean one it always was:
// no prompt, no stock phrase.
func TestCleanCorpusHasNoPromptsOrStockPhrases(t *testing.T) {
	g := New(Defaults())
	if g.prompts != nil || g.stock != nil {
		t.Fatal("the default corpus has prompts or stock phrases")
	}
	if strings.Contains(g.Doc(3).Text, "Assignment ") {
		t.Fatal("a default document carries an assignment prompt")
	}
}
