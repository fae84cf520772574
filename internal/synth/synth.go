package synth

import (
	"fmt"
	"math"
	"slices"
)

// Doc is one generated document.
type Doc struct {
	ExternalID string
	Title      string
	Kind       string // essay or thesis
	Text       string
	// CopiedFrom lists the earlier documents this one copies from (for a
	// near-duplicate, its original), ascending. Empty for original work.
	CopiedFrom []int
	// NearDup is set when the document is a near-duplicate of CopiedFrom[0].
	NearDup bool
}

// Generator produces the documents of one archive. It is safe for
// concurrent use: it holds only the immutable vocabulary.
type Generator struct {
	opt   Options
	vocab *vocabulary
	scale float64 // document length multiplier reaching opt.MeanWords
	decl  []string
	// stock are the stock phrases (with StockRate), prompts the courses'
	// assignment prompts (with PromptShare).
	stock   []string
	prompts []string
}

// meanSentence is the mean sentence length in words (8..30, triangular).
const meanSentence = 19

// New builds the vocabulary (a few milliseconds for 50k words).
func New(opt Options) *Generator {
	opt = opt.withDefaults()
	g := &Generator{opt: opt, vocab: newVocabulary(opt.Seed, opt.VocabSize, opt.ZipfS), scale: 1}
	natural := (1-opt.ThesisShare)*2000 + opt.ThesisShare*20000
	if opt.MeanWords > 0 {
		g.scale = float64(opt.MeanWords) / natural
	}
	g.decl = make([]string, opt.Faculties)
	for f := range g.decl {
		g.decl[f] = declaration(f)
	}
	if opt.StockRate > 0 {
		g.stock = make([]string, opt.StockPhrases)
		for p := range g.stock {
			r := newRNG(opt.Seed, p, streamPhrase)
			g.stock[p] = g.words(&r, 4+r.intn(5))
		}
	}
	if opt.PromptShare > 0 {
		g.prompts = make([]string, opt.Courses)
		for c := range g.prompts {
			r := newRNG(opt.Seed, c, streamCourse)
			w := &writer{g: g}
			w.buf = fmt.Appendf(w.buf, "Assignment %d.", c+1)
			for k := range 3 + r.intn(4) {
				w.buf = append(w.buf, ' ')
				w.sentence(-1-c, k, 0)
			}
			g.prompts[c] = string(w.buf)
		}
	}
	return g
}

// words draws n words as one lower-case string.
func (g *Generator) words(r *rng, n int) string {
	var b []byte
	for i := range n {
		if i > 0 {
			b = append(b, ' ')
		}
		c := g.vocab.draw(r)
		b = append(b, c.word[:c.n]...)
	}
	return string(b)
}

// Options returns the options in effect (defaults filled in).
func (g *Generator) Options() Options { return g.opt }

// MeanWords is the expected document length in words.
func (g *Generator) MeanWords() float64 {
	o := g.opt
	return ((1-o.ThesisShare)*2000 + o.ThesisShare*20000) * g.scale
}

type role uint8

const (
	original role = iota
	copier
	nearDup
)

// header is what others need to know of a document without generating it:
// how many own sentences it has (the only ones a copier may take).
type header struct {
	words    int
	thesis   bool
	role     role
	own      int     // own sentences: indices 0..own-1 of its sentence streams
	copyFrac float64 // copier: share of its length that is copied
	src      int     // near-duplicate: its original
	template int     // faculty declaration, -1 for none
}

func sentencesFor(words float64) int { return max(1, int(math.Round(words/meanSentence))) }

func (g *Generator) header(i int) header { return g.headerTo(i, true) }

// headerTo computes the header; without full it stops after the role, which
// is all a near-duplicate needs to know of a candidate original (and keeps
// the recursion one level deep).
func (g *Generator) headerTo(i int, full bool) header {
	o := &g.opt
	r := newRNG(o.Seed, i, streamHeader)
	h := header{template: -1, src: -1}
	var w float64
	if h.thesis = r.chance(o.ThesisShare); h.thesis {
		w = 10000 + float64(r.intn(20001))
	} else {
		w = 1000 + float64(r.intn(2001))
	}
	h.words = max(20, int(w*g.scale))
	u := r.float()
	switch {
	case i > 0 && u < o.NearDupShare:
		h.role = nearDup
	case i > 0 && u < o.NearDupShare+o.CopyShare:
		h.role = copier
	}
	if !full {
		return h
	}
	switch h.role {
	case original:
		h.own = sentencesFor(float64(h.words))
	case copier:
		h.copyFrac = 0.05 + 0.45*r.float()
		h.own = sentencesFor(float64(h.words) * (1 - h.copyFrac))
	case nearDup:
		// Its own part is small: a new introduction or conclusion.
		h.own = sentencesFor(float64(h.words) / 20)
		// The original of a near-duplicate is itself original work or a
		// copier, so the near-duplicate is a near-copy of a full text.
		for try := 0; try < 8; try++ {
			h.src = r.intn(i)
			if g.headerTo(h.src, false).role != nearDup {
				break
			}
		}
	}
	if r.chance(o.TemplateShare) {
		h.template = r.intn(o.Faculties)
	}
	return h
}

// passage is a run of another document's own sentences inserted into a copier.
type passage struct {
	at     int // inserted before own sentence at
	src    int
	start  int
	n      int
	edited bool
}

