package pan

// STAND-IN ALIGNER. This file is a simple seed-and-extend passage aligner,
// written so that the PAN evaluation could run before passage.Align (the
// engine's passage alignment) existed. `plagd eval pan --aligner` chooses
// between the two; see docs/QUALITY.md for how they compare.

import (
	"math/bits"
	"slices"
	"sort"
	"unicode"
	"unicode/utf8"

	"github.com/plagd/plagd/invindex"
)

// Passage is a matching passage of documents A and B: byte offsets
// [AStart, AEnd) into A and [BStart, BEnd) into B, the words each side
// spans and the number of seeds (shared keys) that made it. It has the
// shape of passage.Passage.
type Passage struct {
	AStart, AEnd, BStart, BEnd int
	AWords, BWords, Shared     int
}

// SeedOptions tune the stand-in aligner.
type SeedOptions struct {
	// Gram is the length of the word n-grams used as seeds (2: bigrams
	// survive word shuffles and most synonym replacements).
	Gram int
	// MaxOcc drops n-grams that occur more often than this in either
	// document (function-word pairs): they seed nothing but noise.
	MaxOcc int
	// GapWords: two seeds belong to one passage when they are at most this
	// many words apart in both documents (single linkage).
	GapWords int
	// MinSeeds and MinWords drop passages with fewer seeds, or fewer words
	// on either side.
	MinSeeds, MinWords int
	// MergeGapWords: a passage with at least MinSeeds seeds absorbs any
	// other passage at most this many words away in both documents (the
	// pieces of one reworded passage, which single linkage at GapWords
	// splits). Passages too weak to stand alone are dropped only after this.
	MergeGapWords int
}

// DefaultSeedOptions are the settings tuned on pan-id (docs/QUALITY.md).
func DefaultSeedOptions() SeedOptions {
	return SeedOptions{Gram: 2, MaxOcc: 1, GapWords: 40, MinSeeds: 5, MinWords: 20, MergeGapWords: 100}
}

// SeedDoc is a document prepared for SeedAlign: its words and n-gram keys.
type SeedDoc struct {
	Text  *Text
	words []invindex.Word
	keys  []uint64
	count map[uint64]int32
	pos   map[uint64][]int32 // key → positions
}

// NewSeedDoc tokenises t with tok (the engine's tokenizer, so that words
// are normalised as the index normalises them) into n-grams of gram words.
func NewSeedDoc(tok *invindex.Tokenizer, t *Text, gram int) *SeedDoc {
	d := &SeedDoc{Text: t, words: tok.Words(t.S, nil)}
	gram = max(gram, 1)
	if n := len(d.words) - gram + 1; n > 0 {
		d.keys = make([]uint64, n)
		d.count = make(map[uint64]int32, n)
		for i := range d.keys {
			h := uint64(0x243F6A8885A308D3)
			for _, w := range d.words[i : i+gram] {
				h = bits.RotateLeft64((h^w.Hash)*0x9E3779B97F4A7C15, 27)
			}
			d.keys[i] = h
			d.count[h]++
		}
	}
	d.pos = make(map[uint64][]int32, len(d.count))
	for i, k := range d.keys {
		d.pos[k] = append(d.pos[k], int32(i))
	}
	return d
}

// SeedAlign finds the passages of a that match passages of b: seeds are
// n-grams both share (each at most MaxOcc times in either), seeds closer
// than GapWords in both documents are linked into clusters, and each
// cluster with enough seeds and words becomes a passage spanning its seeds.
// Word order inside a passage does not matter, so shuffled and partly
// reworded passages are found as well as verbatim ones.
func SeedAlign(a, b *SeedDoc, opt SeedOptions) []Passage {
	gram := max(opt.Gram, 1)
	type pt struct{ i, j int32 }
	var pts []pt
	pos := b.pos
	for i, k := range a.keys {
		if int(a.count[k]) > opt.MaxOcc || int(b.count[k]) > opt.MaxOcc {
			continue
		}
		for _, j := range pos[k] {
			pts = append(pts, pt{int32(i), j})
		}
	}
	if len(pts) == 0 {
		return nil
	}
	// pts are sorted by i already (a.keys is scanned in order, positions ascend).
	parent := make([]int32, len(pts))
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	gap := int32(opt.GapWords)
	lo := 0
	for k := range pts {
		for pts[k].i-pts[lo].i > gap {
			lo++
		}
		for m := lo; m < k; m++ {
			if d := pts[k].j - pts[m].j; d <= gap && d >= -gap {
				if x, y := find(int32(k)), find(int32(m)); x != y {
					parent[x] = y
				}
			}
		}
	}
	type span struct {
		ai, aj, bi, bj int32 // word index ranges, inclusive
		n              int
	}
	clusters := map[int32]*span{}
	for k, p := range pts {
		r := find(int32(k))
		s := clusters[r]
		if s == nil {
			clusters[r] = &span{p.i, p.i, p.j, p.j, 1}
			continue
		}
		s.ai, s.aj = min(s.ai, p.i), max(s.aj, p.i)
		s.bi, s.bj = min(s.bi, p.j), max(s.bj, p.j)
		s.n++
	}
	spans := make([]span, 0, len(clusters))
	for _, s := range clusters {
		spans = append(spans, *s)
	}
	// A strong cluster absorbs the clusters near it in both documents;
	// clusters overlapping in both documents are one passage anyway.
	sort.Slice(spans, func(x, y int) bool { return spans[x].ai < spans[y].ai })
	near := func(s, t *span, g int32) bool {
		return t.ai <= s.aj+g && s.ai <= t.aj+g && t.bi <= s.bj+g && s.bi <= t.bj+g
	}
	strong := func(s *span) bool { return s.n >= opt.MinSeeds }
	mg := int32(max(opt.MergeGapWords, gram))
	for merged := true; merged; {
		merged = false
		for x := 0; x < len(spans); x++ {
			for y := x + 1; y < len(spans); y++ {
				s, t := &spans[x], &spans[y]
				if near(s, t, int32(gram)) || ((strong(s) || strong(t)) && near(s, t, mg)) {
					s.ai, s.aj = min(s.ai, t.ai), max(s.aj, t.aj)
					s.bi, s.bj = min(s.bi, t.bi), max(s.bj, t.bj)
					s.n += t.n
					spans = slices.Delete(spans, y, y+1)
					y--
					merged = true
				}
			}
		}
	}
	var out []Passage
	for _, s := range spans {
		aw, bw := int(s.aj-s.ai)+gram, int(s.bj-s.bi)+gram
		if s.n < opt.MinSeeds || aw < opt.MinWords || bw < opt.MinWords {
			continue
		}
		p := Passage{AWords: aw, BWords: bw, Shared: s.n}
		p.AStart, p.AEnd = wordSpan(a, int(s.ai), int(s.aj)+gram-1)
		p.BStart, p.BEnd = wordSpan(b, int(s.bi), int(s.bj)+gram-1)
		out = append(out, p)
	}
	sort.Slice(out, func(x, y int) bool { return out[x].AStart < out[y].AStart })
	return out
}

// wordSpan is the byte range from word i's start to word j's end, extended
// over punctuation that closes the last word (". ), \" ;").
func wordSpan(d *SeedDoc, i, j int) (int, int) {
	j = min(j, len(d.words)-1)
	start, end := int(d.words[i].Start), int(d.words[j].End)
	return start, extendPunct(d.Text.S, end)
}

func extendPunct(s string, end int) int {
	for end < len(s) {
		r, size := utf8.DecodeRuneInString(s[end:])
		if !unicode.IsPunct(r) {
			break
		}
		end += size
	}
	return end
}
