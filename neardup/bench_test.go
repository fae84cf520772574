package neardup

// PSM against BPHS with T = 4 and T = 10 tables (Sood and Loguinov, table 2) on 1M
// hashes with planted near-duplicates. Run:
//
//	go test ./neardup -run '^$' -bench Online -benchtime 2000x
//
// Each iteration is one query; queries/s, the index's bytes and bytes per
// stored hash, PSM's budget (header lookups per query, calibrated to 95 %
// relative recall against the exact BPHS) and the recall reached are
// reported. Generation is deterministic (fixed PCG seed).

import (
	"math/bits"
	"math/rand/v2"
	"sync"
	"testing"
)

const (
	benchN       = 1 << 20
	benchQueries = 2000
	benchH       = 3
	benchRecall  = 0.95
)

type benchData struct {
	entries []Entry
	queries []uint64
	probs   [][Bits]float64
	exactA  [][]Match // exact all-matches per query

	fresh      []uint64 // queries without a planted match
	freshProbs [][Bits]float64
	psm        *PSM
	bphs4      *BPHS
	bphs10     *BPHS
	budgetA    int // lookups for 95 % relative recall, all-matches
	budgetF    int // same, first-match
	recallA    float64
	recallF    float64
	dist       [benchH + 1]int
}

var (
	benchOnce sync.Once
	bench     *benchData
)

// benchSetup plants benchQueries near-duplicate pairs in benchN random
// hashes: each pair is a synthetic document's weights and a perturbed copy
// (plantedPair); the stored side is one hash, the query the other, with the
// flip probabilities of a model learned from separate pairs. Pairs further
// apart than h are redrawn, as the seed evaluates pairs at distance 1..h.
func benchSetup(b *testing.B) *benchData {
	benchOnce.Do(func() { bench = makeBenchData(benchN) })
	b.Logf("n=%d queries=%d planted distances 0..%d: %v; PSM t=%d budget A=%d (recall %.3f) F=%d (recall %.3f); unlimited=%d",
		benchN, benchQueries, benchH, bench.dist, bench.psm.HeaderBits(), bench.budgetA, bench.recallA,
		bench.budgetF, bench.recallF, unlimited(bench.psm.HeaderBits()))
	return bench
}

// makeBenchData generates n random hashes with benchQueries planted pairs,
// the PSM and BPHS indexes over them and PSM's calibrated budgets.
func makeBenchData(n int) *benchData {
	{
		r := rand.New(rand.NewPCG(2, 3))
		var train []Pair
		for range 20000 {
			a, c := plantedPair(r, 0.05+0.15*r.Float64())
			train = append(train, Pair{&a, &c})
		}
		m := LearnFlipModel(train)
		d := &benchData{entries: make([]Entry, n)}
		for i := range d.entries {
			d.entries[i] = Entry{r.Uint64(), uint32(i)}
		}
		stride := n / benchQueries
		for q := range benchQueries {
			var a, c Weights
			for {
				a, c = plantedPair(r, 0.05+0.15*r.Float64())
				if bits.OnesCount64(HashOf(&a)^HashOf(&c)) <= benchH {
					break
				}
			}
			d.dist[bits.OnesCount64(HashOf(&a)^HashOf(&c))]++
			d.entries[q*stride].Hash = HashOf(&a)
			d.queries = append(d.queries, HashOf(&c))
			d.probs = append(d.probs, m.Probs(&c))
		}
		// Fresh queries: new documents with no near-duplicate stored, the
		// common case at upload time, where first-match cannot stop early.
		for range benchQueries {
			var w Weights
			for j := range w {
				w[j] = laplace(r, 1)
			}
			d.fresh = append(d.fresh, HashOf(&w))
			d.freshProbs = append(d.freshProbs, m.Probs(&w))
		}
		d.psm = NewPSM(d.entries, HeaderBitsFor(n))
		d.bphs4 = NewBPHS(d.entries, 4, 1)
		d.bphs10 = NewBPHS(d.entries, 5, 2)
		total := 0
		for _, q := range d.queries {
			ms := d.bphs4.Query(q, benchH, false, nil)
			d.exactA = append(d.exactA, ms)
			total += len(ms)
		}
		// Smallest budget reaching the target relative recall (recall is
		// monotone in the budget: a larger one tries a superset of headers).
		recall := func(budget int, first bool) float64 {
			var s Searcher
			found := 0
			var buf []Match
			for i, q := range d.queries {
				buf, _ = s.Query(d.psm, q, &d.probs[i], QueryOpts{H: benchH, Budget: budget, First: first}, buf[:0])
				if first {
					found += min(len(buf), 1)
				} else {
					found += len(buf)
				}
			}
			if first {
				return float64(found) / float64(len(d.queries)) // every query has a planted match
			}
			return float64(found) / float64(total)
		}
		search := func(first bool) (int, float64) {
			lo, hi := 1, 1+d.psm.HeaderBits()*(1+d.psm.HeaderBits()*d.psm.HeaderBits())
			for lo < hi {
				mid := (lo + hi) / 2
				if recall(mid, first) >= benchRecall {
					hi = mid
				} else {
					lo = mid + 1
				}
			}
			return lo, recall(lo, first)
		}
		d.budgetA, d.recallA = search(false)
		d.budgetF, d.recallF = search(true)
		return d
	}
}

