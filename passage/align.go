package passage

import (
	"cmp"
	"math/bits"
	"slices"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/plagd/plagd/invindex"
)

// Passage is one stretch of text that a and b share (Align). Offsets are
// byte offsets into Doc.Text, [Start, End), each starting at a word's first
// byte and ending at a word's last.
type Passage struct {
	AStart int `json:"a_start"`
	AEnd   int `json:"a_end"`
	BStart int `json:"b_start"`
	BEnd   int `json:"b_end"`
	// AWords and BWords are the passage's lengths in words.
	AWords int `json:"a_words"`
	BWords int `json:"b_words"`
	// Shared is the number of windows of a in the passage that match a
	// window of b in it; a verbatim copy of w words has w-N+1.
	Shared int `json:"shared"`
}

// A returns the passage's range in a.
func (p Passage) A() Range { return Range{p.AStart, p.AEnd} }

// B returns the passage's range in b.
func (p Passage) B() Range { return Range{p.BStart, p.BEnd} }

// Options tune Align. The zero value means the defaults.
type Options struct {
	// MaxGapWords is the largest number of words between two matching
	// windows (in a and in b) that still belong to one passage. 0 means
	// DefaultMaxGapWords; a negative value means 0 (only overlapping or
	// adjacent windows join).
	MaxGapWords int
	// MergeGapWords is the largest gap, in words in both texts, across
	// which two passages are merged into one. 0 means MaxGapWords; a
	// negative value merges only passages that overlap in both texts.
	MergeGapWords int
	// MinWords drops passages shorter than this many words in a or in b.
	// 0 means DefaultMinWords; a negative value keeps every passage.
	MinWords int
	// MinShared drops passages with fewer matching windows. 0 or less: no
	// minimum beyond what MinWords implies.
	MinShared int
	// Suppress, when set, is asked about every key (Doc.Keys) that
	// occurs in both texts; the windows it returns true for are ignored,
	// as if they did not match. Use it for chunks common to very many
	// documents (templates, faculty boilerplate): the caller knows their
	// document frequencies. It is called from the goroutine running Align.
	Suppress func(key uint64) bool
	// GapPenalty is what a word between matching windows costs, against
	// the 1 each matched word scores, when a cluster is cut into the
	// stretches its evidence covers densely (verify.go): a gap is bridged
	// only when the matched words on each side of it outweigh it. 0 means
	// DefaultGapPenalty; a negative value turns verification off (clusters
	// become passages as they are).
	GapPenalty float64
	// MinDensity drops passages in which fewer than this share of the
	// words, in a or in b, lie in a matching window. 0 means
	// DefaultMinDensity; a negative value keeps every passage.
	MinDensity float64
	// SupportWords and SupportDrift: a seed counts only when another seed
	// at most SupportWords words away in a, not overlapping it, lies on
	// nearly its diagonal (offsets B-A at most SupportDrift words apart);
	// see supported in verify.go. 0 means the defaults; a negative
	// SupportWords keeps every seed.
	SupportWords, SupportDrift int
	// SentenceDice, when positive, adds the seeds of matching sentence
	// pairs (sentence.go) to the windows': sentences whose content terms
	// (Doc.SetTerms, which both Docs must have had) overlap with at least
	// this Dice coefficient. 0 means windows only.
	SentenceDice float64
	// SentenceSuppress, when set, is asked about the window of a at each
	// sentence seed: a seed it rejects is dropped. Reports pass their
	// common text and templates here (as Suppress), so that the
	// document's template and common text, reworded in a source, seeds
	// no passage either. Only a's windows are asked, all of them a
	// document's own (as CommonRanges asks), not only those both texts
	// share.
	SentenceSuppress func(key uint64) bool
}

