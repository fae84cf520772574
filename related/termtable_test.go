package related

import (
	"math"
	"testing"

	"github.com/plagd/plagd/internal/testseed"
)

// TestTermTable: every term inserted keeps its value through growth, zero
// and the largest hash included, and each is listed once.
func TestTermTable(t *testing.T) {
	r := testseed.Rand(t)
	h := newTermTable(1)
	want := map[uint64]int32{0: 7, math.MaxUint64: 8}
	for len(want) < 50000 {
		want[r.Uint64()>>uint(r.IntN(64))] = int32(r.IntN(1000))
	}
	for term, v := range want {
		i, added := h.slot(term)
		if !added {
			t.Fatalf("term %d added twice", term)
		}
		h.vals[i] = v
	}
	for term := range want {
		if _, added := h.slot(term); added {
			t.Fatalf("term %d added again", term)
		}
	}
	for term, v := range want {
		if got := h.get(term); got != v {
			t.Fatalf("term %d: %d, want %d", term, got, v)
		}
	}
	seen := 0
	h.each(func(term uint64, v int32) {
		if want[term] != v {
			t.Fatalf("each: term %d has %d, want %d", term, v, want[term])
		}
		seen++
	})
	if seen != len(want) || h.n != len(want) {
		t.Fatalf("each listed %d terms, table holds %d, want %d", seen, h.n, len(want))
	}
}
