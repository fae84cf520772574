package passage

import (
	"math/rand/v2"
	"testing"

	"github.com/plagd/plagd/invindex"
)

// pairDocs tokenises a and b with 2-word windows, as the PAN evaluation
// aligns, and returns options that suppress windows repeated in either
// text (max-occ 1).
func pairDocs(a, b string, opt Options) (*Doc, *Doc, Options) {
	p := invindex.DefaultParams()
	p.WindowWords = 2
	tok := invindex.NewTokenizer(p)
	da, db := NewDoc(tok, a), NewDoc(tok, b)
	count := map[uint64][2]int{}
	for _, k := range da.Keys {
		c := count[k]
		c[0]++
		count[k] = c
	}
	for _, k := range db.Keys {
		c := count[k]
		c[1]++
		count[k] = c
	}
	opt.Suppress = func(k uint64) bool { c := count[k]; return c[0] > 1 || c[1] > 1 }
	opt.MaxGapWords, opt.MergeGapWords, opt.MinWords, opt.MinShared = 40, 100, 20, 6
	return da, db, opt
}

// TestAlign_ChanceMatchesMakeNoPassage: two texts on one topic (a small
// shared vocabulary, so that many word pairs occur once in each by chance)
// share no passage; a verbatim copy planted in them is found as one
// passage that covers it (less at most a few words at its edges whose word
// pairs recur elsewhere, which seed nothing). Chance matches near the copy
// and on nearly its diagonal may still extend it: verified pieces within
// the merge gap (100 words here) join when their union stays dense, and a
// piece so joined brings its own words and may bring the next. Measured
// over 3,000 copies (seeds 1-150): no extension in half of them, at most
// 79 words in 99 %, 121 in 99.9 %, 190 at most; the bound is twice the
// merge gap and a piece's minimum (docs/QUALITY.md, "An English
// text-alignment corpus", says what chance extensions cost).
func TestAlign_ChanceMatchesMakeNoPassage(t *testing.T) {
	const maxExtension = 2*100 + 20 + 10 // words beyond the copy, either side
	seed := alignSeed(t)
	for iter := range 20 {
		rng := rand.New(rand.NewPCG(seed, uint64(iter)))
		vocab := makeVocab(rng, 200)
		a := newAlignText(rng, vocab, 3000)
		b := newAlignText(rng, vocab, 3000)

		da, db, o := pairDocs(a.String(), b.String(), Options{})
		if ps := Align(da, db, o); len(ps) > 0 {
			t.Fatalf("iteration %d (seed %d): %d passages between unrelated texts: %+v", iter, seed, len(ps), ps)
		}

		// Plant a copy of 80 words of a into b.
		from, to, at := 1000, 1080, 1500
		b.words = append(append(append([]string{}, b.words[:at]...), a.words[from:to]...), b.words[at:]...)
		b.seps = append(append(append([]string{}, b.seps[:at]...), a.seps[from:to]...), b.seps[at:]...)
		b.seps[at] = " "
		da, db, o = pairDocs(a.String(), b.String(), Options{})
		ps := Align(da, db, o)
		if len(ps) != 1 {
			t.Fatalf("iteration %d (seed %d): want the one copy, got %+v", iter, seed, ps)
		}
		p := ps[0]
		if p.AStart < a.offset(from-maxExtension) || p.AEnd > a.end(to+maxExtension) || p.AStart > a.offset(from+5) || p.AEnd < a.end(to-6) {
			t.Errorf("iteration %d (seed %d): passage a [%d, %d) (%d words), copy [%d, %d)", iter, seed, p.AStart, p.AEnd, p.AWords, a.offset(from), a.end(to-1))
		}
	}
}
