package neardup

import (
	"cmp"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// clustered returns n entries in clusters of near-identical hashes (a base
// and copies at distance 0..5), so every h has matches to find, and queries
// next to them with their flip probabilities.
func clustered(r *rand.Rand, n int) []Entry {
	es := make([]Entry, 0, n)
	for len(es) < n {
		base := r.Uint64()
		for range 1 + r.IntN(4) {
			y := base
			for range r.IntN(6) {
				y ^= 1 << r.IntN(64)
			}
			es = append(es, Entry{y, uint32(len(es))})
		}
	}
	return es[:n]
}

func randomProbs(r *rand.Rand) *[Bits]float64 {
	var p [Bits]float64
	for j := range p {
		p[j] = 0.5 * r.Float64() * r.Float64()
	}
	return &p
}

func nearQuery(r *rand.Rand, es []Entry) uint64 {
	q := es[r.IntN(len(es))].Hash
	for range r.IntN(5) {
		q ^= 1 << r.IntN(64)
	}
	return q
}

func sortMatches(m []Match) []Match {
	slices.SortFunc(m, func(a, b Match) int { return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(a.Hash, b.Hash)) })
	return m
}

func TestPSMExactWithUnlimitedBudget(t *testing.T) {
	r := testRand(t)
	var s Searcher
	for range 30 {
		es := clustered(r, 1+r.IntN(3000))
		tb := 1 + r.IntN(16)
		x := NewPSM(es, tb)
		for range 50 {
			q := nearQuery(r, es)
			h := r.IntN(6)
			want := sortMatches(Near(es, q, h, nil))
			got, lookups := s.Query(x, q, randomProbs(r), QueryOpts{H: h}, nil)
			if !slices.Equal(sortMatches(got), want) {
				t.Fatalf("t=%d h=%d: PSM %v, brute force %v", tb, h, got, want)
			}
			all := 0
			for i := 0; i <= min(h, tb); i++ {
				all += binom(tb, i)
			}
			if lookups != all {
				t.Fatalf("t=%d h=%d: %d lookups, want %d", tb, h, lookups, all)
			}
			first, _ := s.Query(x, q, randomProbs(r), QueryOpts{H: h, First: true}, nil)
			if len(first) != min(1, len(want)) || len(first) == 1 && !slices.Contains(want, first[0]) {
				t.Fatalf("first-match %v of %v", first, want)
			}
		}
	}
}

func binom(n, k int) int {
	c := 1
	for i := range k {
		c = c * (n - i) / (i + 1)
	}
	return c
}

func TestPSMSubsetWithBudget(t *testing.T) {
	r := testRand(t)
	var s Searcher
	es := clustered(r, 20000)
	x := NewPSM(es, HeaderBitsFor(len(es)))
	for range 500 {
		q := nearQuery(r, es)
		want := Near(es, q, 3, nil)
		budget := 1 + r.IntN(50)
		got, lookups := s.Query(x, q, randomProbs(r), QueryOpts{H: 3, Budget: budget}, nil)
		if lookups > budget {
			t.Fatalf("%d lookups over budget %d", lookups, budget)
		}
		for _, m := range got {
			if !slices.Contains(want, m) || bits.OnesCount64(m.Hash^q) != m.Dist {
				t.Fatalf("match %v not in brute force %v", m, want)
			}
		}
		if len(slices.Compact(sortMatches(got))) != len(got) {
			t.Fatalf("repeated match %v", got)
		}
	}
}

func TestBatchEqualsBruteForce(t *testing.T) {
	r := testRand(t)
	es := clustered(r, 10000)
	var qs []BatchQuery
	for range 300 {
		qs = append(qs, BatchQuery{Hash: nearQuery(r, es), Probs: *randomProbs(r)})
	}
	chunks := func(yield func([]Entry) bool) {
		for i := 0; i < len(es); i += 1500 {
			if !yield(es[i:min(i+1500, len(es))]) {
				return
			}
		}
	}
	all := Batch(qs, chunks, QueryOpts{H: 3})
	first := Batch(qs, chunks, QueryOpts{H: 3, First: true})
	for i, q := range qs {
		want := sortMatches(Near(es, q.Hash, 3, nil))
		if !slices.Equal(sortMatches(all[i]), want) {
			t.Fatalf("batch %v, brute force %v", all[i], want)
		}
		if len(first[i]) != min(1, len(want)) {
			t.Fatalf("batch first %v of %v", first[i], want)
		}
	}
}

func TestPSMBytes(t *testing.T) {
	x := NewPSM(make([]Entry, 1000), 10)
	if x.Bytes() != 12*1000+4*1025 || x.Len() != 1000 || x.HeaderBits() != 10 {
		t.Errorf("bytes %d", x.Bytes())
	}
	if HeaderBitsFor(1<<20) != 20 || HeaderBitsFor(1<<20+1) != 21 || HeaderBitsFor(0) != 1 {
		t.Errorf("HeaderBitsFor")
	}
}
