package routing

// Measurements for docs/ROUTING.md (Bhagwat et al., figures 4-7 and the routing
// lemma), skipped unless PLAGD_ROUTING_MEASURE=1. They print tables with
// t.Logf:
//
//	PLAGD_ROUTING_MEASURE=1 go test ./routing -run '^TestMeasureReal$' -v
//	PLAGD_ROUTING_MEASURE=1 go test ./routing -run '^TestMeasureGenerated$' -v -timeout 1h
//
// PLAGD_ROUTING_CORPUS points at a PAN-format corpus (default
// ../../shared/corpora/pan-id, relative to the package); PLAGD_ROUTING_DOCS
// is the size of the generated archive (default 100000) and
// PLAGD_ROUTING_QUERIES the size of the held-out query set of the generated archive (default 2000, random).
//
// The set-up is the paper's (section 4): a random query set Fq is held out of
// the corpus, the rest Fd is the repository, every query is answered by the
// monolithic index (K = 1) and by Routed(K, m) with the same m for ingestion
// and query, and the monolithic answer is the standard. Because a partition
// receives all the features of every document routed to it, Routed(K, m)
// answers exactly the monolithic matches whose routes meet the query's, with
// the same Jaccard; the grid is computed that way from the routes, and
// measureCheck builds the real Routed for a few (K, m) and requires the
// same answers and partition sizes.

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
	"sync"
	"testing"
	"time"

	"github.com/plagd/plagd/internal/measure"

	"github.com/plagd/plagd/internal/synth"
)

var (
	measKs = []int{1, 2, 4, 8, 16, 32, 64, 128}
	measMs = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
)

// TestMeasureReal runs the grid on a PAN-format corpus cut into segments:
// paragraphs (split at blank lines) joined until a segment has at least
// PLAGD_ROUTING_SEGMENT bytes (default 2000, about 20 chunks). The corpus is
// too small for the paper's random held-out queries to find anything, so the
// queries are the segments of the suspicious documents (which carry the
// plagiarised passages) and the repository is the segments of the sources:
// the live check's own situation.
func TestMeasureReal(t *testing.T) {
	measure.Gate(t, "PLAGD_ROUTING_MEASURE")
	dir := os.Getenv("PLAGD_ROUTING_CORPUS")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "corpora", "pan-id")
	}
	seg := measure.EnvInt("PLAGD_ROUTING_SEGMENT", 2000)
	var items [][]uint64
	var qs []int
	docs := 0
	for _, sub := range []string{"source-documents", "suspicious-documents"} {
		files, _ := filepath.Glob(filepath.Join(dir, sub, "*.txt"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			docs++
			add := func(text string) {
				if sub == "suspicious-documents" {
					qs = append(qs, len(items))
				}
				items = append(items, Features([]byte(text), DefaultParams))
			}
			var cur strings.Builder
			for _, para := range strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n\n") {
				cur.WriteString(para)
				cur.WriteString("\n\n")
				if len(strings.TrimSpace(cur.String())) >= seg {
					add(cur.String())
					cur.Reset()
				}
			}
			if s := strings.TrimSpace(cur.String()); s != "" {
				add(s)
			}
		}
	}
	if len(items) == 0 {
		t.Skipf("no corpus at %s", dir)
	}
	t.Logf("corpus %s: %d documents, %d segments of >= %d bytes, %d of them (suspicious) queries", dir, docs, len(items), seg, len(qs))
	measRun(t, items, qs)
}

