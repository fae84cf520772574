package neardup

import (
	"math"
	"testing"

	"github.com/plagd/plagd/termstat"
)

// TestSimhashGolden pins the simhashes and weights of the realistic
// archive's first texts under a DocFreq table of them (checksum computed at
// c97def2, changed deliberately with invindex.HashVersion 3: two of these
// generated texts have runs of one-letter words, "Of a i a", now joined as
// letter-spaced words): stored simhashes must not change silently; a change
// comes with a HashVersion bump, whose full run recomputes them.
func TestSimhashGolden(t *testing.T) {
	ws, _ := realisticWords()
	df := termstat.NewDocFreq()
	for _, w := range ws {
		df.Add(TermCounts(w, nil))
	}
	tab := df.Freeze()
	var sum uint64
	for _, w := range ws[:60] {
		h, W := Simhash(TermCounts(w, nil), &tab)
		sum = sum*31 + h
		for _, x := range W {
			sum = sum*31 + math.Float64bits(x)
		}
	}
	if want := uint64(0xc42a683fe53d9b62); sum != want {
		t.Errorf("checksum %#x, want %#x", sum, want)
	}
}
