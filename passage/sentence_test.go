package passage

import (
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/plagd/plagd/invindex"
)

// stopWords for the tests' crude analyser: terms are the lower-cased words
// that are not among them (no stemming; the caller's business in real use).
var stopWords = map[string]bool{"the": true, "a": true, "of": true, "and": true, "in": true, "to": true, "it": true,
	"was": true, "were": true, "on": true, "by": true, "for": true, "with": true, "that": true, "its": true, "their": true}

// termDoc is NewDoc with Terms from the test analyser.
func termDoc(tok *invindex.Tokenizer, text string) *Doc {
	d := NewDoc(tok, text)
	terms := make([]uint64, len(d.Words))
	for i, w := range d.Words {
		word := strings.ToLower(text[w.Start:w.End])
		if stopWords[word] {
			continue
		}
		h := fnv.New64a()
		h.Write([]byte(word))
		terms[i] = h.Sum64() | 1
	}
	d.SetTerms(terms)
	return d
}

// Source sentences and their rewording: most words replaced by synonyms
// or dropped, every other pair of neighbouring words broken up, so that
// the few remaining two-word windows cannot make a passage on their own;
// each sentence keeps four of its content words.
var (
	sourceSentences = []string{
		"The ancient harbour town traded salt, timber and wool with merchants from distant northern ports.",
		"Heavy storms flooded the lower harbour every winter and destroyed many wooden warehouses near the quay.",
		"The council therefore built a stone breakwater, financed by a special tax on imported wine barrels.",
		"Within ten years the breakwater doubled the number of ships that could anchor safely during storms.",
		"Prosperous merchants then erected grand stone houses along the quay, many of which still stand today.",
	}
	rewordedSentences = []string{
		"This old harbour settlement sold salt plus timber, also wool, to traders who came from far northern cities.",
		"Every winter violent storms drowned its low harbour, wrecking numerous warehouses built of wood by the quay.",
		"So the town leaders raised one breakwater from stone, paid through an extra levy upon foreign wine barrels.",
		"A decade later this breakwater had twice as many ships able to anchor without danger whenever storms came.",
		"Wealthy merchants afterwards put up splendid stone houses beside the quay; several remain standing now.",
	}
	ownText = "Our study begins elsewhere, with questions of method, archives, and the reading of tax rolls, " +
		"which occupy the first chapter at some length before anything else is said about towns or trade."
)

// TestSentenceSeeds_FindRewordedCopy: the reworded copy shares too few
// two-word windows for a passage, but its sentences follow the source's
// one by one with four content words each; sentence seeds find it, and
// the passage ends where the copy does.
func TestSentenceSeeds_FindRewordedCopy(t *testing.T) {
	p := invindex.DefaultParams()
	p.WindowWords = 2
	tok := invindex.NewTokenizer(p)
	copied := strings.Join(rewordedSentences, " ")
	a := termDoc(tok, ownText+"\n\n"+copied+"\n\n"+ownText)
	b := termDoc(tok, strings.Join(sourceSentences, " "))
	opt := Options{MaxGapWords: 40, MergeGapWords: 120, MinWords: 20, MinShared: 6}
	if ps := Align(a, b, opt); len(ps) != 0 {
		t.Fatalf("windows alone found %d passages; the rewording is too light for this test", len(ps))
	}
	opt.SentenceDice = 0.4
	ps := Align(a, b, opt)
	if len(ps) != 1 {
		t.Fatalf("with sentence seeds: %d passages, want 1: %+v", len(ps), ps)
	}
	start := strings.Index(a.Text, copied)
	got := a.Text[ps[0].AStart:ps[0].AEnd]
	if ps[0].AStart < start || ps[0].AEnd > start+len(copied) {
		t.Errorf("passage %q reaches outside the copy", got)
	}
	if len(got) < len(copied)*3/4 {
		t.Errorf("passage covers %d of the copy's %d bytes: %q", len(got), len(copied), got)
	}
	// The same copy as common text (a reworded template): its windows
	// seed nothing, nor do its sentences.
	opt.SentenceSuppress = func(uint64) bool { return true }
	if ps := Align(a, b, opt); len(ps) != 0 {
		t.Errorf("sentence seeds in suppressed text gave %d passages", len(ps))
	}
}

// TestSentenceSeeds_ScatteredPairsSeedNothing: the same sentences, far
// apart and out of order in the other text, as two texts on one subject
// share a sentence's terms here and there: no pair has another on its
// diagonal, so nothing seeds.
func TestSentenceSeeds_ScatteredPairsSeedNothing(t *testing.T) {
	p := invindex.DefaultParams()
	p.WindowWords = 2
	tok := invindex.NewTokenizer(p)
	var scattered []string
	for i := len(rewordedSentences) - 1; i >= 0; i -= 2 {
		scattered = append(scattered, rewordedSentences[i], ownText, ownText)
	}
	a := termDoc(tok, strings.Join(scattered, " "))
	b := termDoc(tok, strings.Join(sourceSentences, " "))
	if s := sentenceSeeds(a, b, 0.4); len(s) != 0 {
		t.Errorf("%d sentence seeds from scattered sentences, want 0", len(s))
	}
	// The control: in order, the same sentences do seed.
	a = termDoc(tok, strings.Join(rewordedSentences, " "))
	if s := sentenceSeeds(a, b, 0.4); len(s) < 3*minSentenceShared {
		t.Errorf("%d sentence seeds from the copy in order, want at least %d (three matching pairs)", len(s), 3*minSentenceShared)
	}
}

