package passage

import (
	"cmp"
	"slices"
	"strings"
)

// Sentence seeds (step 1 of Align, for reworded copies). A copy whose
// words were replaced by synonyms, or rewritten by hand, keeps few runs of
// two identical words, but its sentences still follow the source's one by
// one and keep many of their content words, in another form or order.
// Sentence pairs are therefore a second source of seeds, as in M.
// Sanchez-Perez, G. Sidorov and A. Gelbukh, "A Winning Approach to Text
// Alignment for Text Reuse Detection at PAN 2014": two sentences match
// when their content words (stop words dropped, the rest stemmed:
// Doc.SetTerms, which the caller gives, since the language is its business) overlap
// with a Dice coefficient of at least Options.SentenceDice and in at least
// minSentenceShared terms. Every term a matching pair shares then seeds, at
// its first occurrence in each sentence, like a matching window would.
//
// Only pairs that lie in a run seed (inRuns): one matching pair of
// sentences alone is as often a chance between two texts on one subject.
// The seeds then go through the same support, clustering and verification
// as the windows'.

// minSentenceShared is the fewest content terms a sentence pair shares to
// match: two are a name and a verb, which chance gives texts on one subject.
const minSentenceShared = 3

// maxSentenceWords cuts a run of words without sentence punctuation (a
// list, a table, text extracted without stops) into pieces of this many:
// a "sentence" of hundreds of words shares enough terms with anything.
const maxSentenceWords = 50

// maxTermSentences: a term in more than this share of the sentences of a
// or of b (a name the whole text is about) does not count, neither in a
// pair's overlap nor in its sizes: it would make every pair of sentences
// a candidate.
const maxTermSentences = 0.02

// sentence is a run of words [lo, hi) of a Doc and its distinct terms.
type sentence struct {
	lo, hi int32
	terms  []termAt // sorted by term
}

// termAt is a term and the first word of the sentence that has it, and
// in how many of the Doc's sentences the term is.
type termAt struct {
	term uint64
	word int32
	df   int32
}

// SetTerms gives each word of d its content term for sentence seeds
// (Options.SentenceDice): terms[i], a hash of word i's stem, 0 for a stop
// word; len(terms) must be len(d.Words), or the Doc gets no sentences. It
// splits d into sentences and indexes them by term at once, keeping only
// each sentence's distinct terms (terms is not retained). Call it before
// the Doc's first Align, and not concurrently with one.
func (d *Doc) SetTerms(terms []uint64) {
	d.sents, d.termSents = nil, termSents{}
	if len(terms) != len(d.Words) || len(d.Words) == 0 {
		return
	}
	// Every sentence's terms lie in one array, each sentence's sorted by
	// term with its first occurrence kept (a stable sort, then compact).
	all := make([]termAt, 0, len(d.Words))
	lo := 0
	flush := func(hi int) {
		if hi <= lo {
			return
		}
		from := len(all)
		for i := lo; i < hi; i++ {
			if t := terms[i]; t != 0 {
				all = append(all, termAt{term: t, word: int32(i)})
			}
		}
		ts := all[from:]
		slices.SortStableFunc(ts, func(x, y termAt) int { return cmp.Compare(x.term, y.term) })
		ts = slices.CompactFunc(ts, func(x, y termAt) bool { return x.term == y.term })
		all = all[:from+len(ts)]
		d.sents = append(d.sents, sentence{lo: int32(lo), hi: int32(hi), terms: ts[:len(ts):len(ts)]})
		lo = hi
	}
	// A new sentence starts after a word followed by ., !, ? or a
	// paragraph break, and after maxSentenceWords words.
	for i := 1; i < len(d.Words); i++ {
		between := d.Text[d.Words[i-1].End:d.Words[i].Start]
		if i-lo >= maxSentenceWords || strings.ContainsAny(between, ".!?。！？") || strings.Contains(between, "\n\n") {
			flush(i)
		}
	}
	flush(len(d.Words))
	if len(all) < cap(all)/2 { // stop words left much of it unused
		all = slices.Clone(all)
		at := 0
		for i := range d.sents {
			n := len(d.sents[i].terms)
			d.sents[i].terms = all[at : at+n : at+n]
			at += n
		}
	}
	d.sents = slices.Clip(d.sents)
	d.termSents.build(d.sents, len(all))
}

