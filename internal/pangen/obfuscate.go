package pangen

import (
	"math/rand/v2"
	"strings"
	"unicode"
	"unicode/utf8"
)

// obfuscate turns a case's source sentences into its suspicious text.
func (g *gen) obfuscate(kind string, sents []string, vocab []string) string {
	switch kind {
	case Random:
		return g.randomEdits(strings.Fields(strings.Join(sents, " ")), vocab)
	case Synonym:
		return g.synonyms(strings.Fields(strings.Join(sents, " ")))
	case Reorder:
		return g.reorder(sents)
	}
	return strings.Join(sents, " ")
}

// randomEdits applies PAN's random obfuscation with a rate drawn per case
// from 10-30 % (RandomEdits).
func (g *gen) randomEdits(words, vocab []string) string {
	rate := 0.1 + 0.2*g.rng.Float64()
	return strings.Join(RandomEdits(g.rng, words, vocab, rate), " ")
}

// RandomEdits applies PAN's random obfuscation to words: each word, with
// probability rate, is deleted, replaced by a word of vocab, followed by an
// inserted word of vocab, or swapped with its successor. It returns the
// words unchanged when every one was deleted or vocab is empty.
func RandomEdits(rng *rand.Rand, words, vocab []string, rate float64) []string {
	out := make([]string, 0, len(words)+len(words)/4)
	for i := 0; i < len(words); i++ {
		w := words[i]
		if rng.Float64() >= rate || len(vocab) == 0 {
			out = append(out, w)
			continue
		}
		switch rng.IntN(4) {
		case 0: // delete
		case 1:
			out = append(out, KeepShape(w, vocab[rng.IntN(len(vocab))]))
		case 2:
			out = append(out, w, vocab[rng.IntN(len(vocab))])
		case 3:
			if i+1 < len(words) {
				out = append(out, words[i+1], w)
				i++
			} else {
				out = append(out, w)
			}
		}
	}
	if len(out) == 0 {
		return words
	}
	return out
}

// synonyms replaces, with a probability drawn per case from 60-100 %, each
// word the thesaurus knows by one of its synonyms (Reword).
func (g *gen) synonyms(words []string) string {
	rate := 0.6 + 0.4*g.rng.Float64()
	return strings.Join(Reword(g.rng, words, rate), " ")
}

// Reword replaces in place, with probability rate, each word the thesaurus
// knows by one of its synonyms (KeepShape keeps its capital and
// punctuation), and returns words.
func Reword(rng *rand.Rand, words []string, rate float64) []string {
	for i, w := range words {
		core := strings.ToLower(strings.Trim(w, `.,;:!?"'()“”‘’`))
		syn := thesaurus()[core]
		if len(syn) == 0 || rng.Float64() >= rate {
			continue
		}
		words[i] = KeepShape(w, syn[rng.IntN(len(syn))])
	}
	return words
}

// reorder shuffles the case's sentences until their order differs (a
// one-sentence case swaps its halves at a comma, else in the middle).
func (g *gen) reorder(sents []string) string {
	if len(sents) == 1 {
		ws := strings.Fields(sents[0])
		cut := len(ws) / 2
		for i, w := range ws[1 : len(ws)-1] {
			if strings.HasSuffix(w, ",") {
				cut = i + 2
				break
			}
		}
		return strings.Join(append(append([]string{}, ws[cut:]...), ws[:cut]...), " ")
	}
	out := append([]string(nil), sents...)
	for try := 0; try < 5; try++ {
		g.rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		if out[0] != sents[0] || len(sents) == 2 {
			break
		}
	}
	if len(sents) == 2 {
		out[0], out[1] = sents[1], sents[0]
	}
	return strings.Join(out, " ")
}

// KeepShape gives repl the leading capital and the surrounding punctuation
// of w: a word replaced inside a sentence keeps the sentence's shape.
func KeepShape(w, repl string) string {
	lead := len(w) - len(strings.TrimLeft(w, `"'(“‘`))
	trail := len(strings.TrimRight(w, `.,;:!?"')”’`))
	if trail < lead {
		trail = lead
	}
	core := w[lead:trail]
	if r, _ := utf8.DecodeRuneInString(core); unicode.IsUpper(r) {
		r2, n := utf8.DecodeRuneInString(repl)
		repl = string(unicode.ToUpper(r2)) + repl[n:]
	}
	return w[:lead] + repl + w[trail:]
}
