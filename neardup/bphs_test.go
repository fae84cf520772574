package neardup

import (
	"slices"
	"testing"
)

func TestBPHSEqualsBruteForce(t *testing.T) {
	r := testRand(t)
	designs := [][2]int{{4, 1}, {5, 2}, {6, 3}, {8, 3}, {7, 1}}
	for range 10 {
		es := clustered(r, 1+r.IntN(5000))
		for _, d := range designs {
			x := NewBPHS(es, d[0], d[1])
			if x.Tables() != binom(d[0], d[1]) || x.Bytes() != x.Tables()*12*len(es) {
				t.Fatalf("G=%d g=%d: %d tables, %d bytes", d[0], d[1], x.Tables(), x.Bytes())
			}
			for range 40 {
				q := nearQuery(r, es)
				h := r.IntN(d[0] - d[1] + 1) // exact for h <= G-g
				want := sortMatches(Near(es, q, h, nil))
				got := x.Query(q, h, false, nil)
				if !slices.Equal(got, want) {
					t.Fatalf("G=%d g=%d h=%d: BPHS %v, brute force %v", d[0], d[1], h, got, want)
				}
				first := x.Query(q, h, true, nil)
				if len(first) != min(1, len(want)) || len(first) == 1 && !slices.Contains(want, first[0]) {
					t.Fatalf("first-match %v of %v", first, want)
				}
			}
		}
	}
}

func TestBPHSPermutationRoundTrip(t *testing.T) {
	r := testRand(t)
	x := NewBPHS(nil, 5, 2)
	for ti := range x.tables {
		tb := &x.tables[ti]
		for range 100 {
			h := r.Uint64()
			if got := x.unpermute(tb, tb.permute(h)); got != h {
				t.Fatalf("table %d: %#x -> %#x", ti, h, got)
			}
		}
	}
}
