package neardup

import (
	"math"
	"testing"

	"github.com/plagd/plagd/termstat"
)

// TestSimhashGolden pins the simhashes and weights of the realistic
// archive's first texts under a DocFreq table of them (checksum computed at
// c97def2): stored simhashes must not change.
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
	if want := uint64(0x401cd8abb4ee8cb5); sum != want {
		t.Errorf("checksum %#x, want %#x", sum, want)
	}
}
