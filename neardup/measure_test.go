package neardup

// Measurements for docs/NEARDUP.md (Sood and Loguinov, figures 3, 6, 7 and table 2),
// skipped unless PLAGD_NEARDUP_MEASURE=1. They print tables with t.Logf:
//
//	PLAGD_NEARDUP_MEASURE=1 go test ./neardup -run '^TestMeasureAttempts$' -v
//	PLAGD_NEARDUP_MEASURE=1 go test ./neardup -run '^TestMeasureScaling$' -v -timeout 1h
//	PLAGD_NEARDUP_MEASURE=1 go test ./neardup -run '^TestMeasurePrecisionRecall$' -v
//
// PLAGD_NEARDUP_MAXLOG caps the collection sizes of TestMeasureScaling
// (default 22: 2^16..2^22); PLAGD_NEARDUP_CORPUS points at a PAN-format
// corpus (default ../../shared/corpora/pan-id, relative to the package).

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plagd/plagd/internal/measure"
	"github.com/plagd/plagd/termstat"

	"github.com/plagd/plagd/invindex"
)

// Figure 3: header lookups (attempts) needed to reach 50/80/100 % recall
// of planted pairs at distance 1..h, flipping bits of the full 64-bit hash
// in VOSH order versus in a uniformly random order of all masks of weight
// 1..h. For the random order the position of a pair's mask is uniform over
// the L = sum_{i=1..h} C(64,i) masks, so reaching recall r takes r*L
// attempts in expectation (the quantile of a uniform); that is what is
// printed, alongside a simulated value with one random permutation rank
// per pair.
func TestMeasureAttempts(t *testing.T) {
	measure.Gate(t, "PLAGD_NEARDUP_MEASURE")
	const pairs = 2000
	r := rand.New(rand.NewPCG(7, 11))
	var train []Pair
	for range 20000 {
		a, c := plantedPair(r, 0.05+0.15*r.Float64())
		train = append(train, Pair{&a, &c})
	}
	m := LearnFlipModel(train)
	t.Logf("%-3s %-6s %10s %10s %10s | %12s %12s %12s", "h", "pairs", "VOSH 50%", "80%", "100%", "random 50%", "80%", "100%")
	var v VOSH
	for h := 1; h <= 3; h++ {
		L := 0
		for i := 1; i <= h; i++ {
			L += binom(Bits, i)
		}
		var vosh, rnd []int
		for len(vosh) < pairs {
			a, c := plantedPair(r, 0.05+0.15*r.Float64())
			diff := HashOf(&a) ^ HashOf(&c)
			if d := bits.OnesCount64(diff); d < 1 || d > h {
				continue
			}
			p := m.Probs(&c)
			v.Reset(p[:], h)
			k := 0
			for {
				mask, _, ok := v.Next()
				if !ok {
					t.Fatal("mask not generated")
				}
				k++
				if mask == diff {
					break
				}
			}
			vosh = append(vosh, k)
			rnd = append(rnd, 1+r.IntN(L))
		}
		slices.Sort(vosh)
		slices.Sort(rnd)
		q := func(xs []int, f float64) int { return xs[max(int(math.Ceil(f*float64(len(xs))))-1, 0)] }
		t.Logf("%-3d %-6d %10d %10d %10d | %12d %12d %12d   (expected random: %.0f %.0f %d; sim %d %d %d)",
			h, pairs, q(vosh, .5), q(vosh, .8), q(vosh, 1),
			int(math.Ceil(.5*float64(L))), int(math.Ceil(.8*float64(L))), L,
			.5*float64(L), .8*float64(L), L, q(rnd, .5), q(rnd, .8), q(rnd, 1))
	}
}

// Figure 7 / table 2: PSM at 95 % relative recall against BPHS with T=4
// and T=10, queries per second and RAM, for collection sizes 2^16..2^22,
// on the planted-pair workload of BenchmarkOnline (planted and fresh
// queries, all-matches and first-match). Queries are timed single-threaded
// in rounds over the query set; each cell is the median of 3 rounds.
func TestMeasureScaling(t *testing.T) {
	measure.Gate(t, "PLAGD_NEARDUP_MEASURE")
	maxLog := 22
	if e := os.Getenv("PLAGD_NEARDUP_MAXLOG"); e != "" {
		maxLog, _ = strconv.Atoi(e)
	}
	const reps = 10 // passes over the 2000 queries per round
	t.Logf("%-5s %-7s %-8s %4s %6s %10s %10s %12s %10s", "log2n", "mix", "method", "t", "budget", "recall", "queries/s", "RAM bytes", "B/hash")
	for lg := 16; lg <= maxLog; lg++ {
		start := time.Now()
		d := makeBenchData(1 << lg)
		build := time.Since(start)
		for _, mix := range []string{"planted", "fresh"} {
			qs, ps := d.queries, d.probs
			if mix == "fresh" {
				qs, ps = d.fresh, d.freshProbs
			}
			type method struct {
				name   string
				budget int
				recall float64
				bytes  int
				run    func(i int)
			}
			var s Searcher
			var buf []Match
			psm := func(first bool, budget int) func(int) {
				return func(i int) {
					buf, _ = s.Query(d.psm, qs[i], &ps[i], QueryOpts{H: benchH, Budget: budget, First: first}, buf[:0])
				}
			}
			bp := func(x *BPHS, first bool) func(int) {
				return func(i int) { buf = x.Query(qs[i], benchH, first, buf[:0]) }
			}
			ms := []method{
				{"PSM-A", d.budgetA, d.recallA, d.psm.Bytes(), psm(false, d.budgetA)},
				{"PSM-F", d.budgetF, d.recallF, d.psm.Bytes(), psm(true, d.budgetF)},
				{"BPHS4-A", 0, 1, d.bphs4.Bytes(), bp(d.bphs4, false)},
				{"BPHS4-F", 0, 1, d.bphs4.Bytes(), bp(d.bphs4, true)},
				{"BPHS10-A", 0, 1, d.bphs10.Bytes(), bp(d.bphs10, false)},
				{"BPHS10-F", 0, 1, d.bphs10.Bytes(), bp(d.bphs10, true)},
			}
			for _, me := range ms {
				var rounds []float64
				for range 3 {
					t0 := time.Now()
					for range reps {
						for i := range qs {
							me.run(i)
						}
					}
					rounds = append(rounds, float64(reps*len(qs))/time.Since(t0).Seconds())
				}
				slices.Sort(rounds)
				t.Logf("%-5d %-7s %-8s %4d %6d %10.3f %10.0f %12d %10.1f", lg, mix, me.name, d.psm.HeaderBits(),
					me.budget, me.recall, rounds[1], me.bytes, float64(me.bytes)/float64(len(d.entries)))
			}
		}
		t.Logf("log2n=%d: generated and indexed in %v", lg, build.Round(time.Second))
		d = nil
		runtime.GC()
	}
}

