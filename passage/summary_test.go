package passage

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestJoinSummaries(t *testing.T) {
	piece := func(a0, a1, b0, b1 int) wpass {
		return wpass{a0: a0, a1: a1, b0: b0, b1: b1, seeds: []seed{{A: int32(a0), B: int32(b0)}}, shared: 1}
	}
	type box [4]int
	for _, c := range []struct {
		name string
		in   []wpass
		want []box
	}{
		{"a summary of b: close in a, far apart in b, b's side twice as long",
			[]wpass{piece(100, 150, 1000, 1100), piece(170, 220, 1250, 1350)},
			[]box{{100, 220, 1000, 1350}}},
		{"an expansion: the same with the texts' roles swapped",
			[]wpass{piece(1000, 1100, 100, 150), piece(1250, 1350, 170, 220)},
			[]box{{1000, 1350, 100, 220}}},
		{"two copies of distant parts of b: what lies between outweighs them",
			[]wpass{piece(100, 150, 1000, 1100), piece(170, 220, 5000, 5100)},
			[]box{{100, 150, 1000, 1100}, {170, 220, 5000, 5100}}},
		{"pieces of equal length on both sides are no summary",
			[]wpass{piece(100, 200, 1000, 1100), piece(210, 310, 1300, 1400)},
			[]box{{100, 200, 1000, 1100}, {210, 310, 1300, 1400}}},
		{"too far apart in the shorter text",
			[]wpass{piece(100, 150, 1000, 1100), piece(300, 350, 1250, 1350)},
			[]box{{100, 150, 1000, 1100}, {300, 350, 1250, 1350}}},
		{"in opposite orders in the two texts",
			[]wpass{piece(100, 150, 1250, 1350), piece(170, 220, 1000, 1100)},
			[]box{{100, 150, 1250, 1350}, {170, 220, 1000, 1100}}},
		{"three pieces of one summary join into one",
			[]wpass{piece(100, 150, 1000, 1100), piece(170, 220, 1250, 1350), piece(230, 260, 1400, 1480)},
			[]box{{100, 260, 1000, 1480}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for trial := range 6 { // any input order gives the same result
				in := slices.Clone(c.in)
				rand.New(rand.NewPCG(uint64(trial), 1)).Shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] })
				var got []box
				for _, p := range joinSummaries(in, 20) {
					got = append(got, box{p.a0, p.a1, p.b0, p.b1})
				}
				if !slices.Equal(got, c.want) {
					t.Fatalf("order %d: got %v, want %v", trial, got, c.want)
				}
			}
		})
	}
}
