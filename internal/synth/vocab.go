package synth

import (
	"math"
	"math/bits"
	"strings"
)

// functionWords are real English function words. They take the top ranks of
// the Zipf distribution, as in real text, where about half of all tokens are
// function words; the 5-word windows made of them are the chunks that recur
// by chance across unrelated documents.
var functionWords = strings.Fields(`the of and to a in that is was he for it with as his on
be at by i this had not are but from or have an they which one you were her all she
there would their we him been has when who will more no if out so said what up its
about into than them can only other new some could time these two may then do first
any my now such like our over man me even most made after also did many before must
through back years where much your way well down should because each just those people
how too little state good very make world still own see men work long get here between
both life being under never day same another know while last might us great old year
off come since against go came right used take three himself few house use during
without again place around however home small found thus every thought went say part
once general high upon school does number course war until always away something fact
though water less public put think almost hand enough far took head yet government
system better set told nothing night end why called didn't eyes find going look asked
later knew point next city business give group toward young let room president side
social given present several order national possible rather second face per among
form important often things early within began whether above`)

// syllables build the generated content words: pronounceable, mostly
// two to four syllables, shorter for frequent ranks (Zipf's law of
// abbreviation), so byte lengths resemble real text (about 6 bytes per word
// with its space).
var (
	onsets = strings.Fields("b c d f g h j k l m n p r s t v w z br ch cl cr dr fl gr pl pr sh sl st str th tr")
	nuclei = strings.Fields("a e i o u a e i o u ai ea ie io ou")
	codas  = []string{"", "", "", "", "n", "r", "s", "t", "l", "m", "nd", "st", "ck", "rt"}
)

// vocabulary is the ranked word list and an alias table over its Zipf
// distribution, so that drawing a word costs one random number.
type vocabulary struct {
	words []string
	// cells is the alias table with each word's bytes inline: a draw
	// touches one 32-byte cell (and its alias's), not three arrays, which
	// halves the generator's cache misses on the long tail.
	cells []cell
}

// cell is one column of the alias table: keep this word when the low draw
// is below prob, else take the word at alias.
type cell struct {
	prob  uint64
	alias int32
	n     uint8
	word  [maxWord]byte
}

// maxWord keeps a cell at 32 bytes; longer generated words are redrawn.
const maxWord = 19

// newVocabulary generates size words (the function words first) and the
// Zipf(s) distribution over their ranks: p(r) ∝ 1/(r+1)^s.
func newVocabulary(seed uint64, size int, s float64) *vocabulary {
	size = max(size, len(functionWords)+1)
	v := &vocabulary{words: make([]string, 0, size)}
	seen := make(map[string]bool, size)
	for _, w := range functionWords {
		if !seen[w] {
			seen[w] = true
			v.words = append(v.words, w)
		}
	}
	r := newRNG(seed, 0, streamVocab)
	var b strings.Builder
	for len(v.words) < size {
		rank := len(v.words)
		n := 1 + int(math.Log10(float64(rank))/1.6) + r.intn(2) // 2..4 syllables
		b.Reset()
		for range n {
			b.WriteString(onsets[r.intn(len(onsets))])
			b.WriteString(nuclei[r.intn(len(nuclei))])
		}
		b.WriteString(codas[r.intn(len(codas))])
		w := b.String()
		if !seen[w] && len(w) <= maxWord {
			seen[w] = true
			v.words = append(v.words, w)
		}
	}
	v.buildAlias(s)
	return v
}

// buildAlias is Vose's alias method.
func (v *vocabulary) buildAlias(s float64) {
	n := len(v.words)
	p := make([]float64, n)
	var sum float64
	for i := range p {
		p[i] = math.Pow(float64(i+1), -s)
		sum += p[i]
	}
	small, large := make([]int, 0, n), make([]int, 0, n)
	for i := range p {
		p[i] *= float64(n) / sum
		if p[i] < 1 {
			small = append(small, i)
		} else {
			large = append(large, i)
		}
	}
	v.cells = make([]cell, n)
	for i, w := range v.words {
		if len(w) > len(v.cells[i].word) {
			panic("synth: word too long: " + w)
		}
		v.cells[i].n = uint8(copy(v.cells[i].word[:], w))
	}
	for len(small) > 0 && len(large) > 0 {
		l, g := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		v.cells[l].prob = toThreshold(p[l])
		v.cells[l].alias = int32(g)
		p[g] -= 1 - p[l]
		if p[g] < 1 {
			large = large[:len(large)-1]
			small = append(small, g)
		}
	}
	for _, i := range append(small, large...) {
		v.cells[i].prob = math.MaxUint64
		v.cells[i].alias = int32(i)
	}
}

func toThreshold(p float64) uint64 {
	if p >= 1 {
		return math.MaxUint64
	}
	return uint64(p * (1 << 63) * 2)
}

// draw returns a word's cell. The high half of x·n picks the column and
// the low half, the fraction, decides between it and its alias.
func (v *vocabulary) draw(r *rng) *cell {
	x := r.next()
	hi, lo := bits.Mul64(x, uint64(len(v.cells)))
	c := &v.cells[hi]
	if lo < c.prob {
		return c
	}
	return &v.cells[c.alias]
}