// Defaults of Options.
const (
	// DefaultMaxGapWords tolerates a replaced word every few words, or a
	// short inserted clause, inside one passage.
	DefaultMaxGapWords = 20
	// DefaultMinWords is about one sentence: shorter matches are mostly
	// set phrases, names and titles.
	DefaultMinWords = 15
	// DefaultGapPenalty bridges a gap of g words when at least g/10
	// matched words lie on each side: reworded copies, whose matches are
	// a few words apart, stay whole; chance pairs of words far apart do
	// not chain (most chance matches have no support to begin with).
	DefaultGapPenalty = 0.1
	// DefaultMinDensity: a passage in which fewer than one word in eight
	// lies in a matching window is not a copy a reader can see.
	DefaultMinDensity = 0.12
	// DefaultSupportWords and DefaultSupportDrift: a matching window
	// within a sentence or two of another, on a diagonal at most half a
	// sentence off (a clause moved, words inserted or dropped).
	DefaultSupportWords = 30
	DefaultSupportDrift = 18
)

// maxKeyRepeat is how often a key may occur in a before its windows stop
// seeding: a window repeated so often in one text is a table or a rule,
// not prose, and its matches would cost their product.
const maxKeyRepeat = 32

func (o Options) withDefaults() Options {
	switch {
	case o.MaxGapWords == 0:
		o.MaxGapWords = DefaultMaxGapWords
	case o.MaxGapWords < 0:
		o.MaxGapWords = 0
	}
	switch {
	case o.MergeGapWords == 0:
		o.MergeGapWords = o.MaxGapWords
	case o.MergeGapWords < 0:
		o.MergeGapWords = -1 // overlap only: a gap of 0 words is adjacency
	}
	switch {
	case o.MinWords == 0:
		o.MinWords = DefaultMinWords
	case o.MinWords < 0:
		o.MinWords = 0
	}
	if o.GapPenalty == 0 {
		o.GapPenalty = DefaultGapPenalty
	}
	if o.SupportWords == 0 {
		o.SupportWords = DefaultSupportWords
	}
	if o.SupportDrift == 0 {
		o.SupportDrift = DefaultSupportDrift
	}
	if o.MinDensity == 0 {
		o.MinDensity = DefaultMinDensity
	}
	return o
}

// Doc is a text prepared for alignment: its words and the key of every
// window, in text order (Keys = invindex.Tokenizer.WindowKeys(Words)).
// Build it with NewDoc. A Doc may be aligned with many others, concurrently too: the
// first Align that needs it as its first argument hashes its keys, once.
type Doc struct {
	Text  string
	Words []invindex.Word
	Keys  []uint64
	once  sync.Once
	ix    keyIndex

	runesOnce sync.Once
	runes     int

	// The Doc's sentences and their index by term, for sentence seeds
	// (SetTerms); none without terms.
	sents     []sentence
	termSents termSents // term → the sentences that have it, in order
}

// Coverage is Coverage(d.Text, ranges, excluded), with the text's rune
// count computed once per Doc rather than once per call: a document is
// measured against each of its sources.
func (d *Doc) Coverage(ranges, excluded []Range) float64 {
	d.runesOnce.Do(func() { d.runes = utf8.RuneCountInString(d.Text) })
	return coverage(d.Text, d.runes, ranges, excluded)
}

// Bytes is about the memory d holds once made (NewDoc, SetTerms) and
// aligned: its text, words, window keys, sentences and their index by
// term, and the index of its windows that the first Align that gets it
// first builds (counted from the start, so that the figure does not change
// while a cache holds the Doc). Caches of Docs budget by it. The window
// index is 36 to 68 bytes a window, four to eight times the keys; left out
// until 2026-11-27, it made the similarity-index refresh's cache of 512 MiB
// hold about twice that.
func (d *Doc) Bytes() int {
	n := len(d.Text) + cap(d.Words)*int(unsafe.Sizeof(invindex.Word{})) + cap(d.Keys)*8
	n += keyIndexBytes(len(d.Keys))
	n += cap(d.sents) * int(unsafe.Sizeof(sentence{}))
	// Each sentence's distinct terms (one termAt each, in one array at
	// least half used), and the sentences of each term in the index.
	terms := len(d.termSents.sents)
	n += terms*int(unsafe.Sizeof(termAt{})) + terms*4
	return n + len(d.termSents.keys)*8 + len(d.termSents.off)*4
}

