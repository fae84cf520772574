package routing

// Feature extraction throughput and query cost, monolithic against routed.
// Run:
//
//	go test ./routing -run '^$' -bench . -benchmem
//
// The query corpus is benchDocs synthetic 4 KB documents with planted
// near-copies (makeCorpus); each iteration queries one of them. cands/op is
// the number of candidates returned, postings/op the posting entries of the
// partitions consulted (the work a query may touch).

import (
	"fmt"
	"sync"
	"testing"
)

const benchDocs = 10000

var (
	benchOnce   sync.Once
	benchCorpus *corpus
)

func BenchmarkFeatures(b *testing.B) {
	doc := newTextGen(30).doc(10000)
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		Features(doc, DefaultParams)
	}
}

func BenchmarkQuery(b *testing.B) {
	benchOnce.Do(func() { benchCorpus = makeCorpus(31, benchDocs, 4000) })
	c := benchCorpus
	for _, km := range [][2]int{{1, 1}, {16, 3}, {64, 1}, {64, 3}, {128, 5}} {
		k, m := km[0], km[1]
		r := NewRouted(k, m)
		for d, fs := range c.docs {
			r.Add(DocID(d), fs)
		}
		postings := make([]int, k)
		for i := range postings {
			postings[i] = r.Partition(i).Postings()
		}
		b.Run(fmt.Sprintf("K=%d/m=%d", k, m), func(b *testing.B) {
			cands, touched, i := 0, 0, 0
			for b.Loop() {
				q := c.docs[i%len(c.docs)]
				cands += len(r.Query(q, 0))
				for _, p := range Route(q, k, m, nil) {
					touched += postings[p]
				}
				i++
			}
			b.ReportMetric(float64(cands)/float64(i), "cands/op")
			b.ReportMetric(float64(touched)/float64(i), "postings/op")
		})
	}
}
