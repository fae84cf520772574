package neardup

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/plagd/plagd/invindex"
	"github.com/plagd/plagd/termstat"
)

func features(tok *invindex.Tokenizer, text string) []Feature {
	return TermCounts(tok.Words(text, nil), nil)
}

// The values stored hashes depend on. FeatureHash is SplitMix64's
// finaliser: FeatureHash(0) is SplitMix64's first output for seed 0.
func TestPinnedValues(t *testing.T) {
	tok := invindex.NewTokenizer(invindex.DefaultParams())
	if got := FeatureHash(0); got != 0xe220a8397b1dcdaf {
		t.Errorf("FeatureHash(0) = %#x", got)
	}
	if got := FeatureHash(tok.Words("hello", nil)[0].Hash); got != 0xf3e8eec5eb46e500 {
		t.Errorf("FeatureHash(hello) = %#x", got)
	}
	fs := features(tok, "The quick brown fox jumps over the lazy dog; the DOG sleeps.")
	if len(fs) != 9 {
		t.Fatalf("%d features, want 9", len(fs))
	}
	h, W := Simhash(fs, UniformIDF)
	if h != 0xffff3f556e6703b1 {
		t.Errorf("simhash = %#x", h)
	}
	if HashOf(&W) != h {
		t.Errorf("HashOf(W) != hash")
	}
	// tf = (3 the, 2 dog, 7 others), weight 1/sqrt(9+4+7) each count.
	var sum float64
	for _, f := range fs {
		sum += float64(f.Count * f.Count)
	}
	if sum != 20 {
		t.Errorf("sum of squared counts %v, want 20", sum)
	}
}

func TestTermCounts(t *testing.T) {
	tok := invindex.NewTokenizer(invindex.DefaultParams())
	fs := features(tok, "bb aa bb cc aa bb") // not "b a b": one-letter runs are letter-spaced words
	if len(fs) != 3 || !slices.IsSortedFunc(fs, func(a, b Feature) int {
		if a.Term < b.Term {
			return -1
		}
		return 1
	}) {
		t.Fatalf("features %v", fs)
	}
	var total uint32
	for _, f := range fs {
		total += f.Count
	}
	if total != 6 {
		t.Errorf("total count %d", total)
	}
}

func TestSimhashIdenticalAndOrderFree(t *testing.T) {
	r := testRand(t)
	tok := invindex.NewTokenizer(invindex.DefaultParams())
	z := rand.NewZipf(r, 1.1, 1, 5000)
	for range 50 {
		ws := zipfText(r, z, 200+r.IntN(500), 0)
		h1, W1 := Simhash(features(tok, strings.Join(ws, " ")), UniformIDF)
		r.Shuffle(len(ws), func(i, j int) { ws[i], ws[j] = ws[j], ws[i] })
		h2, W2 := Simhash(features(tok, strings.ToUpper(strings.Join(ws, "\n"))), UniformIDF)
		if h1 != h2 || W1 != W2 {
			t.Fatalf("same bag of words, different simhash %#x %#x", h1, h2)
		}
	}
}

// A light edit moves the hash a few bits; unrelated documents are ~32 apart.
func TestSimhashEditDistance(t *testing.T) {
	r := testRand(t)
	tok := invindex.NewTokenizer(invindex.DefaultParams())
	z := rand.NewZipf(r, 1.1, 1, 20000)
	df := termstat.NewDocFreq()
	var docs [][]string
	for i := range 300 {
		ws := zipfText(r, z, 500+r.IntN(1000), i+1)
		docs = append(docs, ws)
		df.Add(features(tok, strings.Join(ws, " ")))
	}
	var near, far float64
	var cosNear float64
	for i, ws := range docs {
		a := features(tok, strings.Join(ws, " "))
		b := features(tok, strings.Join(edit(r, z, ws, 0.03), " "))
		c := features(tok, strings.Join(docs[(i+1)%len(docs)], " "))
		ha, _ := Simhash(a, df)
		hb, _ := Simhash(b, df)
		hc, _ := Simhash(c, df)
		near += float64(bits.OnesCount64(ha ^ hb))
		far += float64(bits.OnesCount64(ha ^ hc))
		cosNear += Cosine(a, b, df)
	}
	n := float64(len(docs))
	t.Logf("mean distance: 3%% edit %.2f, unrelated %.2f; mean cosine of edits %.3f", near/n, far/n, cosNear/n)
	if near/n > 4 || far/n < 20 || cosNear/n < 0.9 {
		t.Errorf("edit distance %.2f, unrelated %.2f, cosine %.3f", near/n, far/n, cosNear/n)
	}
}

func TestCosineAndDocFreq(t *testing.T) {
	tok := invindex.NewTokenizer(invindex.DefaultParams())
	a := features(tok, "xx yy zz") // not "x y z": a letter-spaced word
	if c := Cosine(a, a, UniformIDF); math.Abs(c-1) > 1e-12 {
		t.Errorf("self cosine %v", c)
	}
	if c := Cosine(a, features(tok, "pp qq"), UniformIDF); c != 0 {
		t.Errorf("disjoint cosine %v", c)
	}
	df := termstat.NewDocFreq()
	df.Add(a)
	df.Add(features(tok, "xx"))
	x := tok.Words("xx", nil)[0].Hash
	y := tok.Words("yy", nil)[0].Hash
	if !(df.IDF(x) < df.IDF(y) && df.IDF(y) < df.IDF(12345)) {
		t.Errorf("idf not decreasing in df: %v %v %v", df.IDF(x), df.IDF(y), df.IDF(12345))
	}
	df.Remove(a)
	if df.Docs != 1 || len(df.DF) != 1 {
		t.Errorf("after Remove: %d docs, %d features", df.Docs, len(df.DF))
	}
}