// TestMeasureGenerated runs the grid on a synth archive with planted
// near-copies: 400-word mean length, 10 % near-duplicates and 20 % copiers
// (defaults otherwise).
func TestMeasureGenerated(t *testing.T) {
	measure.Gate(t, "PLAGD_ROUTING_MEASURE")
	n := measure.EnvInt("PLAGD_ROUTING_DOCS", 100000)
	opt := synth.Options{Seed: 1, MeanWords: 400, NearDupShare: 0.10, CopyShare: 0.20}
	g := synth.New(opt)
	t.Logf("synth %s, %d documents", g.Options(), n)
	start := time.Now()
	items := make([][]uint64, n)
	var wg sync.WaitGroup
	w := runtime.GOMAXPROCS(0)
	nbytes := make([]int, w)
	for k := range w {
		wg.Go(func() {
			for i := k; i < n; i += w {
				d := g.Doc(i)
				nbytes[k] += len(d.Text)
				items[i] = Features([]byte(d.Text), DefaultParams)
			}
		})
	}
	wg.Wait()
	tb := 0
	for _, b := range nbytes {
		tb += b
	}
	t.Logf("generated and featured %d documents (%.0f MB) in %v", n, float64(tb)/1e6, time.Since(start).Round(time.Millisecond))
	nq := min(measure.EnvInt("PLAGD_ROUTING_QUERIES", 2000), n/5)
	rng := rand.New(rand.NewPCG(1, 2))
	qs := rng.Perm(n)[:nq]
	slices.Sort(qs)
	measRun(t, items, qs)
}

// measCell is one (K, m) cell of the grid.
type measCell struct {
	avgBest            float64 // mean best Jaccard over all queries (0: no answer), fig 4
	recall, top20      float64 // mean over queries with a monolithic answer, fig 5
	ident, disj        float64 // share of those queries, fig 6
	best50             float64 // best match found, among queries with best >= 0.5
	keys, keysMax      float64 // mean and largest partition keys / monolithic keys, fig 7
	posts, postsMax    float64 // the same for postings
	candsPerQ, candsMo float64 // mean answer size routed and monolithic
	// pairs found / monolithic pairs, for pairs with Jaccard >= measThr[i]
	strong [len(measThr)]float64
}

var measThr = [...]float64{0.1, 0.2, 0.3, 0.5}