// NewDoc tokenises text with tok and computes its window keys. The slices
// are freshly allocated; tok's buffers are not retained.
func NewDoc(tok *invindex.Tokenizer, text string) *Doc {
	// Words makes room for the worst case of every block it scans (a word
	// per two bytes), far more than prose needs: tokenising into a scratch
	// slice kept between calls and copying out the words found saves
	// allocating and clearing that room for every text (a fifth of the
	// time of a run's similarity indexes went there).
	scratch := wordScratch.Get().(*[]invindex.Word)
	*scratch = tok.Words(text, (*scratch)[:0])
	words := make([]invindex.Word, len(*scratch))
	copy(words, *scratch)
	if cap(*scratch) <= maxScratchWords {
		wordScratch.Put(scratch)
	}
	return &Doc{Text: text, Words: words, Keys: tok.WindowKeys(words, nil)}
}

// wordScratch holds scratch slices for NewDoc's tokenising; one longer
// than maxScratchWords (a text of megabytes) is left to the collector.
var wordScratch = sync.Pool{New: func() any { return new([]invindex.Word) }}

const maxScratchWords = 1 << 20

// window is N, the words per window: Keys has len(Words)-N+1 entries.
func (d *Doc) window() int {
	if len(d.Keys) == 0 {
		return 0
	}
	return len(d.Words) - len(d.Keys) + 1
}

func (d *Doc) index() *keyIndex {
	d.once.Do(func() { d.ix.build(d.Keys) })
	return &d.ix
}

// keyIndex finds the windows of a document with a given key: an
// open-addressing hash table from key to the first window with it, and a
// chain through the later ones. Keys are already uniform hash bits, so a
// multiply spreads them over the table.
type keyIndex struct {
	keys  []uint64 // slot → key
	first []uint32 // slot → first window + 1; 0 marks an empty slot
	count []uint32 // slot → windows with the key
	next  []uint32 // window → next window with the same key + 1; 0 ends
	shift uint
}

// keyIndexSlots is the size of the table of a keyIndex of n keys: at
// least twice n, a power of two.
func keyIndexSlots(n int) int { return 1 << max(4, bits.Len(uint(2*n))) }

// keyIndexBytes is the memory of a keyIndex of n keys.
func keyIndexBytes(n int) int { return keyIndexSlots(n)*(8+4+4) + n*4 }

func (x *keyIndex) build(keys []uint64) {
	size := keyIndexSlots(len(keys))
	x.keys = make([]uint64, size)
	x.first = make([]uint32, size)
	x.count = make([]uint32, size)
	x.next = make([]uint32, len(keys))
	x.shift = uint(64 - bits.TrailingZeros(uint(size)))
	mask := uint64(size - 1)
	// Backwards, so that each chain lists its windows in text order.
	for i := len(keys) - 1; i >= 0; i-- {
		k := keys[i]
		s := (k * 0x9E3779B97F4A7C15) >> x.shift
		for x.first[s] != 0 && x.keys[s] != k {
			s = (s + 1) & mask
		}
		x.next[i] = x.first[s]
		x.keys[s], x.first[s] = k, uint32(i+1)
		x.count[s]++
	}
}

// lookup returns the first window with key k plus one (0: none) and the
// number of windows with it.
func (x *keyIndex) lookup(k uint64) (first, count uint32) {
	if len(x.keys) == 0 {
		return 0, 0
	}
	mask := uint64(len(x.keys) - 1)
	for s := (k * 0x9E3779B97F4A7C15) >> x.shift; x.first[s] != 0; s = (s + 1) & mask {
		if x.keys[s] == k {
			return x.first[s], x.count[s]
		}
	}
	return 0, 0
}

// seed is one match: window A of a equals window B of b.
type seed struct{ A, B int32 }

func cmpByA(x, y seed) int { return cmp.Or(cmp.Compare(x.A, y.A), cmp.Compare(x.B, y.B)) }
func cmpByB(x, y seed) int { return cmp.Or(cmp.Compare(x.B, y.B), cmp.Compare(x.A, y.A)) }

