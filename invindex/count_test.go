package invindex

import (
	"slices"
	"testing"
)

func TestCount_MatchesReference(t *testing.T) {
	rng := testRand(t)
	c := NewCounter(0) // reused across documents and corpora: Drain must reset it
	for range 200 {
		g := newCorpusGen(rng)
		r := g.corpus(1 + rng.IntN(200))
		post := r.postings()
		// Count across several slices: partial counts must accumulate.
		bounds := []uint64{r.lo, r.hi}
		if k := rng.IntN(4); k > 0 && r.hi-r.lo > 4 {
			bounds = SplitRange(r.hi-r.lo, k+1)
			for i := range bounds {
				bounds[i] += r.lo
			}
		}
		in := r.input(rng)
		var parts []*Slice
		for i := 1; i < len(bounds); i++ {
			parts = append(parts, BuildSlice(bounds[i-1], bounds[i], restrict(in, bounds[i-1], bounds[i])))
		}
		dfCap := []int{0, -3, 1, 2, 5, 50}[rng.IntN(6)]
		minShared := uint32(rng.IntN(3))
		queries := in
		// A query document that is not indexed ("check this file now"),
		// posing as an unused DocID: df=1 chunks of others must count.
		queries = append(queries, DocChunks{Doc: 1 << 21, Chunks: g.doc()})
		for _, q := range queries {
			for i, p := range parts {
				p.Count(c, q.Doc, restrictChunks(q.Chunks, bounds[i], bounds[i+1]), dfCap)
			}
			got := c.Drain(nil, minShared)
			want := refCount(post, q.Doc, q.Chunks, dfCap, minShared)
			if len(got) == 0 && len(want) == 0 {
				continue
			}
			if !slices.Equal(got, want) {
				t.Fatalf("doc %d dfCap %d minShared %d:\n got %v\nwant %v", q.Doc, dfCap, minShared, got, want)
			}
		}
	}
}

func TestCount_Example(t *testing.T) {
	s := BuildSlice(0, 100, []DocChunks{
		{1, []uint32{10, 20, 30, 40}},
		{2, []uint32{10, 20}},
		{3, []uint32{20, 30, 99}},
		{4, []uint32{20}},
	})
	c := NewCounter(2) // too small on purpose: Count grows it
	s.Count(c, 1, []uint32{10, 20, 30, 40}, 0)
	if got := c.Drain(nil, 0); !slices.Equal(got, []Pair{{2, 2}, {3, 2}, {4, 1}}) {
		t.Fatalf("no cap: %v", got)
	}
	s.Count(c, 1, []uint32{10, 20, 30, 40}, 3) // chunk 20 has df 4 > 3
	if got := c.Drain(nil, 0); !slices.Equal(got, []Pair{{2, 1}, {3, 1}}) {
		t.Fatalf("cap 3: %v", got)
	}
	s.Count(c, 1, []uint32{10, 20, 30, 40}, 0)
	if got := c.Drain([]Pair{{0, 9}}, 2); !slices.Equal(got, []Pair{{0, 9}, {2, 2}, {3, 2}}) {
		t.Fatalf("minShared 2, appending: %v", got)
	}
	// Outside the range and absent chunks count nothing.
	s.Count(c, 7, []uint32{5, 41, 99}, 0)
	if got := c.Drain(nil, 0); !slices.Equal(got, []Pair{{3, 1}}) {
		t.Fatalf("query doc: %v", got)
	}
}

// TestCounter_DrainDense exercises the dense-scan branch of Drain (most
// documents touched) against the sorted-list branch.
func TestCounter_DrainDense(t *testing.T) {
	var docs []DocChunks
	for d := range DocID(64) {
		docs = append(docs, DocChunks{d, []uint32{1, 2 + d%3}})
	}
	s := BuildSlice(0, 8, docs)
	c := NewCounter(64)
	s.Count(c, 5, []uint32{1, 2, 3, 4}, 0)
	got := c.Drain(nil, 0)
	if len(got) != 63 || !slices.IsSortedFunc(got, func(a, b Pair) int { return int(a.Other) - int(b.Other) }) {
		t.Fatalf("dense drain: %d pairs %v", len(got), got)
	}
	for _, p := range got {
		if p.Shared != 2 { // chunk 1 and chunk 2+d%3, both queried
			t.Fatalf("pair %v, want shared 2", p)
		}
	}
	for _, n := range c.counts {
		if n != 0 {
			t.Fatal("counter not reset")
		}
	}
}