// measRun holds the items qs out as queries, indexes the rest and measures
// the grid.
func measRun(t *testing.T, items [][]uint64, qs []int) {
	start := time.Now()
	isQ := make([]bool, len(items))
	for _, i := range qs {
		isQ[i] = true
	}
	// Fd: the rest, with dense ids for the feature bitmaps of figure 7.
	var fd []int
	for i := range items {
		if !isQ[i] && len(items[i]) > 0 {
			fd = append(fd, i)
		}
	}
	fid := make(map[uint64]int32)
	dense := make([][]int32, len(items))
	monoPosts := 0
	mono := NewPartition()
	for _, d := range fd {
		fs := items[d]
		ids := make([]int32, len(fs))
		for j, f := range fs {
			id, ok := fid[f]
			if !ok {
				id = int32(len(fid))
				fid[f] = id
			}
			ids[j] = id
		}
		dense[d] = ids
		monoPosts += len(fs)
		mono.Add(DocID(d), fs)
	}
	monoKeys := len(fid)
	feats := 0
	for _, fs := range items {
		feats += len(fs)
	}
	t.Logf("Fd = %d items (%d distinct features, %d postings), Fq = %d queries; mean %.1f features per item",
		len(fd), monoKeys, monoPosts, len(qs), float64(feats)/float64(len(items)))
	// Monolithic answers (K = 1), in parallel.
	ans := make([][]Match, len(qs))
	var wg sync.WaitGroup
	w := runtime.GOMAXPROCS(0)
	for k := range w {
		wg.Go(func() {
			for j := k; j < len(qs); j += w {
				ans[j] = mono.Query(items[qs[j]])
			}
		})
	}
	wg.Wait()
	answered, hi, cands := 0, 0, 0
	var avgMono float64
	for _, a := range ans {
		cands += len(a)
		if len(a) > 0 {
			answered++
			avgMono += a[0].Jaccard
			if a[0].Jaccard >= 0.5 {
				hi++
			}
		}
	}
	avgMono /= float64(len(qs))
	t.Logf("monolithic: %d of %d queries answered, %d with best match >= 0.5; mean answer %.1f; mean best Jaccard %.4f (%v)",
		answered, len(qs), hi, float64(cands)/float64(len(qs)), avgMono, time.Since(start).Round(time.Millisecond))
	// Best-match similarity histogram of the queries.
	var hist [11]int
	for _, a := range ans {
		if len(a) == 0 {
			hist[10]++
			continue
		}
		hist[min(int(a[0].Jaccard*10), 9)]++
	}
	t.Logf("queries by best monolithic Jaccard: none %d | [0,.1) %d [.1,.2) %d [.2,.3) %d [.3,.4) %d [.4,.5) %d [.5,.6) %d [.6,.7) %d [.7,.8) %d [.8,.9) %d [.9,1] %d",
		hist[10], hist[0], hist[1], hist[2], hist[3], hist[4], hist[5], hist[6], hist[7], hist[8], hist[9])

	grid := make(map[[2]int]measCell)
	masks := make([][2]uint64, len(items))
	var route []int
	for _, k := range measKs {
		for _, m := range measMs {
			for i, fs := range items {
				var mk [2]uint64
				route = Route(fs, k, m, route)
				for _, p := range route {
					mk[p>>6] |= 1 << (p & 63)
				}
				masks[i] = mk
			}
			c := measCell{}
			c.candsMo = float64(cands) / float64(len(qs))
			n50 := 0
			var nStrong [len(measThr)]int
			var routed []Match
			for j, q := range qs {
				qm := masks[q]
				routed = routed[:0]
				for _, a := range ans[j] {
					dm := masks[a.Doc]
					if dm[0]&qm[0] != 0 || dm[1]&qm[1] != 0 {
						routed = append(routed, a)
					}
				}
				c.candsPerQ += float64(len(routed))
				for _, a := range ans[j] {
					dm := masks[a.Doc]
					hit := dm[0]&qm[0] != 0 || dm[1]&qm[1] != 0
					for i, th := range measThr {
						if a.Jaccard >= th {
							nStrong[i]++
							if hit {
								c.strong[i]++
							}
						}
					}
				}
				if len(routed) > 0 {
					c.avgBest += routed[0].Jaccard
				}
				a := ans[j]
				if len(a) == 0 {
					continue
				}
				c.recall += float64(len(routed)) / float64(len(a))
				top := a[:min(20, len(a))]
				got := 0
				for _, x := range top {
					if slices.ContainsFunc(routed, func(y Match) bool { return y.Doc == x.Doc }) {
						got++
					}
				}
				c.top20 += float64(got) / float64(len(top))
				m2, r2 := a[:min(2, len(a))], routed[:min(2, len(routed))]
				in := 0
				for _, x := range m2 {
					if slices.ContainsFunc(r2, func(y Match) bool { return y.Doc == x.Doc }) {
						in++
					}
				}
				if in == len(m2) && len(r2) == len(m2) {
					c.ident++
				}
				if in == 0 {
					c.disj++
				}
				if a[0].Jaccard >= 0.5 {
					n50++
					if len(routed) > 0 && routed[0].Jaccard == a[0].Jaccard {
						c.best50++
					}
				}
			}
			c.avgBest /= float64(len(qs))
			for i := range c.strong {
				c.strong[i] /= float64(max(nStrong[i], 1))
			}
			c.candsPerQ /= float64(len(qs))
			c.recall /= float64(answered)
			c.top20 /= float64(answered)
			c.ident /= float64(answered)
			c.disj /= float64(answered)
			if n50 > 0 {
				c.best50 /= float64(n50)
			} else {
				c.best50 = math.NaN()
			}
			// Figure 7: keys (distinct features) and postings per partition.
			keys, posts := measSizes(fd, dense, masks, items, monoKeys, k)
			for p := range k {
				kp := float64(keys[p]) / float64(monoKeys)
				pp := float64(posts[p]) / float64(monoPosts)
				c.keys += kp / float64(k)
				c.posts += pp / float64(k)
				c.keysMax = max(c.keysMax, kp)
				c.postsMax = max(c.postsMax, pp)
			}
			grid[[2]int{k, m}] = c
		}
	}
	measPrint(t, grid, avgMono)
	measBound(t, items, qs, ans)
	measCheck(t, items, fd, dense, monoKeys, qs, ans)
	t.Logf("total %v", time.Since(start).Round(time.Millisecond))
}

