package invindex

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"
)

func TestDelta_RoundTripAndDamage(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	lo, hi := uint64(1<<20), uint64(1<<24)
	d := &Delta{Base: 42, BaseDocs: 17, Tombs: []DocID{1, 5, 9}}
	for doc := DocID(0); doc < 20; doc++ {
		n := rng.IntN(3000)
		if doc == 7 { // fingerprints longer than the decoder's 64 KiB buffer
			n = 70000
		}
		set := map[uint32]bool{}
		for len(set) < n {
			set[uint32(lo)+uint32(rng.IntN(int(hi-lo)))] = true
		}
		dc := DocChunks{Doc: doc * 3}
		for c := range set {
			dc.Chunks = append(dc.Chunks, c)
		}
		dc.Chunks = SortDistinct(dc.Chunks, nil)
		for range dc.Chunks {
			dc.Checks = append(dc.Checks, uint8(rng.IntN(256)))
		}
		d.Docs = append(d.Docs, dc)
	}
	h := Header{Params: DefaultParams(), HashVersion: HashVersion, Generation: 43, Instance: "db", Lo: lo, Hi: hi}
	var buf bytes.Buffer
	if err := WriteDelta(&buf, h, d); err != nil {
		t.Fatal(err)
	}
	gh, got, err := ReadDelta(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if gh != h || !reflect.DeepEqual(got, d) {
		t.Fatalf("round trip differs")
	}
	b := buf.Bytes()
	for _, off := range []int{3, 20, len(b) / 2, len(b) - 10} {
		bad := bytes.Clone(b)
		bad[off] ^= 0x40
		if _, _, err := ReadDelta(bytes.NewReader(bad)); err == nil {
			t.Errorf("flipped byte %d: no error", off)
		}
	}
	if _, _, err := ReadDelta(bytes.NewReader(b[:len(b)-5])); !errors.Is(err, ErrTruncated) {
		t.Errorf("truncated: %v, want ErrTruncated", err)
	}
	var table bytes.Buffer
	WriteDocTable(&table, h, NewDocTable())
	if _, _, err := ReadDelta(&table); !errors.Is(err, ErrNotIndex) {
		t.Errorf("document table read as delta: %v, want ErrNotIndex", err)
	}
}
