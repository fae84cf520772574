package invindex

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"
)

// Benchmarks on generated corpora shaped like real ones: documents of about
// 2,000 distinct chunks in a 28-bit space, most chunks in one document only
// and a Zipf-distributed pool of shared chunks (quotations, template text).
//
//	go test ./invindex -run '^$' -bench . -benchtime 5x
//
// Custom metrics: Mpostings/s (throughput), index-B/posting (Slice.Bytes),
// alloc-B/posting (everything the operation allocated; add the 5 B/posting
// of the input DocChunks for the build's peak), df1-% (share of keys with
// df = 1).

type benchCorpus struct {
	docs     []DocChunks
	postings int
}

var benchCorpora = map[string]*benchCorpus{}

// makeBenchCorpus is deterministic (fixed seed) so runs compare. A share of
// each document's chunks comes from a pool of postings/10 shared chunks,
// drawn uniformly (realistic: df of a few, at most a few dozen; with
// shared = 0.4, 86 % of chunks have df = 1 as on the real corpus of
// the design's estimate) or, with a negative shared, from a Zipf distribution
// (template text: some chunks in most documents).
func makeBenchCorpus(postings, perDoc int, shared float64) *benchCorpus {
	key := fmt.Sprint(postings, perDoc, shared)
	if c, ok := benchCorpora[key]; ok {
		return c
	}
	rng := rand.New(rand.NewPCG(1, 2))
	pool := make([]uint32, max(postings/10, 1))
	for i := range pool {
		pool[i] = rng.Uint32N(1 << 28)
	}
	zipf := rand.NewZipf(rng, 1.05, 8, uint64(len(pool)-1))
	useZipf := shared < 0
	shared = math.Abs(shared)
	c := &benchCorpus{}
	for d := 0; c.postings < postings; d++ {
		n := min(perDoc/2+rng.IntN(perDoc), postings-c.postings)
		cs := make([]uint32, n)
		for i := range cs {
			switch {
			case rng.Float64() >= shared:
				cs[i] = rng.Uint32N(1 << 28)
			case useZipf:
				cs[i] = pool[zipf.Uint64()]
			default:
				cs[i] = pool[rng.IntN(len(pool))]
			}
		}
		slices.Sort(cs)
		cs = slices.Compact(cs)
		// The fingerprint follows the chunk, as when a window is copied.
		fp := make([]uint8, len(cs))
		for i, ch := range cs {
			fp[i] = uint8(ch * 0x9e3779b1 >> 24)
		}
		c.docs = append(c.docs, DocChunks{DocID(d), cs, fp})
		c.postings += len(cs)
	}
	benchCorpora[key] = c
	return c
}

func df1Percent(s *Slice) float64 {
	n := 0
	for i := range s.keys {
		if s.offs[i+1]-s.offs[i] == 1 {
			n++
		}
	}
	return 100 * float64(n) / float64(max(len(s.keys), 1))
}