// measSizes counts the keys and postings of each of the k partitions of
// Routed(k, m) over fd, from the documents' route masks.
func measSizes(fd []int, dense [][]int32, masks [][2]uint64, items [][]uint64, nkeys, k int) (keys, posts []int) {
	keys, posts = make([]int, k), make([]int, k)
	fm := make([][2]uint64, nkeys)
	for _, d := range fd {
		mk := masks[d]
		for _, id := range dense[d] {
			fm[id][0] |= mk[0]
			fm[id][1] |= mk[1]
		}
		for h := range 2 {
			for b := mk[h]; b != 0; b &= b - 1 {
				posts[h*64+bits.TrailingZeros64(b)] += len(items[d])
			}
		}
	}
	for _, mk := range fm {
		for h := range 2 {
			for b := mk[h]; b != 0; b &= b - 1 {
				keys[h*64+bits.TrailingZeros64(b)]++
			}
		}
	}
	return keys, posts
}

func measPrint(t *testing.T, grid map[[2]int]measCell, avgMono float64) {
	table := func(title string, f func(c measCell) float64, format string) {
		t.Logf("%s", title)
		h := "  K \\ m"
		for _, m := range measMs {
			h += strconv.Itoa(m)
			h += strings.Repeat(" ", 7-len(strconv.Itoa(m)))
		}
		t.Logf("%s", h)
		for _, k := range measKs {
			row := strconv.Itoa(k)
			row = strings.Repeat(" ", 5-len(row)) + row + "  "
			for _, m := range measMs {
				s := formatF(f(grid[[2]int{k, m}]), format)
				row += s + strings.Repeat(" ", max(1, 7-len(s)))
			}
			t.Logf("%s", row)
		}
	}
	t.Logf("Figure 4: mean best-match Jaccard, routed (monolithic %.4f)", avgMono)
	table("", func(c measCell) float64 { return c.avgBest }, "4")
	table("Figure 5a: overall recall (routed answer / monolithic answer)", func(c measCell) float64 { return c.recall }, "3")
	table("Figure 5b: top-20 recall (monolithic top 20 found by routed)", func(c measCell) float64 { return c.top20 }, "3")
	for i, th := range measThr {
		table("Recall of the monolithic matches with Jaccard >= "+strconv.FormatFloat(th, 'f', 1, 64)+" (pairs found / pairs)", func(c measCell) float64 { return c.strong[i] }, "3")
	}
	table("Figure 6a: top-2 identical (share of answered queries)", func(c measCell) float64 { return c.ident }, "3")
	table("Figure 6b: top-2 disjoint (share of answered queries)", func(c measCell) float64 { return c.disj }, "3")
	table("Best match found, queries with monolithic best >= 0.5", func(c measCell) float64 { return c.best50 }, "4")
	table("Figure 7a: mean partition keys, % of monolithic keys", func(c measCell) float64 { return 100 * c.keys }, "2")
	table("Figure 7b: largest partition keys, % of monolithic keys", func(c measCell) float64 { return 100 * c.keysMax }, "2")
	table("Figure 7c: mean partition postings, % of monolithic postings", func(c measCell) float64 { return 100 * c.posts }, "2")
	table("Figure 7d: largest partition postings, % of monolithic postings", func(c measCell) float64 { return 100 * c.postsMax }, "2")
	table("Mean answer size (candidates per query)", func(c measCell) float64 { return c.candsPerQ }, "1")
}