// passages plans a copier's copied passages: 1-3 sources, passages of 3-15
// sentences, about copyFrac of its length in all.
func (g *Generator) passages(i int, h header) []passage {
	r := newRNG(g.opt.Seed, i, streamCopy)
	srcs := make([]int, 1+r.intn(3))
	for k := range srcs {
		srcs[k] = r.intn(i)
	}
	todo := sentencesFor(float64(h.words) * h.copyFrac)
	var ps []passage
	for todo > 0 {
		src := srcs[r.intn(len(srcs))]
		own := g.header(src).own
		n := min(todo, 3+r.intn(13), own)
		ps = append(ps, passage{
			at:     r.intn(h.own + 1),
			src:    src,
			start:  r.intn(own - n + 1),
			n:      n,
			edited: r.chance(g.opt.EditedShare),
		})
		todo -= n
	}
	slices.SortStableFunc(ps, func(a, b passage) int { return a.at - b.at })
	return ps
}

// Doc generates document i (i >= 0).
func (g *Generator) Doc(i int) Doc {
	h := g.header(i)
	d := Doc{ExternalID: fmt.Sprintf("synth-%08d", i), Kind: "essay"}
	if h.thesis {
		d.Kind = "thesis"
	}
	d.Title = g.title(i)
	w := &writer{g: g, layout: newRNG(g.opt.Seed, i, streamLayout), edit: newRNG(g.opt.Seed, i, streamEdit)}
	w.buf = make([]byte, 0, int(float64(h.words)*7.8)+1024)
	if h.template >= 0 {
		w.paragraph(g.decl[h.template])
	}
	if !h.thesis && g.prompts != nil {
		if r := newRNG(g.opt.Seed, i, streamPrompt); r.chance(g.opt.PromptShare) {
			w.paragraph(g.prompts[r.intn(len(g.prompts))])
		}
	}
	switch h.role {
	case original:
		w.sentences(i, 0, h.own, 0)
	case copier:
		ps := g.passages(i, h)
		next := 0
		for _, p := range ps {
			w.sentences(i, next, p.at, 0)
			next = p.at
			rate := 0.0
			if p.edited {
				rate = g.opt.EditRate
			}
			w.sentences(p.src, p.start, p.start+p.n, rate)
			d.CopiedFrom = append(d.CopiedFrom, p.src)
		}
		w.sentences(i, next, h.own, 0)
		slices.Sort(d.CopiedFrom)
		d.CopiedFrom = slices.Compact(d.CopiedFrom)
	case nearDup:
		src := g.header(h.src)
		w.sentences(i, 0, h.own/2, 0)
		w.dropRate = 0.05
		w.sentences(h.src, 0, src.own, g.opt.EditRate/2)
		w.dropRate = 0
		w.sentences(i, h.own/2, h.own, 0)
		d.CopiedFrom, d.NearDup = []int{h.src}, true
	}
	d.Text = string(w.buf)
	return d
}

// Copies is a planted copy for tests and quality checks: document Doc
// contains sentences [Start, Start+N) of document Src.
type Copies struct {
	Doc, Src, Start, N int
	Edited             bool
}

// Planted lists the passages document i copies (nil for original work;
// a near-duplicate reports its whole source).
func (g *Generator) Planted(i int) []Copies {
	h := g.header(i)
	switch h.role {
	case copier:
		var out []Copies
		for _, p := range g.passages(i, h) {
			out = append(out, Copies{Doc: i, Src: p.src, Start: p.start, N: p.n, Edited: p.edited})
		}
		return out
	case nearDup:
		return []Copies{{Doc: i, Src: h.src, Start: 0, N: g.header(h.src).own, Edited: true}}
	}
	return nil
}

// Sentence returns own sentence k of document j as it appears (unedited)
// in j's text, so tests can look for planted copies.
func (g *Generator) Sentence(j, k int) string {
	w := &writer{g: g}
	w.sentence(j, k, 0)
	return string(w.buf)
}

func (g *Generator) title(i int) string {
	r := newRNG(g.opt.Seed, i, streamTitle)
	w := &writer{g: g}
	w.buf = append(w.buf, "On "...)
	for k := range 3 + r.intn(4) {
		if k > 0 {
			w.buf = append(w.buf, ' ')
		}
		// Content words only: ranks past the function words.
		rank := len(functionWords) + r.intn(min(5000, len(g.vocab.words)-len(functionWords)))
		w.buf = append(w.buf, g.vocab.words[rank]...)
	}
	return string(w.buf)
}

// declaration is faculty f's template paragraph, identical in every
// document that carries it.
func declaration(f int) string {
	faculties := []string{"Arts", "Science", "Law", "Medicine", "Economics", "Informatics", "Education", "Theology"}
	name := faculties[f%len(faculties)]
	if f >= len(faculties) {
		name = fmt.Sprintf("%s %d", name, f/len(faculties)+1)
	}
	return "Declaration. I hereby declare that I have written this thesis independently, " +
		"under the supervision of my advisor, and that I have used no sources other than " +
		"those listed in the bibliography. I agree that this thesis may be made available " +
		"to the public in the library of the Faculty of " + name + " and checked for " +
		"plagiarism by the university's system, and I confirm that the printed and the " +
		"electronic versions of this work are identical."
}
