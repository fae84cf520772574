package routing

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// corpus is n documents' features: families of an original and near-copies
// at various edit rates, and the unrelated rest.
type corpus struct {
	docs [][]uint64
	orig []int // for a near-copy, its original; else -1
}

func makeCorpus(seed uint64, n, bytes int) *corpus {
	g := newTextGen(seed)
	c := &corpus{}
	for len(c.docs) < n {
		text := g.doc(bytes)
		o := len(c.docs)
		c.docs = append(c.docs, Features(text, DefaultParams))
		c.orig = append(c.orig, -1)
		for i := range g.rng.IntN(3) {
			if len(c.docs) == n {
				break
			}
			c.docs = append(c.docs, Features(g.nearCopy(text, 0.005*float64(1+2*i)), DefaultParams))
			c.orig = append(c.orig, o)
		}
	}
	return c
}

// brute is the reference answer: every live document sharing a feature with
// q, with its exact similarity, ranked.
func brute(docs [][]uint64, live func(int) bool, q []uint64) []Match {
	out := []Match{}
	for d, fs := range docs {
		if !live(d) {
			continue
		}
		if n := Shared(q, fs); n > 0 {
			out = append(out, Match{Doc: DocID(d), Shared: n, Jaccard: Jaccard(q, fs)})
		}
	}
	Rank(out)
	return out
}

func all(int) bool { return true }

func TestPartition_BruteForce(t *testing.T) {
	c := makeCorpus(20, 300, 2000)
	p := NewPartition()
	for d, fs := range c.docs {
		p.Add(DocID(d), fs)
	}
	r1 := NewRouted(1, 3)
	for d, fs := range c.docs {
		r1.Add(DocID(d), fs)
	}
	for d, q := range c.docs {
		want := brute(c.docs, all, q)
		if got := p.Query(q); !slices.Equal(got, want) {
			t.Fatalf("doc %d: monolithic %v, want %v", d, got, want)
		}
		if got := r1.Query(q, 0); !slices.Equal(got, want) {
			t.Fatalf("doc %d: routed K=1 %v, want %v", d, got, want)
		}
		if !selfFirst(want, d) {
			t.Fatalf("doc %d: not its own best match: %v", d, want)
		}
	}
}

// TestRouted_Sound checks, for several K and m, that every answer is a true
// match with its exact similarity, ranked, drawn from the routed partitions
// only, and that exact and planted near-copies are found.
func TestRouted_Sound(t *testing.T) {
	c := makeCorpus(21, 400, 2000)
	for _, k := range []int{2, 7, 32, 128} {
		for _, m := range []int{1, 3, 5} {
			r := NewRouted(k, m)
			for d, fs := range c.docs {
				r.Add(DocID(d), fs)
			}
			found, planted := 0, 0
			for d, q := range c.docs {
				got := r.Query(q, 0)
				want := brute(c.docs, all, q)
				exact := map[DocID]Match{}
				for _, w := range want {
					exact[w.Doc] = w
				}
				for i, g := range got {
					if w, ok := exact[g.Doc]; !ok || w != g {
						t.Fatalf("K=%d m=%d doc %d: answer %v, brute force %v", k, m, d, g, w)
					}
					if i > 0 && !(got[i-1].Jaccard >= g.Jaccard) {
						t.Fatalf("K=%d m=%d doc %d: not ranked: %v", k, m, d, got)
					}
					// It must share a routed partition with the query.
					if !sharesPartition(q, c.docs[g.Doc], k, m) {
						t.Fatalf("K=%d m=%d doc %d: %d from an unrouted partition", k, m, d, g.Doc)
					}
				}
				if !selfFirst(got, d) {
					t.Fatalf("K=%d m=%d doc %d: itself not found first: %v", k, m, d, got)
				}
				if o := c.orig[d]; o >= 0 {
					planted++
					if slices.ContainsFunc(got, func(g Match) bool { return g.Doc == DocID(o) }) {
						found++
					}
				}
			}
			t.Logf("K=%3d m=%d: %d of %d planted near-copies find their original", k, m, found, planted)
			if m >= 3 && found*100 < planted*95 {
				t.Errorf("K=%d m=%d: only %d of %d planted near-copies found", k, m, found, planted)
			}
		}
	}
}

// selfFirst reports whether document d is among the first, similarity 1,
// answers of ms (an identical near-copy may rank before it).
func selfFirst(ms []Match, d int) bool {
	for _, m := range ms {
		if m.Jaccard != 1 {
			return false
		}
		if m.Doc == DocID(d) {
			return true
		}
	}
	return false
}

func sharesPartition(a, b []uint64, k, m int) bool {
	pb := Route(b, k, m, nil)
	for _, p := range Route(a, k, m, nil) {
		if slices.Contains(pb, p) {
			return true
		}
	}
	return false
}

func TestRouted_Remove(t *testing.T) {
	c := makeCorpus(22, 200, 1500)
	r := NewRouted(16, 3)
	for d, fs := range c.docs {
		r.Add(DocID(d), fs)
	}
	rng := rand.New(rand.NewPCG(23, 24))
	gone := map[int]bool{}
	for _, d := range rng.Perm(len(c.docs))[:100] {
		if !r.Remove(DocID(d), c.docs[d]) {
			t.Fatalf("doc %d not removed", d)
		}
		if r.Remove(DocID(d), c.docs[d]) {
			t.Fatalf("doc %d removed twice", d)
		}
		gone[d] = true
	}
	live := func(d int) bool { return !gone[d] }
	for d, q := range c.docs {
		want := map[DocID]Match{}
		for _, w := range brute(c.docs, live, q) {
			want[w.Doc] = w
		}
		for _, g := range r.Query(q, 0) {
			if gone[int(g.Doc)] || want[g.Doc] != g {
				t.Fatalf("doc %d: answer %v after removal (removed %v)", d, g, gone[int(g.Doc)])
			}
		}
	}
	// Removing everything leaves empty partitions; re-adding works.
	for d, fs := range c.docs {
		if !gone[d] {
			r.Remove(DocID(d), fs)
		}
	}
	for i := range r.K() {
		if p := r.Partition(i); p.Len() != 0 || p.Postings() != 0 || len(p.post) != 0 {
			t.Fatalf("partition %d not empty: %d docs, %d postings", i, p.Len(), p.Postings())
		}
	}
	r.Add(7, c.docs[7])
	if got := r.Query(c.docs[7], 0); len(got) != 1 || got[0].Doc != 7 {
		t.Fatalf("after re-add: %v", got)
	}
}

func TestPartition_AddTwicePanics(t *testing.T) {
	p := NewPartition()
	p.Add(1, []uint64{1, 2})
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	p.Add(1, []uint64{3})
}

// TestRouted_Concurrent runs queries against concurrent additions and
// removals; run with -race.
func TestRouted_Concurrent(t *testing.T) {
	c := makeCorpus(25, 200, 1000)
	r := NewRouted(8, 3)
	for d := range 100 {
		r.Add(DocID(d), c.docs[d])
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for d := 100; d < 200; d++ {
			r.Add(DocID(d), c.docs[d])
		}
	})
	wg.Go(func() {
		for d := range 50 {
			r.Remove(DocID(d), c.docs[d])
		}
	})
	for range 4 {
		wg.Go(func() {
			for d := 50; d < 100; d++ {
				if got := r.Query(c.docs[d], 0); !selfFirst(got, d) {
					t.Errorf("doc %d not found: %v", d, got)
				}
			}
		})
	}
	wg.Wait()
}