// Figure 6 on text: precision and recall of "Hamming distance <= h" as a
// detector of "cosine >= 0.9 of the TF-IDF vectors", over all pairs of a
// set of documents: the PAN-format corpus at hand (source and suspicious
// documents, plain text) and synthetic near-duplicates (Zipf texts and
// copies with 0-40 % of their words replaced, plus unrelated texts).
func TestMeasurePrecisionRecall(t *testing.T) {
	measure.Gate(t, "PLAGD_NEARDUP_MEASURE")
	tok := invindex.NewTokenizer(invindex.DefaultParams())
	corpus := os.Getenv("PLAGD_NEARDUP_CORPUS")
	if corpus == "" {
		corpus = filepath.Join("..", "..", "shared", "corpora", "pan-id")
	}
	texts, err := measure.PanTexts(corpus)
	if err != nil {
		t.Fatal(err)
	}
	if len(texts) == 0 {
		t.Fatalf("no corpus at %s", corpus)
	}
	prTable(t, "pan-id ("+strconv.Itoa(len(texts))+" documents)", tok, texts)

	// The corpus holds no near-duplicate documents (its plagiarism is
	// passages inside otherwise different texts), so it is also measured
	// with an edited copy of every document: 0-30 % of its lines replaced
	// by lines of other documents of the corpus, real text throughout.
	r := rand.New(rand.NewPCG(5, 8))
	var lines []string
	for _, s := range texts {
		lines = append(lines, strings.Split(s, "\n")...)
	}
	withCopies := slices.Clone(texts)
	for _, s := range texts {
		ls := strings.Split(s, "\n")
		f := 0.3 * r.Float64()
		for i := range ls {
			if r.Float64() < f {
				ls[i] = lines[r.IntN(len(lines))]
			}
		}
		withCopies = append(withCopies, strings.Join(ls, "\n"))
	}
	prTable(t, "pan-id + an edited copy of each ("+strconv.Itoa(len(withCopies))+" documents)", tok, withCopies)

	z := rand.NewZipf(r, 1.1, 2, 50000)
	var syn []string
	for i := range 300 {
		base := zipfText(r, z, 300+r.IntN(1500), 1+i)
		syn = append(syn, strings.Join(base, " "))
		if i%3 != 2 { // two thirds get an edited copy
			syn = append(syn, strings.Join(edit(r, z, base, 0.4*r.Float64()), " "))
		}
	}
	prTable(t, "synthetic ("+strconv.Itoa(len(syn))+" documents, 200 edited pairs)", tok, syn)
}

func prTable(t *testing.T, name string, tok *invindex.Tokenizer, texts []string) {
	feats := make([][]Feature, len(texts))
	df := termstat.NewDocFreq()
	for i, s := range texts {
		feats[i] = TermCounts(tok.Words(s, nil), nil)
		df.Add(feats[i])
	}
	hs := make([]uint64, len(texts))
	for i := range feats {
		hs[i], _ = Simhash(feats[i], df)
	}
	const maxH = 6
	var tp, fp [maxH + 1]int
	pos, pairs := 0, 0
	var hist [8]int    // cosine deciles >= 0.3
	var posDist [8]int // Hamming distance of the positives, 7 = 7 or more
	for i := range feats {
		for j := i + 1; j < len(feats); j++ {
			pairs++
			c := Cosine(feats[i], feats[j], df)
			if c >= 0.3 {
				hist[min(int((c-0.3)*10), 7)]++
			}
			d := bits.OnesCount64(hs[i] ^ hs[j])
			near := c >= 0.9
			if near {
				pos++
				posDist[min(d, 7)]++
			}
			for h := 1; h <= maxH; h++ {
				if d <= h {
					if near {
						tp[h]++
					} else {
						fp[h]++
					}
				}
			}
		}
	}
	t.Logf("%s: %d pairs, %d with cosine >= 0.9; cosine histogram [0.3,0.4)..[1.0]: %v; positives by Hamming distance 0..6, >=7: %v",
		name, pairs, pos, hist, posDist)
	t.Logf("%-3s %8s %8s %10s %8s", "h", "TP", "FP", "precision", "recall")
	for h := 1; h <= maxH; h++ {
		prec, rec := math.NaN(), math.NaN()
		if tp[h]+fp[h] > 0 {
			prec = float64(tp[h]) / float64(tp[h]+fp[h])
		}
		if pos > 0 {
			rec = float64(tp[h]) / float64(pos)
		}
		t.Logf("%-3d %8d %8d %10.3f %8.3f", h, tp[h], fp[h], prec, rec)
	}
}
