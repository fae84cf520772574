package testtext

import (
	"math/rand/v2"
	"strings"
)

// WordGen makes texts of made-up words, each text kind with its own first
// letters (the prefix), reproducibly from a seed.
type WordGen struct{ rng *rand.Rand }

// NewWordGen is a generator seeded with seed.
func NewWordGen(seed uint64) *WordGen { return &WordGen{rand.New(rand.NewPCG(seed, 5))} }

// Words is n made-up words starting with prefix, separated by spaces.
func (g *WordGen) Words(prefix string, n int) string {
	const letters = "abcdefghijklmnoprstuvzčšžá"
	ls := []rune(letters)
	ws := make([]string, n)
	for i := range ws {
		w := []rune(prefix)
		for k := 2 + g.rng.IntN(6); k > 0; k-- {
			w = append(w, ls[g.rng.IntN(len(ls))])
		}
		ws[i] = string(w)
	}
	return strings.Join(ws, " ")
}

// IntN draws from the generator's own source, so that a test's other
// choices (where to copy, how much) replay with its texts.
func (g *WordGen) IntN(n int) int { return g.rng.IntN(n) }
