package termstat

import (
	"encoding/hex"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/plagd/plagd/internal/testseed"
)

// The stored form of the near-duplicate and related-documents models. These
// bytes were written by the daemon before the statistics moved here: a model
// stored then must decode, and a model stored now must read the same.
func TestEncodingPinned(t *testing.T) {
	d := NewDocFreq()
	d.Add([]TermCount{{1, 3}, {0x0102030405060708, 1}, {1 << 63, 2}})
	d.Add([]TermCount{{1, 1}, {0x0102030405060708, 1}, {7, 2}})
	d.Add([]TermCount{{1, 1}, {1 << 63, 5}})
	tb := d.Freeze()
	const stored = "010000000000000003000000" + "080706050403020102000000" + "000000000000008002000000"
	if got := hex.EncodeToString(tb.Encode()); got != stored {
		t.Fatalf("Encode = %s\nwant     %s", got, stored)
	}
	b, _ := hex.DecodeString(stored)
	back, err := Decode(3, b)
	if err != nil {
		t.Fatal(err)
	}
	// IDF values the daemon computed from these bytes before the move.
	for _, c := range []struct {
		term     uint64
		table, d float64
	}{
		{1, 1, 1},
		{7, 1.6931471805599454, 1.6931471805599454}, // in one document: not stored, df 1
		{0x0102030405060708, 1.2876820724517808, 1.2876820724517808},
		{1 << 63, 1.2876820724517808, 1.2876820724517808},
		{99, 1.6931471805599454, 2.3862943611198908}, // never seen: df 1 in a table, 0 in a DocFreq
	} {
		if got := back.IDF(c.term); got != c.table {
			t.Errorf("Table.IDF(%d) = %v, want %v", c.term, got, c.table)
		}
		if got := tb.IDF(c.term); got != c.table {
			t.Errorf("Freeze().IDF(%d) = %v, want %v", c.term, got, c.table)
		}
		if got := d.IDF(c.term); got != c.d {
			t.Errorf("DocFreq.IDF(%d) = %v, want %v", c.term, got, c.d)
		}
	}
	if back.Len() != 3 || back.DF(7) != 1 || back.DF(1) != 3 {
		t.Errorf("decoded %d terms, DF(7) %d, DF(1) %d", back.Len(), back.DF(7), back.DF(1))
	}
	var zero Table
	if len(zero.Encode()) != 0 {
		t.Error("the zero table encodes to bytes")
	}
	if e, err := Decode(0, nil); err != nil || e.Len() != 0 {
		t.Errorf("Decode(nil) = %d terms, %v", e.Len(), err)
	}
	for _, bad := range []string{stored[:22], stored[24:48] + stored[:24]} {
		b, _ := hex.DecodeString(bad)
		if _, err := Decode(3, b); err == nil {
			t.Errorf("Decode(%s) accepted", bad)
		}
	}
}

func TestCount(t *testing.T) {
	got := Count([]uint64{5, 3, 5, 9, 3, 5}, nil)
	want := []TermCount{{3, 2}, {5, 3}, {9, 1}}
	if !slices.Equal(got, want) {
		t.Fatalf("Count = %v, want %v", got, want)
	}
	if got := Count(nil, got); len(got) != 0 {
		t.Fatalf("Count(nil) = %v", got)
	}
}