// TestSentenceSeeds_NeedTerms: without Terms, SentenceDice changes
// nothing.
func TestSentenceSeeds_NeedTerms(t *testing.T) {
	tok := invindex.NewTokenizer(invindex.DefaultParams())
	a := NewDoc(tok, strings.Join(rewordedSentences, " "))
	b := NewDoc(tok, strings.Join(sourceSentences, " "))
	if s := sentenceSeeds(a, b, 0.4); s != nil {
		t.Errorf("%d seeds without terms", len(s))
	}
}

// TestInRuns: strong pairs count next to another strong one (up to 3
// sentences on in a and 4 in b), any pair in three on one exact diagonal;
// lone pairs, weak pairs next to strong ones and weak pairs drifting off
// the diagonal do not.
func TestInRuns(t *testing.T) {
	pairs := []sentencePair{
		{10, 50, true}, {11, 51, true}, {13, 53, true}, // strong neighbours
		{14, 55, false},                               // weak, next to them but off their diagonal
		{30, 5, true}, {40, 90, true}, {41, 20, true}, // lone strong pairs
		{60, 100, false}, {61, 101, false}, {63, 103, false}, // weak, three on offset 40
		{70, 10, false}, {71, 12, false}, {72, 13, false}, // weak, drifting: offsets -60, -59, -59
		{80, 200, true}, {83, 204, true}, // a summary's: 3 sentences on in a, 4 in b
		{90, 300, true}, {91, 305, true}, // 5 sentences on in b: apart
		{95, 400, true}, {99, 401, true}, // 4 sentences on in a: apart
	}
	got := inRuns(slices.Clone(pairs))
	want := []sentencePair{{10, 50, true}, {11, 51, true}, {13, 53, true}, {60, 100, false}, {61, 101, false}, {63, 103, false},
		{80, 200, true}, {83, 204, true}}
	if !slices.Equal(got, want) {
		t.Fatalf("inRuns = %v, want %v", got, want)
	}
}

// TestTermSents: the table finds, for every term, the sentences that have
// it in order, as a map of lists would; absent terms find nothing; each
// termAt's df is its term's sentence count.
func TestTermSents(t *testing.T) {
	rng := rand.New(rand.NewPCG(alignSeed(t), 5))
	for iter := 0; iter < 50; iter++ {
		var sents []sentence
		want := map[uint64][]int32{}
		n := 0
		for i := range 1 + rng.IntN(40) {
			var s sentence
			seen := map[uint64]bool{}
			for range rng.IntN(12) {
				term := 1 + uint64(rng.IntN(30))<<uint(rng.IntN(60)) // collide in the low bits too
				if !seen[term] {
					seen[term] = true
					s.terms = append(s.terms, termAt{term: term})
					want[term] = append(want[term], int32(i))
					n++
				}
			}
			sents = append(sents, s)
		}
		var x termSents
		x.build(sents, n)
		for term, w := range want {
			if got := x.lookup(term); !slices.Equal(got, w) {
				t.Fatalf("iteration %d: lookup(%d) = %v, want %v", iter, term, got, w)
			}
		}
		for _, s := range sents {
			for _, ta := range s.terms {
				if int(ta.df) != len(want[ta.term]) {
					t.Fatalf("iteration %d: df of %d = %d, want %d", iter, ta.term, ta.df, len(want[ta.term]))
				}
			}
		}
		if got := x.lookup(1 << 63); got != nil && want[1<<63] == nil {
			t.Fatalf("absent term found: %v", got)
		}
	}
}

// TestSentenceSizes: a sentence's size in a pair, found from the terms
// common in the other text, is the plain count: its terms in at most limA
// sentences of its own text and at most limB of the other's.
func TestSentenceSizes(t *testing.T) {
	rng := rand.New(rand.NewPCG(alignSeed(t), 6))
	doc := func() *Doc {
		var sents []sentence
		n := 0
		for range 1 + rng.IntN(60) {
			var s sentence
			seen := map[uint64]bool{}
			for range rng.IntN(12) {
				term := 1 + uint64(rng.IntN(25))<<uint(rng.IntN(60))
				if !seen[term] {
					seen[term] = true
					s.terms = append(s.terms, termAt{term: term})
					n++
				}
			}
			sents = append(sents, s)
		}
		d := &Doc{sents: sents}
		d.termSents.build(d.sents, n)
		return d
	}
	for iter := 0; iter < 200; iter++ {
		a, b := doc(), doc()
		limA, limB := int32(rng.IntN(8)), int32(rng.IntN(8))
		size := sentenceSizes(a, b, limA, limB)
		for _, i := range rng.Perm(len(a.sents)) {
			want := int32(0)
			for _, x := range a.sents[i].terms {
				if x.df <= limA && int32(len(b.termSents.lookup(x.term))) <= limB {
					want++
				}
			}
			if got := size(int32(i)); got != want {
				t.Fatalf("iteration %d, limits %d/%d: size of sentence %d = %d, want %d", iter, limA, limB, i, got, want)
			}
		}
	}
}
