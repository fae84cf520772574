package cluster_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/invindex"
)

// benchDocs makes n documents of about 300 distinct chunks in [0, 2^24):
// one in ten from 3,000 boilerplate chunks (df in the hundreds, over any
// small cap), one in five from 200,000 shared chunks (df about 6), the rest
// unique, as on a real archive.
func benchDocs(rng *rand.Rand, first, n int) []invindex.DocChunks {
	docs := make([]invindex.DocChunks, n)
	for i := range docs {
		set := map[uint32]bool{}
		for len(set) < 300 {
			var c uint32
			switch r := rng.IntN(10); {
			case r == 0:
				c = uint32(rng.IntN(3000)) * 5591
			case r < 3:
				c = uint32(rng.IntN(200_000))*83 + 1
			default:
				c = rng.Uint32() >> 8
			}
			set[c&(1<<24-1)] = true
		}
		chunks := make([]uint32, 0, len(set))
		for c := range set {
			chunks = append(chunks, c)
		}
		slices.Sort(chunks)
		docs[i] = invindex.DocChunks{Doc: invindex.DocID(first + i), Chunks: chunks, Checks: make([]uint8, len(chunks))}
	}
	return docs
}

// benchNode is a node holding 20,000 such documents (generation 1) and the
// 200 modified documents of an incremental run on top.
func benchNode(b *testing.B, dfCap int) (*cluster.LocalNode, []invindex.DocChunks) {
	b.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	p := invindex.Params{WindowWords: 5, ChunkBits: 24}
	n := cluster.NewLocalNode(0, 1<<24)
	all := benchDocs(rng, 0, 20_000)
	if err := n.Begin(ctx, cluster.RunSpec{Run: 1, Params: p, DFCap: dfCap, Full: true}, nil); err != nil {
		b.Fatal(err)
	}
	if err := n.Deliver(ctx, all, true); err != nil {
		b.Fatal(err)
	}
	if _, err := n.Build(ctx); err != nil {
		b.Fatal(err)
	}
	if err := n.Commit(ctx, 1); err != nil {
		b.Fatal(err)
	}
	mod := benchDocs(rng, 0, 200)
	for i := range mod {
		mod[i].Doc = invindex.DocID(i * 100)
	}
	return n, mod
}

// beginRun starts the incremental run modifying mod on n and builds it.
func beginRun(b *testing.B, n *cluster.LocalNode, mod []invindex.DocChunks, dfCap int) {
	ctx := context.Background()
	removed := make([]invindex.DocID, len(mod))
	for i, d := range mod {
		removed[i] = d.Doc
	}
	spec := cluster.RunSpec{Run: 2, Base: 1, Params: invindex.Params{WindowWords: 5, ChunkBits: 24}, DFCap: dfCap}
	if err := n.Begin(ctx, spec, removed); err != nil {
		b.Fatal(err)
	}
	if err := n.Deliver(ctx, mod, true); err != nil {
		b.Fatal(err)
	}
	if _, err := n.Build(ctx); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkLocalNode_IncrementalBuild: a node's Build for an incremental
// run modifying 200 of 20,000 documents (6M postings), without and with a
// df cap.
func BenchmarkLocalNode_IncrementalBuild(b *testing.B) {
	for _, dfCap := range []int{0, 50} {
		b.Run(fmt.Sprintf("dfcap=%d", dfCap), func(b *testing.B) {
			n, mod := benchNode(b, dfCap)
			b.ResetTimer()
			for range b.N {
				beginRun(b, n, mod, dfCap)
				if err := n.Abort(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLocalNode_Count: a node's Count of the 200 modified documents
// of that run (base, tombstones and delta, or a compacted base), per batch
// of 200.
func BenchmarkLocalNode_Count(b *testing.B) {
	for _, dfCap := range []int{0, 50} {
		b.Run(fmt.Sprintf("dfcap=%d", dfCap), func(b *testing.B) {
			n, mod := benchNode(b, dfCap)
			beginRun(b, n, mod, dfCap)
			docs := make([]invindex.DocID, len(mod))
			for i, d := range mod {
				docs[i] = d.Doc
			}
			b.ResetTimer()
			for range b.N {
				// Count releases what it counted: deliver the lists again,
				// untimed, as an incremental run delivers them once.
				b.StopTimer()
				if err := n.Deliver(context.Background(), mod, false); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if _, err := n.Count(context.Background(), docs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