// TestCountEqualsSortAndRun: Count against its definition (the hashes
// sorted, each run of one hash counted), on documents of every size around
// SortByTerm's thresholds whose words repeat as a text's do, and on hashes
// that share their top bits (one bucket for all) or differ only there.
func TestCountEqualsSortAndRun(t *testing.T) {
	r := testseed.Rand(t)
	// In a fixed order, so that a seed replays the same hashes.
	gens := []struct {
		name string
		gen  func(vocab []uint64) uint64
	}{
		{"zipf", func(vocab []uint64) uint64 {
			return vocab[min(len(vocab)-1, int(r.ExpFloat64()*float64(len(vocab))/8))]
		}},
		{"uniform", func([]uint64) uint64 { return r.Uint64() }},
		{"top bits", func(vocab []uint64) uint64 { return 0xabc<<52 | vocab[r.IntN(len(vocab))]>>12 }},
		{"only top", func(vocab []uint64) uint64 { return vocab[r.IntN(len(vocab))] &^ (1<<58 - 1) }},
	}
	for _, g := range gens {
		name, gen := g.name, g.gen
		for _, n := range []int{0, 1, 2, 31, 33, 63, 64, 65, 100, 1000, 4097, 30000} {
			vocab := make([]uint64, 1+r.IntN(2*n+1))
			for i := range vocab {
				vocab[i] = r.Uint64()
			}
			hs := make([]uint64, n)
			for i := range hs {
				hs[i] = gen(vocab)
			}
			sorted := slices.Clone(hs)
			slices.Sort(sorted)
			var want []TermCount
			for _, h := range sorted {
				if k := len(want); k > 0 && want[k-1].Term == h {
					want[k-1].Count++
					continue
				}
				want = append(want, TermCount{Term: h, Count: 1})
			}
			before := slices.Clone(hs)
			if got := Count(hs, nil); !slices.Equal(got, want) {
				t.Fatalf("%s, %d hashes: Count gives %d terms, want %d", name, n, len(got), len(want))
			}
			if !slices.Equal(hs, before) {
				t.Fatalf("%s, %d hashes: Count changed its input", name, n)
			}
		}
	}
}

func randomCounts(r *rand.Rand) []TermCount {
	hs := make([]uint64, 1+r.IntN(60))
	for i := range hs {
		hs[i] = r.Uint64N(700)
	}
	return Count(hs, nil)
}

// Documents added, removed and changed one by one, or as a Delta, give the
// document frequencies of a count of the final set, and so the same Table.
func TestIncrementalEqualsRecount(t *testing.T) {
	r := testseed.Rand(t)
	docs := map[int][]TermCount{}
	inc, batched := NewDocFreq(), NewDocFreq()
	next := 0
	for round := range 20 {
		delta := NewDelta()
		for range 1 + r.IntN(30) {
			switch op := r.IntN(4); {
			case op < 2 || len(docs) == 0: // add
				c := randomCounts(r)
				docs[next] = c
				next++
				inc.Add(c)
				delta.Add(c)
			case op == 2: // remove
				ids := slices.Sorted(maps.Keys(docs))
				id := ids[r.IntN(len(ids))]
				inc.Remove(docs[id])
				delta.Remove(docs[id])
				delete(docs, id)
			default: // change
				ids := slices.Sorted(maps.Keys(docs))
				id := ids[r.IntN(len(ids))]
				c := randomCounts(r)
				inc.Remove(docs[id])
				delta.Remove(docs[id])
				inc.Add(c)
				delta.Add(c)
				docs[id] = c
			}
		}
		batched.Apply(delta)
		full := NewDocFreq()
		for _, c := range docs {
			full.Add(c)
		}
		for name, d := range map[string]*DocFreq{"one by one": inc, "delta": batched} {
			if d.Docs != full.Docs || !maps.Equal(d.DF, full.DF) {
				t.Fatalf("round %d, %s: %d docs %d terms, recount %d docs %d terms", round, name, d.Docs, len(d.DF), full.Docs, len(full.DF))
			}
		}
		// Frozen, stored and read back: the frequencies of the terms in
		// two documents or more, 1 for the others.
		ft := full.Freeze()
		tb, err := Decode(full.Docs, ft.Encode())
		if err != nil {
			t.Fatal(err)
		}
		for term := range uint64(700) {
			want := max(1, int(full.DF[term]))
			if tb.DF(term) != want || ft.DF(term) != want {
				t.Fatalf("round %d: DF(%d) = %d (frozen %d), want %d", round, term, tb.DF(term), ft.DF(term), want)
			}
			if tb.IDF(term) != IDF(full.Docs, want) {
				t.Fatalf("round %d: IDF(%d)", round, term)
			}
		}
	}
}
