package remote

import (
	"context"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/internal/testseed"
	"github.com/plagd/plagd/invindex"
	"github.com/plagd/plagd/related"
	"github.com/plagd/plagd/termstat"
)

func randomVectors(r *rand.Rand, n, vocab, terms int) []related.Vector {
	out := make([]related.Vector, n)
	for i := range out {
		tc := make([]related.TermCount, 0, terms)
		seen := map[uint64]bool{}
		for range 1 + r.IntN(terms) {
			t := uint64(r.IntN(vocab))
			if !seen[t] {
				seen[t] = true
				tc = append(tc, related.TermCount{Term: t, Count: uint32(1 + r.IntN(4))})
			}
		}
		out[i] = related.ModelFrom(1, termstat.Table{}, 0).Vector(sortTerms(tc))
	}
	return out
}

func sortTerms(tc []related.TermCount) []related.TermCount {
	for i := 1; i < len(tc); i++ {
		for j := i; j > 0 && tc[j].Term < tc[j-1].Term; j-- {
			tc[j], tc[j-1] = tc[j-1], tc[j]
		}
	}
	return tc
}

// TestRemote_RelatedSameAsLocal: a join shipped to a node, in messages
// split small, gives the lists of the join run in place, for both methods
// and with and without SameAs.
func TestRemote_RelatedSameAsLocal(t *testing.T) {
	r := testseed.Rand(t)
	old := maxPart
	maxPart = 512 // force many parts and many reply messages
	defer func() { maxPart = old }()
	addr, _ := startServer(t, cluster.NewLocalNode(0, invindex.DefaultParams().SpaceSize()), Security{Insecure: true})
	c := dial(t, addr, Security{Insecure: true}, Options{})
	data := randomVectors(r, 300, 200, 30)
	queries := randomVectors(r, 40, 200, 30)
	same := make([]int32, 40)
	for i := range same {
		same[i] = -1
		if i%2 == 0 {
			queries[i] = data[i*3]
			same[i] = int32(i * 3)
		}
	}
	for _, method := range []string{"exact", "zolip"} {
		for _, s := range [][]int32{nil, same} {
			j := cluster.RelatedJob{K: 5, Method: method, Lambda: 8, Sigma: 0.8, Data: data, Queries: queries, Same: s}
			got, err := c.Related(context.Background(), j)
			if err != nil {
				t.Fatal(err)
			}
			if want, _ := cluster.RunRelated(context.Background(), j); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s (same %v): remote lists differ from local ones", method, s != nil)
			}
		}
	}
	// A malformed job is refused.
	if _, err := c.Related(context.Background(), cluster.RelatedJob{K: 0, Method: "exact"}); err == nil {
		t.Fatal("a job with k = 0 was accepted")
	}
}