// sentences returns d's sentences (SetTerms), with their terms.
func (d *Doc) sentences() []sentence { return d.sents }

// sentenceSizes returns the size of a sentence of a in a pair with one of
// b: its terms in at most limA of a's sentences and at most limB of b's.
// Each is found when first asked for. The terms common in b are few (each
// is in more than limB of b's sentences), so they are counted per sentence
// of a up front instead of looking every term of a up in b.
func sentenceSizes(a, b *Doc, limA, limB int32) func(i int32) int32 {
	sa := a.sentences()
	sizeA := make([]int32, len(sa))
	for i := range sizeA {
		sizeA[i] = -1
	}
	commonInB := make([]int32, len(sa))
	b.termSents.over(limB, func(term uint64) {
		if ps := a.termSents.lookup(term); int32(len(ps)) <= limA {
			for _, i := range ps {
				commonInB[i]++
			}
		}
	})
	return func(i int32) int32 {
		if sizeA[i] < 0 {
			n := -commonInB[i]
			for _, x := range sa[i].terms {
				if x.df <= limA {
					n++
				}
			}
			sizeA[i] = n
		}
		return sizeA[i]
	}
}

// sentenceSeeds returns the seeds of the sentence pairs of a and b that
// match (see above): one per shared term, at its first word in each
// sentence (windowAt).
func sentenceSeeds(a, b *Doc, dice float64) []seed {
	sa, sb := a.sentences(), b.sentences()
	if len(sa) == 0 || len(sb) == 0 {
		return nil
	}
	limA := int32(max(4, int(maxTermSentences*float64(len(sa)))))
	limB := int32(max(4, int(maxTermSentences*float64(len(sb)))))
	// The terms that count: those common in neither text count neither in
	// a pair's overlap nor in its sizes.
	sizeOfA := sentenceSizes(a, b, limA, limB)
	shared := make([]int32, len(sa))
	var touched []int32
	var pairs []sentencePair
	for j, t := range sb {
		touched = touched[:0]
		sizeB := int32(0)
		for _, x := range t.terms {
			if x.df > limB {
				continue
			}
			ps := a.termSents.lookup(x.term)
			if int32(len(ps)) > limA {
				continue
			}
			sizeB++
			for _, i := range ps {
				if shared[i] == 0 {
					touched = append(touched, i)
				}
				shared[i]++
			}
		}
		for _, i := range touched {
			n := int(shared[i])
			shared[i] = 0
			if n < 2 {
				continue
			}
			size := float64(sizeOfA(i) + sizeB)
			switch {
			case n >= minSentenceShared && float64(2*n) >= dice*size:
				pairs = append(pairs, sentencePair{i, int32(j), true})
			case float64(2*n) >= weakDice*dice*size:
				pairs = append(pairs, sentencePair{i, int32(j), false})
			}
		}
	}
	n := int32(a.window())
	var out []seed
	for _, p := range inRuns(pairs) {
		s, t := sa[p.a], sb[p.b]
		// Merge the two sorted term lists: a seed per shared term.
		for x, y := 0, 0; x < len(s.terms) && y < len(t.terms); {
			switch u, v := s.terms[x], t.terms[y]; {
			case u.term < v.term:
				x++
			case u.term > v.term:
				y++
			default:
				if u.df <= limA && v.df <= limB {
					out = append(out, seed{A: windowAt(u.word, s, n, len(a.Keys)), B: windowAt(v.word, t, n, len(b.Keys))})
				}
				x++
				y++
			}
		}
	}
	return out
}

// sentencePair is a pair of sentences that share terms: sentence a of the
// first text, b of the second; strong when it matches on its own
// (Options.SentenceDice, minSentenceShared), weak when it shares two
// terms at weakDice times that coefficient.
type sentencePair struct {
	a, b   int32
	strong bool
}

