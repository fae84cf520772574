package shortans

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/plagd/plagd/internal/pangen"
)

// Grades of an answer, as Clough and Stevenson name them (near copy, light
// revision, heavy revision, non-plagiarism).
const (
	Cut   = "cut"
	Light = "light"
	Heavy = "heavy"
	None  = "none"
)

// Grades lists the grades, copied ones first.
var Grades = []string{Cut, Light, Heavy, None}

// Copied reports whether grade is one of the copied grades.
func Copied(grade string) bool { return grade == Cut || grade == Light || grade == Heavy }

// Options shape a corpus. Zero fields take the values of Defaults (the
// four answer counts only when all four are zero).
type Options struct {
	Seed      uint64
	Questions int
	// Answers per grade over all questions, dealt to the questions in turn.
	Cut, Light, Heavy, None int
	// Word bounds of a source passage and of an answer (uniform between).
	MinSourceWords, MaxSourceWords int
	MinAnswerWords, MaxAnswerWords int
}

// Defaults is the original corpus's shape: 5 questions, 19 answers of each
// copied grade and 38 original ones (95), sources of 300-700 words and
// answers of 200-300.
func Defaults() Options {
	return Options{Seed: 1, Questions: 5, Cut: 19, Light: 19, Heavy: 19, None: 38,
		MinSourceWords: 300, MaxSourceWords: 700, MinAnswerWords: 200, MaxAnswerWords: 300}
}

func (o Options) withDefaults() Options {
	d := Defaults()
	set := func(v *int, def int) {
		if *v == 0 {
			*v = def
		}
	}
	set(&o.Questions, d.Questions)
	if o.Cut == 0 && o.Light == 0 && o.Heavy == 0 && o.None == 0 {
		o.Cut, o.Light, o.Heavy, o.None = d.Cut, d.Light, d.Heavy, d.None
	}
	set(&o.MinSourceWords, d.MinSourceWords)
	set(&o.MaxSourceWords, d.MaxSourceWords)
	set(&o.MinAnswerWords, d.MinAnswerWords)
	set(&o.MaxAnswerWords, d.MaxAnswerWords)
	return o
}

// Answer is one student's answer to a question.
type Answer struct {
	Question int // index in Corpus.Questions
	Grade    string
	Text     string
}

// Question is a question's source passage and its answers.
type Question struct {
	Topic   string
	Source  string
	Answers []Answer
}

// Corpus is a generated short-answer corpus.
type Corpus struct {
	Questions []Question
}

// Answers lists every answer, question by question.
func (c *Corpus) Answers() []Answer {
	var out []Answer
	for _, q := range c.Questions {
		out = append(out, q.Answers...)
	}
	return out
}

// Generate builds a corpus from topics, one topic per question (chosen at
// random among those with room for the source and the original answers:
// at least MaxSourceWords + 3·MaxAnswerWords words).
func Generate(topics []pangen.Topic, opt Options) (*Corpus, error) {
	opt = opt.withDefaults()
	if opt.MinSourceWords > opt.MaxSourceWords || opt.MinAnswerWords > opt.MaxAnswerWords || opt.Questions < 1 ||
		opt.Cut < 0 || opt.Light < 0 || opt.Heavy < 0 || opt.None < 0 {
		return nil, fmt.Errorf("shortans: inconsistent options %+v", opt)
	}
	var usable []pangen.Topic
	for _, t := range topics {
		if t.Words() >= opt.MaxSourceWords+3*opt.MaxAnswerWords {
			usable = append(usable, t)
		}
	}
	if len(usable) < opt.Questions {
		return nil, fmt.Errorf("shortans: %d questions need as many topics of %d words, have %d",
			opt.Questions, opt.MaxSourceWords+3*opt.MaxAnswerWords, len(usable))
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x73686f7274616e73))
	pick := rng.Perm(len(usable))[:opt.Questions]
	c := &Corpus{Questions: make([]Question, opt.Questions)}
	qs := make([]*question, opt.Questions)
	for i, ti := range pick {
		qs[i] = newQuestion(rng, usable[ti], opt)
		c.Questions[i] = Question{Topic: usable[ti].Name, Source: strings.Join(qs[i].source(), " ")}
	}
	next := 0
	for _, g := range []struct {
		grade string
		n     int
	}{{Cut, opt.Cut}, {Light, opt.Light}, {Heavy, opt.Heavy}, {None, opt.None}} {
		for range g.n {
			qi := next % opt.Questions
			next++
			words := opt.MinAnswerWords + rng.IntN(opt.MaxAnswerWords-opt.MinAnswerWords+1)
			text := qs[qi].answer(g.grade, words)
			c.Questions[qi].Answers = append(c.Questions[qi].Answers, Answer{Question: qi, Grade: g.grade, Text: text})
		}
	}
	return c, nil
}

// question is a question being generated: its topic, the source's
// sentences (a run [lo, hi) of the topic's), and which of the other
// sentences original answers have used.
type question struct {
	rng    *rand.Rand
	t      pangen.Topic
	vocab  []string
	lo, hi int
	used   []bool
	// srcGrams are the source's word 8-grams: a sentence of the topic
	// outside the source that repeats one (prose repeats itself: the Go
	// specification describes channels in the same words twice) is never
	// an answer's own writing.
	srcGrams map[string]bool
}

