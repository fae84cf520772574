package termstat

import (
	"math"
	"slices"
	"testing"

	"github.com/plagd/plagd/internal/testseed"
)

// randomTable is a frozen DocFreq over random documents of Zipf-like terms.
func randomTable(t testing.TB) (Table, []uint64) {
	r := testseed.Rand(t)
	d := NewDocFreq()
	var seen []uint64
	for range 2000 {
		var hs []uint64
		for range 1 + r.IntN(200) {
			h := uint64(math.Exp(r.Float64()*12)) * 0x9e3779b97f4a7c15
			if r.IntN(50) == 0 {
				h = r.Uint64()
			}
			hs = append(hs, h)
		}
		seen = append(seen, hs...)
		d.Add(Count(hs, nil))
	}
	return d.Freeze(), seen
}

// TestTableIndex: the hash index and the precomputed IDFs give exactly
// what a binary search and IDF give, for stored terms and absent ones, in
// a frozen and in a decoded table, and after Docs changes.
func TestTableIndex(t *testing.T) {
	tab, seen := randomTable(t)
	dec, err := Decode(tab.Docs, tab.Encode())
	if err != nil {
		t.Fatal(err)
	}
	r := testseed.Rand(t)
	for range 1000 {
		seen = append(seen, r.Uint64())
	}
	for _, x := range []*Table{&tab, &dec} {
		for k := range 2 {
			if k == 1 {
				x.Docs += 7
			}
			for _, h := range seen {
				df := 1
				if i, ok := slices.BinarySearch(x.terms, h); ok {
					df = int(x.df[i])
				}
				if got := x.DF(h); got != df {
					t.Fatalf("DF(%#x) = %d, want %d", h, got, df)
				}
				if got, want := x.IDF(h), IDF(x.Docs, df); math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("IDF(%#x) = %v, want %v", h, got, want)
				}
			}
		}
	}
}

func BenchmarkTableIDF(b *testing.B) {
	tab, seen := randomTable(b)
	var s float64
	for b.Loop() {
		for _, h := range seen[:100000] {
			s += tab.IDF(h)
		}
	}
	_ = s
}
