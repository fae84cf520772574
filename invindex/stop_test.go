package invindex

import (
	"slices"
	"testing"
)

// TestBuildSliceStop: a build asked to stop gives up within one group of
// buckets and returns nil; one never asked to stop equals BuildSlice.
func TestBuildSliceStop(t *testing.T) {
	rng := testRand(t)
	const lo, hi = 0, 1 << 24
	var docs []DocChunks
	total := 0
	for d := 0; total < 3*minGroup*2; d++ {
		cs := make([]uint32, 1+rng.IntN(1000))
		for i := range cs {
			cs[i] = uint32(rng.Uint64N(hi))
		}
		slices.Sort(cs)
		cs = slices.Compact(cs)
		docs = append(docs, DocChunks{DocID(d), cs, make([]uint8, len(cs))})
		total += len(cs)
	}
	groups := len(newBucketer(lo, hi, docs, uint64(total)).groups) - 1
	if groups < 3 {
		t.Fatalf("%d groups, want several", groups)
	}
	want := BuildSlice(lo, hi, docs)
	got := BuildSliceStop(lo, hi, docs, func() bool { return false })
	if !slices.Equal(got.keys, want.keys) || !slices.Equal(got.offs, want.offs) || !slices.Equal(got.docs, want.docs) {
		t.Fatal("a build never stopped differs from BuildSlice")
	}
	for _, after := range []int{0, 1, groups - 1, groups + 1} {
		asked := 0
		s := BuildSliceStop(lo, hi, docs, func() bool { asked++; return asked > after })
		if s != nil {
			t.Fatalf("stop after %d of %d groups: the build went on", after, groups)
		}
		if asked != after+1 {
			t.Fatalf("stop after %d: asked %d times, want %d (no group after the stop)", after, asked, after+1)
		}
	}
}
