package bench

import (
	"cmp"
	"encoding/binary"
	"hash/fnv"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/plagd/plagd/internal/synth"
	"github.com/plagd/plagd/invindex"
)

// TestChancePairs measures what chunk fingerprints buy: on a synthetic
// archive, how many document pairs share a chunk although their texts share
// no 5-word window, with 28-bit chunk IDs alone and with IDs plus the 8-bit
// fingerprint. It is a measurement, run on demand:
//
//	PLAGD_NOISE_DOCS=20000 go test ./internal/bench -run ChancePairs -v
//
// A window is "really shared" when a 64-bit hash of its five word hashes,
// independent of plagd's chunk hash, is equal. The test asserts only what
// must hold at any size: fingerprints never lose a real pair and never add a
// chance one.
func TestChancePairs(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("PLAGD_NOISE_DOCS"))
	if n <= 0 {
		if testing.Short() {
			t.Skip("set PLAGD_NOISE_DOCS to measure")
		}
		n = 2000
	}
	opt := synth.Defaults()
	opt.MeanWords = 1000
	gen := synth.New(opt)
	p := invindex.DefaultParams()
	tok := invindex.NewTokenizer(p)

	type posting struct {
		key uint64
		doc uint32
	}
	var real []posting
	withFP := make([]invindex.DocChunks, n)
	idOnly := make([]invindex.DocChunks, n)
	var words []invindex.Word
	for i := range n {
		text := gen.Doc(i).Text
		_, chunks, checks := tok.DocChunks(text)
		withFP[i] = invindex.DocChunks{Doc: uint32(i), Chunks: chunks, Checks: checks}
		idOnly[i] = invindex.DocChunks{Doc: uint32(i), Chunks: chunks, Checks: make([]uint8, len(chunks))}
		words = tok.Words(text, words)
		var keys []uint64
		for j := 0; j+p.WindowWords <= len(words); j++ {
			h := fnv.New64a()
			var b [8]byte
			for _, w := range words[j : j+p.WindowWords] {
				binary.LittleEndian.PutUint64(b[:], w.Hash)
				h.Write(b[:])
			}
			keys = append(keys, h.Sum64())
		}
		slices.Sort(keys)
		for _, k := range slices.Compact(keys) {
			real = append(real, posting{k, uint32(i)})
		}
	}
	slices.SortFunc(real, func(a, b posting) int {
		if a.key != b.key {
			return cmp.Compare(a.key, b.key)
		}
		return int(a.doc) - int(b.doc)
	})
	realPairs := map[[2]uint32]bool{}
	for i := 0; i < len(real); {
		j := i
		for j < len(real) && real[j].key == real[i].key {
			j++
		}
		for a := i; a < j; a++ {
			for b := a + 1; b < j; b++ {
				realPairs[[2]uint32{real[a].doc, real[b].doc}] = true
			}
		}
		i = j
	}

	count := func(docs []invindex.DocChunks) (pairs, chance int, found map[[2]uint32]bool) {
		s := invindex.BuildSlice(0, p.SpaceSize(), docs)
		c := invindex.NewCounter(uint32(n))
		found = map[[2]uint32]bool{}
		for _, d := range docs {
			s.Count(c, d.Doc, d.Chunks, d.Checks, 0)
			for _, pr := range c.Drain(nil, 1) {
				if d.Doc < pr.Other {
					key := [2]uint32{d.Doc, pr.Other}
					pairs++
					if !realPairs[key] {
						chance++
					} else {
						found[key] = true
					}
				}
			}
		}
		return pairs, chance, found
	}
	pairsID, chanceID, foundID := count(idOnly)
	pairsFP, chanceFP, foundFP := count(withFP)
	t.Logf("%d documents (%d words/doc mean, chunk_bits %d): %d pairs really share a 5-word window", n, opt.MeanWords, p.ChunkBits, len(realPairs))
	t.Logf("chunk ID only:      %d pairs, %d by chance (%.2f per document)", pairsID, chanceID, 2*float64(chanceID)/float64(n))
	t.Logf("ID + fingerprint:   %d pairs, %d by chance (%.2f per document)", pairsFP, chanceFP, 2*float64(chanceFP)/float64(n))
	if len(foundFP) != len(foundID) {
		t.Errorf("fingerprints lost real pairs: %d found with them, %d without", len(foundFP), len(foundID))
	}
	if chanceFP > chanceID {
		t.Errorf("fingerprints added chance pairs: %d > %d", chanceFP, chanceID)
	}
}
