package shortans

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/plagd/plagd/extract"
	"github.com/plagd/plagd/internal/pangen"
	"github.com/plagd/plagd/internal/testseed"
)

// goDocTopics are the English prose of the Go distribution's doc folder
// (the language specification, the memory model, the assembler guide,
// GODEBUG; BSD-licensed, present wherever the tests build): one topic per
// file, files of at least twice minWords words cut into topics of at least
// minWords words (SplitTopics), as plagd-lab shortans reads them.
func goDocTopics(t testing.TB, minWords int) []pangen.Topic {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("go env GOROOT: %v", err)
	}
	root := strings.TrimSpace(string(out))
	files, err := filepath.Glob(filepath.Join(root, "doc", "*"))
	if err != nil || len(files) == 0 {
		t.Skipf("no Go documentation under %s", root)
	}
	seen := map[string]bool{}
	var topics []pangen.Topic
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		text, err := extract.Text(b, f, "", extract.Options{})
		if err != nil {
			continue
		}
		if ss := pangen.Sentences(text, seen); len(ss) > 0 {
			topics = append(topics, pangen.Topic{Name: filepath.Base(f), Sentences: ss})
		}
	}
	return pangen.DropRepeats(SplitTopics(topics, minWords))
}

func TestGenerate(t *testing.T) {
	topics := goDocTopics(t, 2400)
	seed := testseed.Seed(t)
	opt := Options{Seed: seed}
	c, err := Generate(topics, opt)
	if err != nil {
		t.Fatal(err)
	}
	c2, _ := Generate(topics, opt)
	if !reflect.DeepEqual(c, c2) {
		t.Fatalf("seed %d: not deterministic", seed)
	}
	d := Defaults()
	count := map[string]int{}
	topic := map[string]bool{}
	for qi, q := range c.Questions {
		if topic[q.Topic] {
			t.Errorf("seed %d: topic %s used twice", seed, q.Topic)
		}
		topic[q.Topic] = true
		if n := len(strings.Fields(q.Source)); n < d.MinSourceWords || n > d.MaxSourceWords+60 {
			t.Errorf("seed %d: question %d: source of %d words", seed, qi, n)
		}
		src := NGrams(q.Source, 8)
		for _, a := range q.Answers {
			count[a.Grade]++
			if a.Question != qi {
				t.Errorf("seed %d: answer of question %d filed under %d", seed, a.Question, qi)
			}
			n := len(strings.Fields(a.Text))
			if n < d.MinAnswerWords*2/3 || n > d.MaxAnswerWords*3/2 {
				t.Errorf("seed %d: %s answer of %d words:\n%s", seed, a.Grade, n, a.Text)
			}
			// An original shares no 8-word run with the source but the two
			// phrases it may quote (DropRepeats removed repeated
			// sentences; a hyphenated word is two or three words here, so
			// one quoted phrase can hold several 8-grams: seed
			// 1795726438492574773 quotes "such as atomic compare-and-swap,
			// are both read-like and", four of them); a near copy shares
			// many.
			grams := NGrams(a.Text, 8)
			shared := Containment(grams, src)
			if runs := sharedRuns(a.Text, src, 8); a.Grade == None && runs > 2 {
				t.Errorf("seed %d: original answer shares %d runs of 8-grams with the source:\n%s", seed, runs, a.Text)
			}
			if a.Grade == Cut && shared < 0.3 {
				t.Errorf("seed %d: near copy shares only %.2f of its 8-grams with the source:\n%s", seed, shared, a.Text)
			}
		}
	}
	want := map[string]int{Cut: d.Cut, Light: d.Light, Heavy: d.Heavy, None: d.None}
	if !reflect.DeepEqual(count, want) {
		t.Errorf("seed %d: grades %v, want %v", seed, count, want)
	}
}

func TestAUC(t *testing.T) {
	for _, c := range []struct {
		pos, neg []float64
		want     float64
	}{
		{[]float64{3, 4}, []float64{1, 2}, 1},
		{[]float64{1, 2}, []float64{3, 4}, 0},
		{[]float64{1}, []float64{1}, 0.5},
		{[]float64{2, 0}, []float64{1, 1}, 0.5},
		{[]float64{1, 3}, []float64{1, 2}, 0.625}, // (0.5 + 0) + (1 + 1) over 4
		{nil, []float64{1}, 0.5},
	} {
		if got := AUC(c.pos, c.neg); got != c.want {
			t.Errorf("AUC(%v, %v) = %v, want %v", c.pos, c.neg, got, c.want)
		}
	}
}

// TestScoresFloor is the short-answer figure of issue 18 in make test:
// copied answers must rank above the originals by plagd's scores (ROC
// AUC, in process; plagd-lab shortans measures the same on a database).
// The floors are the worst of 20 seeds less a margin.
func TestScoresFloor(t *testing.T) {
	topics := goDocTopics(t, 2400)
	seed := testseed.Seed(t)
	c, err := Generate(topics, Options{Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	scores := Scores(context.Background(), c, ScoreOptions{})
	// Seeds 1-20: similarity and naive5 0.956-0.994 (median 0.972),
	// coverage 0.912-0.964 (0.930), cosine 0.933-0.994 (0.972); seeds
	// 1-150 stay above the floors.
	floors := map[string]float64{Similarity: 0.93, Coverage: 0.85, Cosine: 0.9, Naive5: 0.93}
	for _, n := range ScoreNames {
		f := Measure(c.Answers(), scores[n])
		t.Logf("%-10s AUC %.3f heavy %.3f  means cut %.3f light %.3f heavy %.3f none %.3f", n, f.AUC, f.HeavyAUC,
			f.Mean[Cut], f.Mean[Light], f.Mean[Heavy], f.Mean[None])
		if f.AUC < floors[n] {
			t.Errorf("seed %d: %s separates copied from original answers with AUC %.3f, want at least %.3f", seed, n, f.AUC, floors[n])
		}
	}
}

func TestSplitTopics(t *testing.T) {
	sent := func(n int) string { return strings.TrimSpace(strings.Repeat("w ", n)) }
	long := pangen.Topic{Name: "long", Sentences: []string{sent(10), sent(10), sent(10), sent(10), sent(5)}}
	short := pangen.Topic{Name: "short", Sentences: []string{sent(10)}}
	got := SplitTopics([]pangen.Topic{long, short}, 20)
	var names []string
	var words []int
	for _, tp := range got {
		names, words = append(names, tp.Name), append(words, tp.Words())
	}
	if !reflect.DeepEqual(names, []string{"long#1", "long#2", "short"}) || !reflect.DeepEqual(words, []int{20, 25, 10}) {
		t.Errorf("SplitTopics: %v %v", names, words)
	}
}

// sharedRuns counts the runs of consecutive word n-grams within one
// sentence of text (words as NGrams splits them) that are in src: one run
// per stretch of text the source also has. An n-gram across two sentences
// is the answer's own joint, not the source's (seed 1795726881125088452:
// "… a Unicode code point in the source text. A nil map …" meets the
// specification's "a Unicode code point in the source text a").
func sharedRuns(text string, src map[string]bool, n int) int {
	runs := 0
	for _, sent := range sentenceEnd.Split(text, -1) {
		ws := gramWords(sent)
		in := false
		for i := 0; i+n <= len(ws); i++ {
			hit := src[strings.Join(ws[i:i+n], " ")]
			if hit && !in {
				runs++
			}
			in = hit
		}
	}
	return runs
}

var sentenceEnd = regexp.MustCompile(`[.!?]\s+`)
