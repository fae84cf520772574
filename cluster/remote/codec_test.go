package remote

import (
	"bytes"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/plagd/plagd/internal/testseed"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/cluster/nodepb"
	"github.com/plagd/plagd/invindex"
)

func seed(t *testing.T) uint64 { t.Helper(); return testseed.Seed(t) }

// withPart runs f with a message budget of n bytes.
func withPart(t *testing.T, n int) {
	old := maxPart
	maxPart = n
	t.Cleanup(func() { maxPart = old })
}

func randLen(rng *rand.Rand) int {
	switch rng.IntN(4) {
	case 0:
		return 0
	case 1:
		return rng.IntN(3)
	case 2:
		return rng.IntN(40)
	}
	return rng.IntN(400)
}

func TestU32sRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(seed(t), 1))
	for range 200 {
		vs := make([]uint32, randLen(rng))
		for i := range vs {
			vs[i] = rng.Uint32()
		}
		b := putU32s(nil, vs)
		if len(b) != 4*len(vs) {
			t.Fatalf("%d values packed into %d bytes", len(vs), len(b))
		}
		for i, v := range vs { // little-endian on the wire whatever the host
			if b[4*i] != byte(v) || b[4*i+3] != byte(v>>24) {
				t.Fatalf("value %d not little-endian", i)
			}
		}
		got, err := getU32s(nil, b, "x")
		if err != nil || !slices.Equal(got, vs) && len(vs) > 0 {
			t.Fatalf("round trip of %v: %v, %v", vs, got, err)
		}
	}
	if _, err := getU32s(nil, []byte{1, 2, 3}, "x"); err == nil {
		t.Fatal("3 bytes accepted as u32s")
	}
}

func TestSplitCoversEverything(t *testing.T) {
	rng := rand.New(rand.NewPCG(seed(t), 2))
	for range 500 {
		lens := make([]int, rng.IntN(20))
		for i := range lens {
			lens[i] = randLen(rng)
		}
		perList, perElem, limit := 1+rng.IntN(12), 1+rng.IntN(8), 1+rng.IntN(300)
		msgs := split(lens, perList, perElem, limit)
		next := make([]int, len(lens)) // next expected element per list
		seen := make([]bool, len(lens))
		last := -1
		for _, m := range msgs {
			if len(m) == 0 {
				t.Fatal("empty message")
			}
			size := 0
			for j, p := range m {
				if p.from > 0 && j > 0 {
					t.Fatalf("continued piece %+v not first in its message", p)
				}
				if p.list < last || p.from != next[p.list] || p.to < p.from || p.to > lens[p.list] {
					t.Fatalf("piece %+v out of order (lens %v)", p, lens)
				}
				last, next[p.list], seen[p.list] = p.list, p.to, true
				size += perList + (p.to-p.from)*perElem
			}
			if size > limit && len(m) > 1 {
				t.Fatalf("message of %d bytes over limit %d with %d pieces", size, limit, len(m))
			}
			if size > max(limit, perList+perElem) && len(m) == 1 && m[0].to-m[0].from > 1 {
				t.Fatalf("single piece of %d bytes over limit %d", size, limit)
			}
		}
		for i := range lens {
			if !seen[i] || next[i] != lens[i] {
				t.Fatalf("list %d (len %d) covered to %d, seen %v", i, lens[i], next[i], seen[i])
			}
		}
	}
}

func TestChunkListsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(seed(t), 3))
	for _, part := range []int{1 << 20, 64, 13} {
		withPart(t, part)
		for range 100 {
			docs := make([]invindex.DocChunks, rng.IntN(12))
			words := make([]int, len(docs))
			for i := range docs {
				n := randLen(rng)
				docs[i] = invindex.DocChunks{Doc: rng.Uint32(), Chunks: make([]uint32, n), Checks: make([]uint8, n)}
				for j := range n {
					docs[i].Chunks[j], docs[i].Checks[j] = rng.Uint32(), uint8(rng.Uint32())
				}
				words[i] = rng.IntN(1 << 20)
			}
			if rng.IntN(3) == 0 && len(docs) > 1 {
				docs[1].Doc = docs[0].Doc // the same doc twice in a row stays two lists
			}
			for _, w := range [][]int{words, nil} {
				var u chunkUnpacker
				for _, m := range packChunkLists(docs, w) {
					if err := u.add(m); err != nil {
						t.Fatal(err)
					}
				}
				if len(u.docs) != len(docs) {
					t.Fatalf("part %d: %d lists back, sent %d", part, len(u.docs), len(docs))
				}
				for i := range docs {
					g, d := u.docs[i], docs[i]
					if g.Doc != d.Doc || !slices.Equal(g.Chunks, d.Chunks) || !bytes.Equal(g.Checks, d.Checks) {
						t.Fatalf("part %d: list %d differs", part, i)
					}
				}
				if w != nil && !slices.Equal(u.words, words) {
					t.Fatalf("part %d: words %v, sent %v", part, u.words, words)
				}
			}
		}
	}
}

func TestPairListsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(seed(t), 4))
	for _, part := range []int{1 << 20, 64, 9} {
		withPart(t, part)
		for range 100 {
			docs := make([]invindex.DocID, rng.IntN(12))
			lists := make([][]invindex.Pair, len(docs))
			for i := range docs {
				docs[i] = rng.Uint32()
				for range randLen(rng) {
					lists[i] = append(lists[i], invindex.Pair{Other: rng.Uint32(), Shared: rng.Uint32()})
				}
			}
			var u pairUnpacker
			for _, m := range packPairLists(docs, lists) {
				if err := u.add(m); err != nil {
					t.Fatal(err)
				}
			}
			if !slices.Equal(u.docs, docs) || len(u.lists) != len(lists) {
				t.Fatalf("part %d: docs %v, sent %v", part, u.docs, docs)
			}
			for i := range lists {
				if !slices.Equal(u.lists[i], lists[i]) {
					t.Fatalf("part %d: list %d differs", part, i)
				}
			}
		}
	}
}

func TestTextsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(seed(t), 5))
	for _, part := range []int{1 << 20, 50, 9} {
		withPart(t, part)
		for range 100 {
			batch := make([]cluster.Text, rng.IntN(8))
			for i := range batch {
				b := make([]byte, randLen(rng))
				for j := range b {
					b[j] = byte(rng.Uint32())
				}
				batch[i] = cluster.Text{Doc: rng.Uint32N(5), Text: string(b)} // repeated doc IDs too
			}
			var parts []*nodepb.TextPart
			for _, m := range packTexts(batch) {
				parts = append(parts, m...)
			}
			got, err := unpackTexts(parts)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, batch) && len(batch) > 0 {
				t.Fatalf("part %d: texts differ", part)
			}
		}
	}
}

func TestBlobRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(seed(t), 6))
	withPart(t, 100)
	for range 50 {
		data := make([]byte, randLen(rng)*3)
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		var msgs []*nodepb.Blob
		w := &blobWriter{gen: 42, send: func(b *nodepb.Blob) error {
			if len(b.Data) > maxPart {
				t.Fatalf("blob of %d bytes", len(b.Data))
			}
			msgs = append(msgs, &nodepb.Blob{Gen: b.Gen, Data: slices.Clone(b.Data)})
			return nil
		}}
		for b := data; len(b) > 0; {
			k := min(len(b), 1+rng.IntN(250))
			w.Write(b[:k])
			b = b[k:]
		}
		if err := w.flush(true); err != nil || len(msgs) == 0 {
			t.Fatalf("flush: %v, %d messages", err, len(msgs))
		}
		i := 0
		r := &blobReader{recv: func() (*nodepb.Blob, error) {
			if i == len(msgs) {
				return nil, io.EOF
			}
			i++
			return msgs[i-1], nil
		}}
		var got bytes.Buffer
		if _, err := got.ReadFrom(r); err != nil || !bytes.Equal(got.Bytes(), data) || r.gen != 42 {
			t.Fatalf("blob round trip: %v, %d of %d bytes, gen %d", err, got.Len(), len(data), r.gen)
		}
	}
}
