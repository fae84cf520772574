package routing

// Synthetic prose for the tests and benchmarks: words drawn with a Zipf-like
// skew from a fixed random vocabulary, and near-copies made by word-level
// edits. Generation is deterministic (fixed PCG seeds).

import (
	"math/rand/v2"
	"strings"
)

type textGen struct {
	rng   *rand.Rand
	vocab []string
	zipf  *rand.Zipf
}

func newTextGen(seed uint64) *textGen {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	g := &textGen{rng: rng}
	for range 5000 {
		n := 2 + rng.IntN(9)
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + rng.IntN(26))
		}
		g.vocab = append(g.vocab, string(b))
	}
	g.zipf = rand.NewZipf(rng, 1.1, 2, uint64(len(g.vocab)-1))
	return g
}

// words returns n words.
func (g *textGen) words(n int) []string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = g.vocab[g.zipf.Uint64()]
	}
	return ws
}

// doc returns a document of about nbytes bytes of text.
func (g *textGen) doc(nbytes int) []byte {
	return []byte(strings.Join(g.words(nbytes/6+1), " "))
}

// nearCopy edits about frac of the words of doc: replacement, deletion or
// insertion of a word, at random places.
func (g *textGen) nearCopy(doc []byte, frac float64) []byte {
	ws := strings.Fields(string(doc))
	edits := int(frac * float64(len(ws)))
	for range edits {
		i := g.rng.IntN(len(ws))
		switch g.rng.IntN(3) {
		case 0:
			ws[i] = g.vocab[g.zipf.Uint64()]
		case 1:
			if len(ws) > 1 {
				ws = append(ws[:i], ws[i+1:]...)
			}
		default:
			ws = append(ws[:i], append([]string{g.vocab[g.zipf.Uint64()]}, ws[i:]...)...)
		}
	}
	return []byte(strings.Join(ws, " "))
}