func report(b *testing.B, bytes int) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
	b.ReportMetric(float64(bytes), "index-bytes")
	b.ReportMetric(float64(bytes)/benchN, "bytes/hash")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkOnline runs each method on two query streams: "planted", every
// query a near-duplicate of a stored hash (distance 0..3), and "fresh", new
// documents with nothing stored near them (the usual upload).
func BenchmarkOnline(b *testing.B) {
	d := benchSetup(b)
	for _, mix := range []string{"planted", "fresh"} {
		qs, ps := d.queries, d.probs
		if mix == "fresh" {
			qs, ps = d.fresh, d.freshProbs
		}
		psm := func(first bool, budget int) func(*testing.B) {
			return func(b *testing.B) {
				var s Searcher
				var buf []Match
				i := 0
				for b.Loop() {
					buf, _ = s.Query(d.psm, qs[i], &ps[i], QueryOpts{H: benchH, Budget: budget, First: first}, buf[:0])
					i = (i + 1) % len(qs)
				}
				report(b, d.psm.Bytes())
				b.ReportMetric(float64(budget), "budget")
			}
		}
		bp := func(x *BPHS, first bool) func(*testing.B) {
			return func(b *testing.B) {
				var buf []Match
				i := 0
				for b.Loop() {
					buf = x.Query(qs[i], benchH, first, buf[:0])
					i = (i + 1) % len(qs)
				}
				report(b, x.Bytes())
			}
		}
		b.Run(mix+"/PSM-A", psm(false, d.budgetA))
		b.Run(mix+"/PSM-A-exact", psm(false, 0))
		b.Run(mix+"/BPHS4-A", bp(d.bphs4, false))
		b.Run(mix+"/BPHS10-A", bp(d.bphs10, false))
		b.Run(mix+"/PSM-F", psm(true, d.budgetF))
		b.Run(mix+"/BPHS4-F", bp(d.bphs4, true))
		b.Run(mix+"/BPHS10-F", bp(d.bphs10, true))
	}
}

// BenchmarkBuild is the cost of (re)building the indexes over 1M hashes.
func BenchmarkBuild(b *testing.B) {
	d := benchSetup(b)
	b.Run("PSM", func(b *testing.B) {
		for b.Loop() {
			NewPSM(d.entries, 20)
		}
	})
	b.Run("BPHS4", func(b *testing.B) {
		for b.Loop() {
			NewBPHS(d.entries, 4, 1)
		}
	})
}

// unlimited is the number of header lookups of an exact PSM query at h.
func unlimited(t int) int {
	n := 0
	for i := 0; i <= benchH; i++ {
		n += binom(t, i)
	}
	return n
}
