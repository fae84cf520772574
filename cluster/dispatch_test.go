package cluster

import (
	"slices"
	"testing"
)

func TestSplitByRange(t *testing.T) {
	bounds := []uint64{0, 10, 20, 1 << 32}
	c := Chunked{Doc: 7, Chunks: []uint32{1, 9, 10, 15, 20, 1<<32 - 1}, Checks: []uint8{1, 2, 3, 4, 5, 6}}
	parts := splitByRange(c, bounds)
	want := [][]uint32{{1, 9}, {10, 15}, {20, 1<<32 - 1}}
	wantChecks := [][]uint8{{1, 2}, {3, 4}, {5, 6}}
	for i := range want {
		if parts[i].Doc != 7 || !slices.Equal(parts[i].Chunks, want[i]) || !slices.Equal(parts[i].Checks, wantChecks[i]) {
			t.Fatalf("part %d = %+v, want %v %v", i, parts[i], want[i], wantChecks[i])
		}
	}
}
