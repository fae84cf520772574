package routing_test

import (
	"fmt"
	"strings"

	"github.com/plagd/plagd/routing"
)

func Example() {
	original := strings.Repeat("The quick brown fox jumps over the lazy dog near the river bank. ", 3) +
		"Content defined chunking cuts text where the local bytes say so, not at fixed offsets. " +
		"Similar documents therefore share most chunks and most characteristic fingerprints."
	edited := strings.Replace(strings.ToUpper(original), "RIVER", "old  stone", 1)

	idx := routing.NewRouted(64, 3) // 64 partitions, routing factor 3
	idx.Add(1, routing.Features([]byte(original), routing.DefaultParams))

	q := routing.Features([]byte(edited), routing.DefaultParams)
	for _, m := range idx.Query(q, 0) {
		fmt.Printf("doc %d: %d shared features, Jaccard %.2f\n", m.Doc, m.Shared, m.Jaccard)
	}
	// Output: doc 1: 4 shared features, Jaccard 0.80
}