// wpass is a passage in word indexes, [a0, a1) and [b0, b1), with the
// seeds it was made of.
type wpass struct {
	a0, a1, b0, b1 int
	seeds          []seed
	shared         int
}

// Align finds the passages a and b share, sorted by AStart, then BStart.
// Both must come from Tokenizers with the same invindex.Params. The
// package documentation describes the method.
func Align(a, b *Doc, opt Options) []Passage {
	opt = opt.withDefaults()
	n := a.window()
	if n == 0 || b.window() != n {
		return nil
	}
	seeds := findSeeds(a, b, opt.Suppress)
	if opt.SentenceDice > 0 {
		more := sentenceSeeds(a, b, opt.SentenceDice)
		if drop := opt.SentenceSuppress; drop != nil {
			more = slices.DeleteFunc(more, func(s seed) bool { return drop(a.Keys[s.A]) })
		}
		seeds = addSeeds(seeds, more)
	}
	if len(seeds) == 0 {
		return nil
	}
	var kept []wpass
	if opt.SupportWords < 0 {
		kept = passages(seeds, n, opt)
	} else {
		// Anchors: the passages of the supported seeds alone. Each takes
		// back the unsupported seeds that lie in its box (both ranges,
		// widened by growWords) until it grows no more: a reworded
		// copy's lone matches (a word pair between two replaced words)
		// count again inside and at the edges of its anchors, while
		// chance matches away from every anchor seed nothing.
		anchors := passages(supported(slices.Clone(seeds), n, opt.SupportWords, opt.SupportDrift), n, opt)
		if len(anchors) == 0 {
			return nil
		}
		slices.SortFunc(seeds, cmpByA)
		for i := range anchors {
			anchors[i] = grow(anchors[i], seeds, n, growWords)
		}
		kept = mergePassages(anchors, opt.MergeGapWords, func(x, y *wpass) bool {
			return joinable(x, y, n, opt)
		})
	}
	kept = joinSummaries(dropDominated(kept), opt.MergeGapWords)
	out := make([]Passage, len(kept))
	for i, p := range kept {
		out[i] = Passage{
			AStart: int(a.Words[p.a0].Start), AEnd: int(a.Words[p.a1-1].End),
			BStart: int(b.Words[p.b0].Start), BEnd: int(b.Words[p.b1-1].End),
			AWords: p.a1 - p.a0, BWords: p.b1 - p.b0, Shared: p.shared,
		}
	}
	slices.SortFunc(out, func(x, y Passage) int {
		return cmp.Or(cmp.Compare(x.AStart, y.AStart), cmp.Compare(x.BStart, y.BStart),
			cmp.Compare(x.AEnd, y.AEnd), cmp.Compare(x.BEnd, y.BEnd))
	})
	return out
}

// growWords is how far beyond its box an anchor takes back seeds.
const growWords = 8

// grow gives p every seed of all (sorted by A) inside its box widened by
// pad words in both texts, until the box stops growing.
func grow(p wpass, all []seed, n, pad int) wpass {
	for {
		lo, _ := slices.BinarySearchFunc(all, int32(p.a0-pad), func(s seed, a int32) int { return cmp.Compare(s.A, a) })
		var ss []seed
		a0, a1, b0, b1 := p.a0, p.a1, p.b0, p.b1
		for _, s := range all[lo:] {
			if int(s.A) >= p.a1+pad {
				break
			}
			if int(s.B)+n > p.b0-pad && int(s.B) < p.b1+pad {
				ss = append(ss, s)
				a0, a1 = min(a0, int(s.A)), max(a1, int(s.A)+n)
				b0, b1 = min(b0, int(s.B)), max(b1, int(s.B)+n)
			}
		}
		grown := a0 != p.a0 || a1 != p.a1 || b0 != p.b0 || b1 != p.b1
		p = wpass{a0: a0, a1: a1, b0: b0, b1: b1, seeds: ss, shared: distinctA(ss)}
		if !grown {
			return p
		}
	}
}