func newQuestion(rng *rand.Rand, t pangen.Topic, opt Options) *question {
	q := &question{rng: rng, t: t, vocab: pangen.TopicWords(t), used: make([]bool, len(t.Sentences))}
	want := opt.MinSourceWords + rng.IntN(opt.MaxSourceWords-opt.MinSourceWords+1)
	ss := t.Sentences
	q.lo = rng.IntN(len(ss))
	q.hi = q.lo
	words := 0
	for words < want && q.hi < len(ss) {
		words += len(strings.Fields(ss[q.hi]))
		q.hi++
	}
	for words < want && q.lo > 0 { // the topic's end came first: extend backwards
		q.lo--
		words += len(strings.Fields(ss[q.lo]))
	}
	for i := q.lo; i < q.hi; i++ {
		q.used[i] = true
	}
	q.srcGrams = NGrams(strings.Join(q.source(), " "), 8)
	return q
}

// repeatsSource reports whether sentence i shares a word 8-gram with the
// source.
func (q *question) repeatsSource(i int) bool {
	return Containment(NGrams(q.t.Sentences[i], 8), q.srcGrams) > 0
}

func (q *question) source() []string { return q.t.Sentences[q.lo:q.hi] }

// own returns about words words of the topic's prose outside the source,
// as runs of consecutive sentences from random starts, preferring
// sentences no other answer used; when every sentence has been used, used
// ones are taken again (two originals then share a sentence, never one
// with the source, nor a sentence repeating the source's words).
func (q *question) own(words int) []string {
	var out []string
	for try := 0; words > 0 && try < 64; try++ {
		i := q.rng.IntN(len(q.t.Sentences))
		fresh := try < 48
		n := 0
		for ; i < len(q.t.Sentences) && words > 0 && n < 4; i++ {
			if i >= q.lo && i < q.hi || fresh && q.used[i] || q.repeatsSource(i) {
				break
			}
			out = append(out, q.t.Sentences[i])
			q.used[i] = true
			words -= len(strings.Fields(q.t.Sentences[i]))
			n++
		}
	}
	return out
}

// excerpt returns about words words of the source as one to three runs of
// consecutive sentences, in the source's order.
func (q *question) excerpt(words int) []string {
	src := q.source()
	runs := 1 + q.rng.IntN(3)
	take := make([]bool, len(src))
	got := 0
	for r := 0; r < runs*4 && got < words; r++ {
		i := q.rng.IntN(len(src))
		for ; i < len(src) && got < words && got < (r%runs+1)*words/runs; i++ {
			if !take[i] {
				take[i] = true
				got += len(strings.Fields(src[i]))
			}
		}
	}
	for i := 0; got < words && i < len(src); i++ { // a short source: take what is left
		if !take[i] {
			take[i] = true
			got += len(strings.Fields(src[i]))
		}
	}
	var out []string
	for i, s := range src {
		if take[i] {
			out = append(out, s)
		}
	}
	return out
}

// answer writes an answer of about words words of the given grade.
func (q *question) answer(grade string, words int) string {
	e := GradeEdits(grade)
	if grade == None {
		sents := q.own(words)
		for k := 0; k < 2 && q.rng.Float64() < e.Quote; k++ {
			q.quote(sents)
		}
		return strings.Join(sents, " ")
	}
	// Revisions drop sentences: draw more of the source than the answer
	// keeps.
	sents := q.excerpt(int(float64(words) * (1 + e.Drop)))
	sents = q.dropSentences(sents, e.Drop, words)
	var own []string
	if q.rng.Float64() < e.OwnSentence {
		own = q.own(15 + q.rng.IntN(25))
	}
	sents = firstWords(sents, words-wordCount(own))
	if len(own) > 0 {
		if q.rng.IntN(2) == 0 {
			sents = append(own, sents...)
		} else {
			sents = append(sents, own...)
		}
	}
	// Rewording lengthens a little (merges, inserted words, own sentences
	// longer than the ones they replace): cut back to the length.
	return strings.Join(firstWords(q.restructure(sents, e), words), " ")
}

// firstWords keeps the first sentences of sents up to the one that
// brings their words to n (at least one sentence).
func firstWords(sents []string, n int) []string {
	got := 0
	for i, s := range sents {
		if got += len(strings.Fields(s)); got >= n {
			return sents[:i+1]
		}
	}
	return sents
}

func wordCount(sents []string) int {
	n := 0
	for _, s := range sents {
		n += len(strings.Fields(s))
	}
	return n
}

// dropSentences leaves out each sentence with probability p while the
// rest keeps at least words words.
func (q *question) dropSentences(sents []string, p float64, words int) []string {
	left := wordCount(sents)
	var out []string
	for _, s := range sents {
		n := len(strings.Fields(s))
		if left-n >= words && q.rng.Float64() < p {
			left -= n
			continue
		}
		out = append(out, s)
	}
	return out
}

// quote puts a phrase of five to eight words of the source into one of
// sents at a word boundary: an original answer uses the subject's set
// phrases and definitions as the source words them.
func (q *question) quote(sents []string) {
	src := q.source()
	ws := strings.Fields(strings.TrimRight(src[q.rng.IntN(len(src))], ".!?"))
	n := min(len(ws), 5+q.rng.IntN(4))
	at := q.rng.IntN(len(ws) - n + 1)
	phrase := append([]string(nil), ws[at:at+n]...)
	phrase[0] = lowerFirst(phrase[0])
	si := q.rng.IntN(len(sents))
	into := strings.Fields(sents[si])
	k := 1 + q.rng.IntN(max(1, len(into)-1))
	into = append(into[:k], append(phrase, into[k:]...)...)
	sents[si] = strings.Join(into, " ")
}
