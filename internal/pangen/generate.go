package pangen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/plagd/plagd/internal/pan"
)

// Kinds of cases, as the obfuscation attribute of the truth and the
// section folder ("02-none" ...) names them.
const (
	None         = "none"
	Random       = "random"
	Synonym      = "synonym"
	Reorder      = "reorder"
	NoPlagiarism = "no-plagiarism"
)

// Options shape a corpus. Zero fields take the values of Defaults.
type Options struct {
	Seed uint64
	// Cases per kind; NoPlagiarism counts pairs (which hold no case).
	Verbatim, Random, Synonym, Reorder, NoPlagiarism int
	// MinCaseWords and MaxCaseWords bound a case's source length; lengths
	// are log-uniform between them (as many short cases as long ones per
	// doubling of length).
	MinCaseWords, MaxCaseWords int
	// MaxCasesPerPair: a pair holds 1 to this many cases of its kind.
	MaxCasesPerPair int
	// MinOwnWords and MaxOwnWords bound the uncopied text of each document.
	MinOwnWords, MaxOwnWords int
}

// Defaults: about 600 verbatim cases and 150 of each obfuscation, 150
// pairs without plagiarism.
func Defaults() Options {
	return Options{Seed: 1, Verbatim: 600, Random: 150, Synonym: 150, Reorder: 150, NoPlagiarism: 150,
		MinCaseWords: 50, MaxCaseWords: 1500, MaxCasesPerPair: 3, MinOwnWords: 300, MaxOwnWords: 2000}
}

func (o Options) withDefaults() Options {
	d := Defaults()
	set := func(v *int, def int) {
		if *v == 0 {
			*v = def
		}
	}
	set(&o.MinCaseWords, d.MinCaseWords)
	set(&o.MaxCaseWords, d.MaxCaseWords)
	set(&o.MaxCasesPerPair, d.MaxCasesPerPair)
	set(&o.MinOwnWords, d.MinOwnWords)
	set(&o.MaxOwnWords, d.MaxOwnWords)
	return o
}

// Doc is a generated document.
type Doc struct{ Name, Text string }

// Pair is one (suspicious, source) pair to align, in its section, with its
// cases (none in no-plagiarism pairs).
type Pair struct {
	Susp, Src, Section string
	Topic              string
	Cases              []pan.Annotation
}

// Corpus is a generated text-alignment corpus.
type Corpus struct {
	Susp, Src []Doc
	Pairs     []Pair
}

// Section is the folder of kind's pairs.
func Section(kind string) string {
	switch kind {
	case NoPlagiarism:
		return "01-no-plagiarism"
	case None:
		return "02-no-obfuscation"
	case Random:
		return "03-random-obfuscation"
	case Synonym:
		return "04-synonym-obfuscation"
	case Reorder:
		return "05-reorder-obfuscation"
	}
	return kind
}

// Generate builds a corpus from topics (each should hold several thousand
// words: a pair needs its cases and two documents' own text from one
// topic, without repeating a sentence).
func Generate(topics []Topic, opt Options) (*Corpus, error) {
	opt = opt.withDefaults()
	if opt.MinCaseWords > opt.MaxCaseWords || opt.MinOwnWords > opt.MaxOwnWords || opt.MaxCasesPerPair < 1 {
		return nil, fmt.Errorf("pangen: inconsistent options %+v", opt)
	}
	var usable []Topic
	for _, t := range topics {
		if len(t.Sentences) >= 20 {
			usable = append(usable, t)
		}
	}
	if len(usable) == 0 {
		return nil, fmt.Errorf("pangen: no topic has 20 sentences")
	}
	g := &gen{opt: opt, rng: rand.New(rand.NewPCG(opt.Seed, 0x70616e67656e)), topics: usable}
	for _, t := range usable {
		g.vocab = append(g.vocab, TopicWords(t))
	}
	// The pairs of each kind, each with 1..MaxCasesPerPair cases.
	type plan struct {
		kind  string
		cases int
	}
	var plans []plan
	for _, k := range []struct {
		kind string
		n    int
	}{{None, opt.Verbatim}, {Random, opt.Random}, {Synonym, opt.Synonym}, {Reorder, opt.Reorder}} {
		for left := k.n; left > 0; {
			n := min(left, 1+g.rng.IntN(opt.MaxCasesPerPair))
			plans = append(plans, plan{k.kind, n})
			left -= n
		}
	}
	for range opt.NoPlagiarism {
		plans = append(plans, plan{NoPlagiarism, 0})
	}
	g.rng.Shuffle(len(plans), func(i, j int) { plans[i], plans[j] = plans[j], plans[i] })
	for _, p := range plans {
		g.pair(p.kind, p.cases)
	}
	return &g.c, nil
}

type gen struct {
	opt    Options
	rng    *rand.Rand
	topics []Topic
	vocab  [][]string
	c      Corpus
}

// unit is a stretch of a document: own sentences, or a case (case >= 0).
type unit struct {
	text string
	cas  int
}

func (g *gen) logUniform(lo, hi int) int {
	if lo >= hi {
		return lo
	}
	x := math.Log(float64(lo)) + g.rng.Float64()*(math.Log(float64(hi+1))-math.Log(float64(lo)))
	return min(hi, int(math.Exp(x)))
}