// joinable reports whether two verified passages are pieces of one: their
// union is still dense, or the gap between them (the larger of the gaps in
// a and in b) costs, at GapPenalty a word, no more than the matching
// windows of each piece weigh (the rule by which verify bridges gaps).
func joinable(x, y *wpass, n int, opt Options) bool {
	gap := max(0, gapBetween(x.a0, x.a1, y.a0, y.a1), gapBetween(x.b0, x.b1, y.b0, y.b1))
	if opt.GapPenalty*float64(gap) <= float64(min(x.shared, y.shared)) {
		return true
	}
	u := wpass{a0: min(x.a0, y.a0), a1: max(x.a1, y.a1), b0: min(x.b0, y.b0), b1: max(x.b1, y.b1),
		seeds: append(slices.Clip(x.seeds), y.seeds...)}
	return dense(u, n, opt.MinDensity)
}

// passages turns seeds into verified passages: steps 2 to 4 of Align and
// the filters of opt.
func passages(seeds []seed, n int, opt Options) []wpass {
	if len(seeds) == 0 {
		return nil
	}
	ps := cluster(seeds, n, opt.MaxGapWords)
	ps = mergePassages(ps, opt.MergeGapWords, nil)
	if opt.GapPenalty > 0 {
		var vs []wpass
		for _, p := range ps {
			vs = append(vs, verify(p.seeds, n, opt.GapPenalty)...)
		}
		// The dense stretches of one reworded passage are joined again
		// when the whole stays dense: pieces of one copy, not a chain.
		ps = mergePassages(vs, opt.MergeGapWords, func(x, y *wpass) bool {
			return joinable(x, y, n, opt)
		})
	}
	var kept []wpass
	for _, p := range ps {
		if p.a1-p.a0 >= opt.MinWords && p.b1-p.b0 >= opt.MinWords && p.shared >= opt.MinShared && dense(p, n, opt.MinDensity) {
			kept = append(kept, p)
		}
	}
	return kept
}

// dense reports whether at least share of p's words in a and in b lie in a
// matching window.
func dense(p wpass, n int, share float64) bool {
	if share <= 0 {
		return true
	}
	slices.SortFunc(p.seeds, cmpByA)
	if float64(matchedWords(p.seeds, posA, n)) < share*float64(p.a1-p.a0) {
		return false
	}
	slices.SortFunc(p.seeds, cmpByB)
	return float64(matchedWords(p.seeds, posB, n)) >= share*float64(p.b1-p.b0)
}

// findSeeds returns every match between a window of a and one of b.
func findSeeds(a, b *Doc, suppress func(uint64) bool) []seed {
	ix := a.index()
	var seeds []seed
	for j, k := range b.Keys {
		first, count := ix.lookup(k)
		if first == 0 || count > maxKeyRepeat || suppress != nil && suppress(k) {
			continue
		}
		for i := first; i != 0; i = ix.next[i-1] {
			seeds = append(seeds, seed{A: int32(i - 1), B: int32(j)})
		}
	}
	return seeds
}

// cluster groups seeds that lie close together in both texts (step 2) and
// returns the clusters as passages in word indexes.
func cluster(seeds []seed, n, gap int) []wpass {
	type part struct {
		lo, hi int
		byB    bool // the dimension to cut next; the part is already stable in the other
	}
	// A window starting at p ends before word p+n; the next one starting
	// at q leaves q-(p+n) words between them.
	limit := int32(n + gap)
	cut := func(ss []seed, byB bool, emit func(lo, hi int)) {
		lo := 0
		for i := 1; i < len(ss); i++ {
			d := ss[i].A - ss[i-1].A
			if byB {
				d = ss[i].B - ss[i-1].B
			}
			if d > limit {
				emit(lo, i)
				lo = i
			}
		}
		emit(lo, len(ss))
	}
	slices.SortFunc(seeds, cmpByA)
	var stack []part
	cut(seeds, false, func(lo, hi int) { stack = append(stack, part{lo, hi, true}) })
	var out []wpass
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		ss := seeds[p.lo:p.hi]
		if p.byB {
			slices.SortFunc(ss, cmpByB)
		} else {
			slices.SortFunc(ss, cmpByA)
		}
		pieces := 0
		cut(ss, p.byB, func(lo, hi int) {
			pieces++
			if lo == 0 && hi == len(ss) {
				return // not cut: stable in both dimensions
			}
			stack = append(stack, part{p.lo + lo, p.lo + hi, !p.byB})
		})
		if pieces == 1 {
			out = append(out, newWPass(ss, n))
		}
	}
	return out
}

