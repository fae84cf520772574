package shortans

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/plagd/plagd/internal/pangen"
)

// Edits are what a grade does to the source sentences it starts from. The
// probabilities are per sentence, the rates (drawn per answer between the
// two bounds) per word.
type Edits struct {
	Drop        float64    // leave a sentence of the excerpt out
	OwnSentence float64    // the answer gets one sentence of the writer's own (per answer)
	Replace     float64    // a sentence is replaced by one of the writer's own
	Split       float64    // a sentence is cut in two at a comma
	Merge       float64    // a sentence is joined to the next
	ClauseSwap  float64    // "A, B." becomes "B, A."
	Swap        float64    // a sentence changes place with the next
	Shuffle     bool       // the sentences are put in a random order
	Synonym     [2]float64 // share of the words the thesaurus knows replaced (pangen.Reword)
	WordEdit    [2]float64 // share of words deleted, replaced, inserted after or swapped (pangen.RandomEdits)
	Quote       float64    // an original answer uses a phrase of the source (up to twice, each with this probability)
}

// GradeEdits are the edits of a copied grade, after Clough and Stevenson's
// instructions to their students: a near copy pastes excerpts with a few
// slips; a light revision keeps the source's structure but changes some
// words and drops and swaps a few sentences; a heavy revision paraphrases,
// changing most words the thesaurus knows, many others, and the sentence
// structure and order. An original answer (None) only borrows, now and
// then, a phrase of five to eight words: the subject's set phrases and
// definitions, worded as the source words them.
func GradeEdits(grade string) Edits {
	switch grade {
	case Cut:
		return Edits{Drop: 0.05, OwnSentence: 0.3, WordEdit: [2]float64{0.01, 0.04}}
	case Light:
		return Edits{Drop: 0.25, OwnSentence: 0.3, Merge: 0.1, Swap: 0.2,
			Synonym: [2]float64{0.3, 0.6}, WordEdit: [2]float64{0.03, 0.08}}
	case Heavy:
		return Edits{Drop: 0.2, OwnSentence: 0.5, Replace: 0.15, Split: 0.3, Merge: 0.3, ClauseSwap: 0.3,
			Shuffle: true, Synonym: [2]float64{0.7, 1.0}, WordEdit: [2]float64{0.15, 0.45}}
	case None:
		return Edits{Quote: 0.5}
	}
	return Edits{}
}

// restructure applies e's sentence and word edits to sents.
func (q *question) restructure(sents []string, e Edits) []string {
	var out []string
	for _, s := range sents {
		switch {
		case q.rng.Float64() < e.Replace:
			out = append(out, q.own(len(strings.Fields(s)))...)
		case q.rng.Float64() < e.Split:
			out = append(out, split(s)...)
		default:
			out = append(out, s)
		}
	}
	sents, out = out, nil
	for i := 0; i < len(sents); i++ {
		if i+1 < len(sents) && q.rng.Float64() < e.Merge {
			joins := []string{", and ", "; ", ", while ", ", so "}
			out = append(out, merge(sents[i], sents[i+1], joins[q.rng.IntN(len(joins))]))
			i++
			continue
		}
		out = append(out, sents[i])
	}
	for i, s := range out {
		if q.rng.Float64() < e.ClauseSwap {
			out[i] = swapClauses(s)
		}
	}
	if e.Shuffle {
		q.rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	} else {
		for i := 0; i+1 < len(out); i++ {
			if q.rng.Float64() < e.Swap {
				out[i], out[i+1] = out[i+1], out[i]
				i++
			}
		}
	}
	syn := e.Synonym[0] + (e.Synonym[1]-e.Synonym[0])*q.rng.Float64()
	edit := e.WordEdit[0] + (e.WordEdit[1]-e.WordEdit[0])*q.rng.Float64()
	for i, s := range out {
		ws := strings.Fields(s)
		if syn > 0 {
			ws = pangen.Reword(q.rng, ws, syn)
		}
		if edit > 0 {
			ws = pangen.RandomEdits(q.rng, ws, q.vocab, edit)
		}
		out[i] = strings.Join(ws, " ")
	}
	return out
}

// clauseCut is the index of the word after the comma nearest the middle
// of ws that leaves at least three words on each side, or -1.
func clauseCut(ws []string) int {
	best := -1
	for i := 3; i+3 <= len(ws); i++ {
		if strings.HasSuffix(ws[i-1], ",") && (best < 0 || abs(i-len(ws)/2) < abs(best-len(ws)/2)) {
			best = i
		}
	}
	return best
}

// split cuts a sentence in two at a comma near its middle ("A, B." →
// "A. B."), or leaves it whole.
func split(s string) []string {
	ws := strings.Fields(s)
	cut := clauseCut(ws)
	if cut < 0 {
		return []string{s}
	}
	first := append([]string(nil), ws[:cut]...)
	first[cut-1] = strings.TrimSuffix(first[cut-1], ",") + "."
	second := append([]string(nil), ws[cut:]...)
	second[0] = upperFirst(second[0])
	return []string{strings.Join(first, " "), strings.Join(second, " ")}
}

// merge joins two sentences into one with join (", and ", "; " ...).
func merge(a, b, join string) string {
	a = strings.TrimRight(a, ".!?")
	ws := strings.Fields(b)
	if len(ws) > 0 {
		ws[0] = lowerFirst(ws[0])
	}
	return a + join + strings.Join(ws, " ")
}

// swapClauses turns "A, B." into "B, a.", or leaves the sentence.
func swapClauses(s string) string {
	ws := strings.Fields(s)
	cut := clauseCut(ws)
	if cut < 0 {
		return s
	}
	end := ws[len(ws)-1]
	stop := end[len(strings.TrimRight(end, ".!?")):]
	a := append([]string(nil), ws[:cut]...)
	a[0] = lowerFirst(a[0])
	a[cut-1] = strings.TrimSuffix(a[cut-1], ",")
	b := append([]string(nil), ws[cut:]...)
	b[0] = upperFirst(b[0])
	b[len(b)-1] = strings.TrimRight(b[len(b)-1], ".!?") + ","
	return strings.Join(b, " ") + " " + strings.Join(a, " ") + stop
}

// lowerFirst lower-cases a sentence's first word unless it looks like a
// name or an acronym (a capital after the first letter) or is "I".
func lowerFirst(w string) string {
	r, n := utf8.DecodeRuneInString(w)
	if w == "I" || strings.IndexFunc(w[n:], unicode.IsUpper) >= 0 {
		return w
	}
	return string(unicode.ToLower(r)) + w[n:]
}

func upperFirst(w string) string {
	r, n := utf8.DecodeRuneInString(w)
	return string(unicode.ToUpper(r)) + w[n:]
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
