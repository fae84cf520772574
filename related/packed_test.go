package related

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/plagd/plagd/internal/testseed"
	"github.com/plagd/plagd/termstat"
)

// TestCountPacker_RoundTrip: unpacked counts equal the packed ones (terms,
// counts, order), for documents sharing terms and packed by two packers,
// with counts up to the largest a uint32 holds.
func TestCountPacker_RoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(testseed.Seed(t), 1))
	packers := []*CountPacker{NewCountPacker(), NewCountPacker()}
	var docs [][]TermCount
	var packed []PackedCounts
	for i := range 300 {
		n := r.IntN(600)
		hs := make([]uint64, 0, n)
		for range n {
			if r.IntN(2) == 0 {
				hs = append(hs, uint64(r.IntN(5000))) // shared by many documents
			} else {
				hs = append(hs, r.Uint64())
			}
		}
		tc := termstat.Count(hs, nil)
		for j := range tc {
			if r.IntN(50) == 0 {
				tc[j].Count = ^uint32(0) - uint32(r.IntN(3))
			}
		}
		docs = append(docs, tc)
		packed = append(packed, packers[i%2].Pack(tc))
	}
	var buf []TermCount
	for i, p := range packed {
		if buf = p.Unpack(buf); !slices.Equal(buf, docs[i]) {
			t.Fatalf("document %d: unpacked %v, want %v", i, buf, docs[i])
		}
	}
	if got := NewCountPacker().Pack(nil).Unpack(buf); len(got) != 0 {
		t.Fatalf("empty counts unpack to %v", got)
	}
}
