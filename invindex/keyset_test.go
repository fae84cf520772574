package invindex

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestKeySet: Has and Without agree with a map over random sets (empty,
// small, and larger than the filter's first size), and KeysOver lists the
// keys whose df exceeds n.
func TestKeySet(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 5, 300, 5000} {
		in := map[uint32]bool{}
		for len(in) < n {
			in[rng.Uint32()>>rng.IntN(24)] = true
		}
		keys := make([]uint32, 0, n)
		for k := range in {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		s := NewKeySet(slices.Clone(keys))
		if s.Len() != n || !slices.Equal(s.Keys(), keys) {
			t.Fatalf("n=%d: Len %d, keys differ", n, s.Len())
		}
		var chunks []uint32
		for _, k := range keys {
			if rng.IntN(2) == 0 {
				chunks = append(chunks, k)
			}
		}
		for range 3 * n {
			chunks = append(chunks, rng.Uint32()>>rng.IntN(24))
		}
		slices.Sort(chunks)
		chunks = slices.Compact(chunks)
		checks := make([]uint8, len(chunks))
		for i := range checks {
			checks[i] = uint8(i)
		}
		var wantC []uint32
		var wantK []uint8
		for i, c := range chunks {
			if s.Has(c) != in[c] {
				t.Fatalf("n=%d: Has(%d) = %v", n, c, !in[c])
			}
			if !in[c] {
				wantC, wantK = append(wantC, c), append(wantK, checks[i])
			}
		}
		gotC, gotK := s.Without(nil, nil, chunks, checks)
		if !slices.Equal(gotC, wantC) || !slices.Equal(gotK, wantK) {
			t.Fatalf("n=%d: Without differs", n)
		}
	}
	var empty *KeySet
	if empty.Has(3) || empty.Len() != 0 {
		t.Fatal("nil KeySet is not empty")
	}

	docs := []DocChunks{
		{Doc: 1, Chunks: []uint32{1, 2, 3}, Checks: []uint8{0, 0, 0}},
		{Doc: 2, Chunks: []uint32{2, 3}, Checks: []uint8{0, 0}},
		{Doc: 3, Chunks: []uint32{3, 9}, Checks: []uint8{0, 0}},
	}
	sl := BuildSlice(0, 16, docs)
	for n, want := range [][]uint32{{1, 2, 3, 9}, {2, 3}, {3}, nil} {
		if got := sl.KeysOver(nil, n); !slices.Equal(got, want) {
			t.Fatalf("KeysOver(%d) = %v, want %v", n, got, want)
		}
	}
}
