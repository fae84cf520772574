package routing

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// checkChunks verifies that ends partitions data into chunks within the
// size bounds (the last may be shorter).
func checkChunks(t *testing.T, data []byte, p ChunkParams, ends []int) {
	t.Helper()
	if len(data) == 0 {
		if len(ends) != 0 {
			t.Fatalf("empty data: %d chunks", len(ends))
		}
		return
	}
	if len(ends) == 0 || ends[len(ends)-1] != len(data) {
		t.Fatalf("boundaries %v do not end at %d", ends, len(data))
	}
	prev := 0
	for i, e := range ends {
		n := e - prev
		if n < 1 || n > p.Max || (n < p.Min && i != len(ends)-1) {
			t.Fatalf("chunk %d/%d has length %d, want [%d, %d]", i, len(ends), n, p.Min, p.Max)
		}
		prev = e
	}
}

func TestChunks_Properties(t *testing.T) {
	g := newTextGen(1)
	rng := rand.New(rand.NewPCG(2, 3))
	params := []ChunkParams{
		DefaultChunkParams,
		{Min: 1, Max: 1, D: 3, Backup: 2, Window: 1},
		{Min: 5, Max: 9, D: 1000, Backup: 500, Window: 4}, // mostly forced cuts
		{Min: 8, Max: 64, D: 16, Backup: 8, Window: 8},
		{Min: 46, Max: 280, D: 54, Backup: 54, Window: 16},
	}
	for _, p := range params {
		for range 50 {
			var data []byte
			if rng.IntN(2) == 0 {
				data = g.doc(rng.IntN(3000))
			} else {
				data = make([]byte, rng.IntN(3000))
				for i := range data {
					data[i] = byte(rng.IntN(4)) // low entropy, long repeats
				}
			}
			ends := Chunks(data, p, nil)
			checkChunks(t, data, p, ends)
			if again := Chunks(data, p, ends[:0:0]); !slices.Equal(ends, again) {
				t.Fatalf("%+v: not deterministic", p)
			}
		}
	}
	checkChunks(t, nil, DefaultChunkParams, Chunks(nil, DefaultChunkParams, nil))
}

// TestChunks_Average checks that the defaults give the paper's ~100-byte
// chunks on prose.
func TestChunks_Average(t *testing.T) {
	data := newTextGen(4).doc(1 << 20)
	ends := Chunks(data, DefaultChunkParams, nil)
	avg := float64(len(data)) / float64(len(ends))
	t.Logf("average chunk %.1f bytes over %d chunks", avg, len(ends))
	if avg < 80 || avg > 120 {
		t.Errorf("average chunk %.1f bytes, want about 100", avg)
	}
}

// TestChunks_ContentDefined inserts bytes near the start: boundaries well
// after the edit must be the old ones, shifted by the insertion.
func TestChunks_ContentDefined(t *testing.T) {
	g := newTextGen(5)
	p := DefaultChunkParams
	for trial := range 20 {
		data := g.doc(20000)
		const at, ins = 60, 13
		edited := slices.Concat(data[:at], []byte("INSERTED TEXT"), data[at:])
		before := Chunks(data, p, nil)
		after := Chunks(edited, p, nil)
		shifted := make(map[int]bool, len(after))
		for _, e := range after {
			shifted[e-ins] = true
		}
		kept, total := 0, 0
		for _, e := range before {
			if e > at+2*p.Max {
				total++
				if shifted[e] {
					kept++
				}
			}
		}
		if kept*100 < total*95 {
			t.Fatalf("trial %d: %d of %d later boundaries preserved", trial, kept, total)
		}
	}
}

func TestChunks_InvalidPanics(t *testing.T) {
	for _, p := range []ChunkParams{
		{},
		{Min: 10, Max: 5, D: 4, Backup: 2, Window: 4},
		{Min: 4, Max: 10, D: 4, Backup: 2, Window: 5},
		{Min: 4, Max: 10, D: 0, Backup: 2, Window: 2},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%+v: no panic", p)
				}
			}()
			Chunks([]byte("abc"), p, nil)
		}()
	}
}