func newWPass(ss []seed, n int) wpass {
	p := wpass{a0: int(ss[0].A), a1: int(ss[0].A), b0: int(ss[0].B), b1: int(ss[0].B), seeds: ss}
	for _, s := range ss {
		p.a0, p.a1 = min(p.a0, int(s.A)), max(p.a1, int(s.A))
		p.b0, p.b1 = min(p.b0, int(s.B)), max(p.b1, int(s.B))
	}
	p.a1 += n
	p.b1 += n
	p.shared = distinctA(ss)
	return p
}

// distinctA counts the distinct windows of a among ss (sorting ss by A).
func distinctA(ss []seed) int {
	slices.SortFunc(ss, cmpByA)
	d := 0
	for i, s := range ss {
		if i == 0 || s.A != ss[i-1].A {
			d++
		}
	}
	return d
}

// gapBetween is the number of words between [x0, x1) and [y0, y1), negative
// when they overlap.
func gapBetween(x0, x1, y0, y1 int) int { return max(x0, y0) - min(x1, y1) }

// mergePassages merges passages closer than gap words in both texts (and
// for which ok, when set, holds), until no two are.
func mergePassages(ps []wpass, gap int, ok func(x, y *wpass) bool) []wpass {
	for merged := true; merged; {
		merged = false
		slices.SortFunc(ps, func(x, y wpass) int {
			return cmp.Or(cmp.Compare(x.a0, y.a0), cmp.Compare(x.b0, y.b0), cmp.Compare(x.a1, y.a1), cmp.Compare(x.b1, y.b1))
		})
		for i := 0; i < len(ps); i++ {
			for j := i + 1; j < len(ps) && ps[j].a0-ps[i].a1 <= gap; j++ {
				if gapBetween(ps[i].a0, ps[i].a1, ps[j].a0, ps[j].a1) > gap ||
					gapBetween(ps[i].b0, ps[i].b1, ps[j].b0, ps[j].b1) > gap ||
					ok != nil && !ok(&ps[i], &ps[j]) {
					continue
				}
				x, y := &ps[i], ps[j]
				x.a0, x.a1 = min(x.a0, y.a0), max(x.a1, y.a1)
				x.b0, x.b1 = min(x.b0, y.b0), max(x.b1, y.b1)
				x.seeds = append(slices.Clip(x.seeds), y.seeds...)
				x.shared = distinctA(x.seeds)
				ps = slices.Delete(ps, j, j+1)
				merged = true
				j = i // x grew: look at the following passages again
			}
		}
	}
	return ps
}

// dropDominated drops each passage whose range in a lies at least half
// inside the range of a passage with more shared windows (ties: the one
// first in a, then in b).
func dropDominated(ps []wpass) []wpass {
	if len(ps) < 2 {
		return ps
	}
	order := make([]int, len(ps))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int {
		p, q := ps[x], ps[y]
		return cmp.Or(cmp.Compare(q.shared, p.shared), cmp.Compare(p.a0, q.a0), cmp.Compare(p.b0, q.b0))
	})
	var keep []int
	for _, i := range order {
		p := ps[i]
		dominated := false
		for _, k := range keep {
			q := ps[k]
			if ov := -gapBetween(p.a0, p.a1, q.a0, q.a1); 2*ov >= p.a1-p.a0 {
				dominated = true
				break
			}
		}
		if !dominated {
			keep = append(keep, i)
		}
	}
	slices.Sort(keep)
	out := make([]wpass, len(keep))
	for i, k := range keep {
		out[i] = ps[k]
	}
	return out
}