func (g *gen) pair(kind string, ncases int) {
	o := g.opt
	lengths := make([]int, ncases)
	need := 0
	for i := range lengths {
		lengths[i] = g.logUniform(o.MinCaseWords, o.MaxCaseWords)
		need += lengths[i]
	}
	ownSrc := o.MinOwnWords + g.rng.IntN(o.MaxOwnWords-o.MinOwnWords+1)
	ownSusp := o.MinOwnWords + g.rng.IntN(o.MaxOwnWords-o.MinOwnWords+1)
	// A topic with room for all of it (with a margin for runs that do not
	// fit); the largest one when none has.
	var fits []int
	best := 0
	for i, t := range g.topics {
		if w := t.Words(); w*2 >= 3*(need+ownSrc+ownSusp) {
			fits = append(fits, i)
		}
		if t.Words() > g.topics[best].Words() {
			best = i
		}
	}
	ti := best
	if len(fits) > 0 {
		ti = fits[g.rng.IntN(len(fits))]
	}
	t := g.topics[ti]
	used := make([]bool, len(t.Sentences))

	// Cases: runs of consecutive unused sentences from random starts.
	srcRuns := make([][]string, ncases)
	for i, n := range lengths {
		srcRuns[i] = g.run(t.Sentences, used, n)
	}
	own := func(words int) []unit {
		var us []unit
		for words > 0 {
			r := g.run(t.Sentences, used, min(words, 40+g.rng.IntN(160)))
			if len(r) == 0 {
				break
			}
			us = append(us, unit{strings.Join(r, " "), -1})
			words -= wordCount(r)
		}
		return us
	}
	srcUnits := own(ownSrc)
	suspUnits := own(ownSusp)
	var caseSrc, caseSusp []unit
	for i, r := range srcRuns {
		if len(r) == 0 {
			continue
		}
		caseSrc = append(caseSrc, unit{strings.Join(r, " "), i})
		caseSusp = append(caseSusp, unit{g.obfuscate(kind, r, g.vocab[ti]), i})
	}
	srcUnits = g.interleave(srcUnits, caseSrc)
	suspUnits = g.interleave(suspUnits, caseSusp)

	susp := fmt.Sprintf("suspicious-document%05d.txt", len(g.c.Susp)+1)
	src := fmt.Sprintf("source-document%05d.txt", len(g.c.Src)+1)
	suspText, suspSpans := assemble(suspUnits)
	srcText, srcSpans := assemble(srcUnits)
	g.c.Susp = append(g.c.Susp, Doc{susp, suspText})
	g.c.Src = append(g.c.Src, Doc{src, srcText})
	p := Pair{Susp: susp, Src: src, Section: Section(kind), Topic: t.Name}
	for i := range srcRuns {
		ts, ok1 := suspSpans[i]
		ss, ok2 := srcSpans[i]
		if !ok1 || !ok2 {
			continue
		}
		p.Cases = append(p.Cases, pan.Annotation{This: susp, TOff: ts[0], TLen: ts[1], Src: src, SOff: ss[0], SLen: ss[1],
			External: true, Obfuscation: kind})
	}
	slices.SortFunc(p.Cases, func(x, y pan.Annotation) int { return x.TOff - y.TOff })
	g.c.Pairs = append(g.c.Pairs, p)
}

// run takes consecutive unused sentences from a random start until they
// hold at least words words (fewer when an used sentence or the end comes
// first, after a few tries), and marks them used.
func (g *gen) run(sents []string, used []bool, words int) []string {
	var best []int
	bestWords := 0
	for try := 0; try < 8 && bestWords < words; try++ {
		i := g.rng.IntN(len(sents))
		var r []int
		n := 0
		for ; i < len(sents) && !used[i] && n < words; i++ {
			r = append(r, i)
			n += len(strings.Fields(sents[i]))
		}
		if n > bestWords {
			best, bestWords = r, n
		}
	}
	out := make([]string, len(best))
	for k, i := range best {
		used[i] = true
		out[k] = sents[i]
	}
	return out
}

// interleave puts the cases between own units at random places, never two
// cases next to each other (an own unit separates them when there is one),
// in random order.
func (g *gen) interleave(own, cases []unit) []unit {
	g.rng.Shuffle(len(cases), func(i, j int) { cases[i], cases[j] = cases[j], cases[i] })
	// Choose distinct gaps among the len(own)+1 gaps between own units.
	gaps := g.rng.Perm(len(own) + 1)
	if len(cases) > len(gaps) {
		gaps = append(gaps, make([]int, len(cases)-len(gaps))...)
	}
	at := gaps[:len(cases)]
	order := make([]int, len(cases))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return at[x] - at[y] })
	var out []unit
	k := 0
	for gi := 0; gi <= len(own); gi++ {
		for k < len(order) && at[order[k]] == gi {
			out = append(out, cases[order[k]])
			k++
		}
		if gi < len(own) {
			out = append(out, own[gi])
		}
	}
	return out
}

// assemble joins units into paragraphs and returns the text and, per case,
// its character offset and length.
func assemble(us []unit) (string, map[int][2]int) {
	var b strings.Builder
	spans := map[int][2]int{}
	chars := 0
	for i, u := range us {
		if i > 0 {
			b.WriteString("\n\n")
			chars += 2
		}
		n := utf8.RuneCountInString(u.text)
		if u.cas >= 0 {
			spans[u.cas] = [2]int{chars, n}
		}
		b.WriteString(u.text)
		chars += n
	}
	b.WriteString("\n")
	return b.String(), spans
}

func wordCount(ss []string) int {
	n := 0
	for _, s := range ss {
		n += len(strings.Fields(s))
	}
	return n
}

// TopicWords are the distinct plain words of a topic, in order of first
// occurrence, lower-cased and without surrounding punctuation: the words
// random edits insert.
func TopicWords(t Topic) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range t.Sentences {
		for _, f := range strings.Fields(s) {
			w := strings.ToLower(strings.Trim(f, `.,;:!?"'()“”‘’`))
			if w != "" && !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	return out
}