// weakDice scales Options.SentenceDice for weak pairs: two shared terms
// at half the coefficient, as a sentence keeps after most of its words
// were replaced.
const weakDice = 0.5

// minRun is the fewest pairs on one exact diagonal, each at most
// runSentences after the last, that count whatever their strength.
const minRun = 3

// runSentences is how far apart, in sentences of each text, two pairs on
// one exact diagonal may lie and still continue one run.
const runSentences = 2

// strongRunA and strongRunB are how far apart, in sentences of a and of b,
// two strong pairs may lie and still be neighbours. A summary in a of a
// passage of b keeps a sentence here and there of b: its next strong pair
// lies further on in b than in a. Measured on pan-id and the English
// corpus (docs/QUALITY.md): 2 and 2 found 0.684 of the simulated cases'
// text, 3 and 4 0.700 with the English corpus's precision 0.955 → 0.952;
// 4 and 8 0.710 at 0.950.
const (
	strongRunA = 3
	strongRunB = 4
)

// inRuns keeps the pairs that lie in a run: a strong pair next to another
// strong one (at most strongRunA sentences after or before it in a and
// strongRunB in b), and any pair in a run of minRun on one exact diagonal
// (the same offset b-a, each at most runSentences after the last). A copy, however
// reworded, follows its source sentence after sentence, and a reworded
// copy that kept the source's sentences keeps their offset too; two texts
// on one subject have sentences that share terms here and there, rarely
// two strong pairs in a row or three on one diagonal.
//
// Tried and not kept (docs/QUALITY.md): weak pairs in runs of three on
// nearly one diagonal (each pair at most runSentences on in both texts,
// not on the same offset), or between two strong pairs. They found more
// of pan-id's reworded copies, and as many sentences of the writer's own
// on the subject of an English source.
func inRuns(pairs []sentencePair) []sentencePair {
	slices.SortFunc(pairs, func(x, y sentencePair) int { return cmp.Or(cmp.Compare(x.a, y.a), cmp.Compare(x.b, y.b)) })
	follows := func(q, p sentencePair) bool { // p continues a run after q
		da, db := p.a-q.a, p.b-q.b
		return da > 0 && da <= strongRunA && db > 0 && db <= strongRunB
	}
	near := make([]bool, len(pairs))
	for i, p := range pairs {
		for j := i - 1; j >= 0 && p.a-pairs[j].a <= strongRunA; j-- {
			if pairs[j].strong && p.strong && follows(pairs[j], p) {
				near[i], near[j] = true, true
			}
		}
	}
	// Runs on one exact diagonal: pairs by offset, then by a.
	idx := make([]int, len(pairs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(x, y int) int {
		p, q := pairs[x], pairs[y]
		return cmp.Or(cmp.Compare(p.b-p.a, q.b-q.a), cmp.Compare(p.a, q.a))
	})
	for lo := 0; lo < len(idx); {
		hi := lo + 1
		for hi < len(idx) {
			p, q := pairs[idx[hi-1]], pairs[idx[hi]]
			if q.b-q.a != p.b-p.a || q.a-p.a > runSentences {
				break
			}
			hi++
		}
		if hi-lo >= minRun {
			for _, k := range idx[lo:hi] {
				near[k] = true
			}
		}
		lo = hi
	}
	var out []sentencePair
	for i, p := range pairs {
		if near[i] {
			out = append(out, p)
		}
	}
	return out
}

// windowAt is the window a sentence seed at word w of sentence s stands
// for: the one starting at w, moved back so that it ends inside s where s
// is long enough (a seed claims its window's words as matched, and the
// next sentence's are not), and never past the text's last window.
func windowAt(w int32, s sentence, n int32, windows int) int32 {
	w = max(s.lo, min(w, s.hi-n))
	return min(w, int32(windows-1))
}

// addSeeds returns the union of two seed lists, sorted by A, then B.
func addSeeds(seeds, more []seed) []seed {
	if len(more) == 0 {
		return seeds
	}
	seeds = append(seeds, more...)
	slices.SortFunc(seeds, cmpByA)
	return slices.Compact(seeds)
}