func formatF(v float64, prec string) string {
	p, _ := strconv.Atoi(prec)
	return strconv.FormatFloat(v, 'f', p, 64)
}

// measBound checks the lemma: a pair with Jaccard s shares a partition with
// probability at least 1-(1-s)^m. The pairs are every (query, monolithic
// match) pair, binned by s; "bot" is the share whose bottom-m feature sets
// intersect (the lemma's event, K = infinity), "K128" the share whose routes
// meet at K = 128 (bottom-m intersection, or a collision mod K).
func measBound(t *testing.T, items [][]uint64, qs []int, ans [][]Match) {
	const nb = 10
	for _, m := range []int{1, 2, 3, 4, 6, 8, 10} {
		var n, bot, k128 [nb]int
		var bound [nb]float64
		var rq, rd []int
		for j, q := range qs {
			qf := items[q]
			qb := qf[:min(m, len(qf))]
			rq = Route(qf, 128, m, rq)
			for _, a := range ans[j] {
				b := min(int(a.Jaccard*nb), nb-1)
				n[b]++
				bound[b] += 1 - math.Pow(1-a.Jaccard, float64(m))
				df := items[a.Doc]
				if Shared(qb, df[:min(m, len(df))]) > 0 {
					bot[b]++
				}
				rd = Route(df, 128, m, rd)
				for _, p := range rd {
					if slices.Contains(rq, p) {
						k128[b]++
						break
					}
				}
			}
		}
		t.Logf("Lemma, m = %d:   s bin  pairs   1-(1-s)^m   bottom-m meet   routes meet (K=128)", m)
		for b := range nb {
			if n[b] == 0 {
				continue
			}
			f := float64(n[b])
			t.Logf("            [%.1f,%.1f) %7d   %.3f       %.3f           %.3f", float64(b)/nb, float64(b+1)/nb, n[b], bound[b]/f, float64(bot[b])/f, float64(k128[b])/f)
		}
	}
}

// measCheck builds the real Routed for a few (K, m) and requires the
// answers computed from the routes, and the partition sizes, to be its own.
func measCheck(t *testing.T, items [][]uint64, fd []int, dense [][]int32, nkeys int, qs []int, ans [][]Match) {
	for _, km := range [][2]int{{2, 1}, {16, 2}, {128, 4}} {
		start := time.Now()
		k, m := km[0], km[1]
		r := NewRouted(k, m)
		for _, d := range fd {
			r.Add(DocID(d), items[d])
		}
		var rq, rd []int
		for j, q := range qs {
			got := r.Query(items[q], 0)
			rq = Route(items[q], k, m, rq)
			var want []Match
			for _, a := range ans[j] {
				rd = Route(items[a.Doc], k, m, rd)
				if slices.ContainsFunc(rd, func(p int) bool { return slices.Contains(rq, p) }) {
					want = append(want, a)
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("K=%d m=%d query %d: Routed answers %d matches, routes give %d", k, m, q, len(got), len(want))
			}
		}
		masks := make([][2]uint64, len(items))
		for _, d := range fd {
			for _, p := range Route(items[d], k, m, nil) {
				masks[d][p>>6] |= 1 << (p & 63)
			}
		}
		keys, posts := measSizes(fd, dense, masks, items, nkeys, k)
		for p := range k {
			part := r.Partition(p)
			part.mu.RLock()
			nk := len(part.post)
			part.mu.RUnlock()
			if nk != keys[p] || part.Postings() != posts[p] {
				t.Fatalf("K=%d m=%d partition %d: %d keys %d postings, routes give %d and %d", k, m, p, nk, part.Postings(), keys[p], posts[p])
			}
		}
		t.Logf("check K=%d m=%d: Routed answers and partition sizes equal the route-filtered monolithic answers for all %d queries and %d partitions (%v)", k, m, len(qs), k, time.Since(start).Round(time.Millisecond))
	}
}