// allocBytes reports the bytes allocated by f.
func allocBytes(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// BenchmarkBuildSlice: documents of ~2,000 chunks, and short ones of ~95
// (the design's 1M-document archive of 100-word texts). The 100M cases need
// about 3 GiB and a minute each to generate: they run only with
// PLAGD_BENCH_BIG=1.
func BenchmarkBuildSlice(b *testing.B) {
	for _, tc := range []struct{ size, perDoc int }{
		{1_000_000, 2000}, {10_000_000, 2000}, {10_000_000, 95}, {100_000_000, 1000}, {100_000_000, 95},
	} {
		size := tc.size
		if size > 10_000_000 && os.Getenv("PLAGD_BENCH_BIG") == "" {
			continue
		}
		b.Run(fmt.Sprintf("postings=%dM/perDoc=%d", size/1_000_000, tc.perDoc), func(b *testing.B) {
			c := makeBenchCorpus(size, tc.perDoc, 0.4)
			b.ReportAllocs()
			var s *Slice
			var alloc uint64
			b.ResetTimer()
			for b.Loop() {
				alloc += allocBytes(func() { s = BuildSlice(0, 1<<28, c.docs) })
			}
			p := float64(c.postings)
			b.ReportMetric(p*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mpostings/s")
			b.ReportMetric(float64(s.Bytes())/p, "index-B/posting")
			b.ReportMetric(float64(alloc)/float64(b.N)/p, "alloc-B/posting")
			b.ReportMetric(df1Percent(s), "df1-%")
		})
	}
}

// BenchmarkBuildSortBaseline is the naive build the design compares against
// (the design's choice: slices.Sort on packed postings), measured side by side.
func BenchmarkBuildSortBaseline(b *testing.B) {
	c := makeBenchCorpus(10_000_000, 2000, 0.4)
	b.ReportAllocs()
	for b.Loop() {
		packed := make([]uint64, 0, c.postings)
		for _, d := range c.docs {
			for i, ch := range d.Chunks {
				packed = append(packed, uint64(ch)<<32|uint64(MakePosting(d.Doc, d.Checks[i])))
			}
		}
		slices.Sort(packed)
	}
	b.ReportMetric(float64(c.postings)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mpostings/s")
}

func BenchmarkUpdate(b *testing.B) {
	for _, tc := range []struct {
		name   string
		change float64 // fraction of documents removed, modified and added, each
		dfCap  int
	}{
		{"change=1%", 0.01, 0},
		{"change=1%/dfCap=100", 0.01, 100},
		{"change=10%", 0.10, 0},
		{"addOnly=1%", -0.01, 0},
	} {
		b.Run(tc.name, func(b *testing.B) {
			c := makeBenchCorpus(10_000_000, 2000, 0.4)
			base := BuildSlice(0, 1<<28, c.docs)
			rng := rand.New(rand.NewPCG(3, 4))
			frac := tc.change
			var removed *DocSet
			var added []DocChunks
			if frac > 0 {
				removed = NewDocSet(len(c.docs))
				for i := range c.docs {
					switch x := rng.Float64(); {
					case x < frac: // deleted
						removed.Add(c.docs[i].Doc)
					case x < 2*frac: // modified: same doc, another doc's chunks
						removed.Add(c.docs[i].Doc)
						o := c.docs[rng.IntN(len(c.docs))]
						added = append(added, DocChunks{c.docs[i].Doc, o.Chunks, o.Checks})
					}
				}
			} else {
				frac = -frac
			}
			for i := range int(frac * float64(len(c.docs))) {
				o := c.docs[rng.IntN(len(c.docs))]
				added = append(added, DocChunks{DocID(len(c.docs) + i), o.Chunks, o.Checks})
			}
			b.ReportAllocs()
			var out *Slice
			var alloc uint64
			b.ResetTimer()
			for b.Loop() {
				alloc += allocBytes(func() { out, _ = base.Update(removed, added, tc.dfCap) })
			}
			p := float64(out.Postings())
			b.ReportMetric(p*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mpostings/s")
			b.ReportMetric(float64(alloc)/float64(b.N)/p, "alloc-B/posting")
		})
	}
}

// BenchmarkCount is a full self-join (every document counted against all)
// on one core, the shape of a full run's counting step.
// countBenchPostings is BenchmarkCount's index size: 3.2M postings (a
// 38 MB slice), or PLAGD_BENCH_COUNT_POSTINGS, for lookups into a slice
// the size of a real archive's (108M postings at 100k realistic documents:
// where the TLB, and huge pages, matter).
func countBenchPostings() int {
	if n, err := strconv.Atoi(os.Getenv("PLAGD_BENCH_COUNT_POSTINGS")); err == nil && n > 0 {
		return n
	}
	return 3_200_000
}

func BenchmarkCount(b *testing.B) {
	for _, tc := range []struct {
		name   string
		shared float64
		dfCap  int
	}{
		{"realistic/nocap", 0.4, 0},
		{"realistic/dfCap=100", 0.4, 100},
		{"zipf/dfCap=100", -0.15, 100},
		{"zipf/dfCap=1000", -0.15, 1000},
	} {
		b.Run(tc.name, func(b *testing.B) {
			c := makeBenchCorpus(countBenchPostings(), 1000, tc.shared)
			s := BuildSlice(0, 1<<28, c.docs)
			cnt := NewCounter(DocID(len(c.docs)))
			var pairs []Pair
			b.ReportAllocs()
			start := time.Now()
			for b.Loop() {
				for _, d := range c.docs {
					s.Count(cnt, d.Doc, d.Chunks, d.Checks, tc.dfCap)
					pairs = cnt.Drain(pairs[:0], 1)
				}
			}
			perDoc := time.Since(start).Seconds() / float64(b.N) / float64(len(c.docs))
			b.ReportMetric(perDoc*1e6, "µs/doc")
			b.ReportMetric(float64(c.postings)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mpostings/s")
			b.ReportMetric(df1Percent(s), "df1-%")
		})
	}
}

func BenchmarkTopK(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	ms := make([]Match, 100_000)
	for i := range ms {
		ms[i] = Match{Other: int64(i + 1), Shared: uint32(rng.ExpFloat64() * 20)}
	}
	work := make([]Match, len(ms))
	b.ReportAllocs()
	for b.Loop() {
		copy(work, ms)
		TopK(work, 100)
	}
}
