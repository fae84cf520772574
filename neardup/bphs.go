package neardup

// BPHS, block-permuted Hamming search (Manku, Jain, Das Sarma 2007), the
// exact method PSM is measured against. The 64 bits are split into G
// blocks; two hashes within distance h differ in at most h blocks, so they
// agree exactly on at least G-h blocks, hence on all g blocks of some
// choice of g <= G-h blocks. BPHS keeps T = C(G,g) sorted copies of the
// hashes, each with a different choice of g blocks permuted to the top,
// and finds every candidate by a binary search for the query's (equally
// permuted) header in each copy. Exact for every h <= G-g, at T times the
// RAM of the hashes.

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"sort"
)

// BPHS is an immutable set of T permuted tables. Safe for concurrent use.
type BPHS struct {
	G, Gh  int // blocks, header blocks
	tables []bphsTable
}

type bphsTable struct {
	perm       []blockMove
	headerBits int
	hashes     []uint64 // permuted, ascending
	ids        []uint32
}

// blockMove moves the bits of mask by shift (left if positive).
type blockMove struct {
	mask  uint64
	shift int
}

func (t *bphsTable) permute(x uint64) uint64 {
	var y uint64
	for _, m := range t.perm {
		if m.shift >= 0 {
			y |= (x & m.mask) << m.shift
		} else {
			y |= (x & m.mask) >> -m.shift
		}
	}
	return y
}

// NewBPHS builds the C(G,g) tables for entries; T = 4 is G=4, g=1 and T = 10
// is G=5, g=2, the two designs the seed measures for h = 3.
func NewBPHS(entries []Entry, G, g int) *BPHS {
	if G < 2 || G > 16 || g < 1 || g >= G {
		panic(fmt.Sprintf("neardup: bad BPHS design G=%d g=%d", G, g))
	}
	// Block b covers bits [lo[b], lo[b+1]) counted from the top, sizes
	// differing by at most one.
	lo := make([]int, G+1)
	for b := range G + 1 {
		lo[b] = b * Bits / G
	}
	blockMask := func(b int) uint64 { // block b in place
		w := lo[b+1] - lo[b]
		return (uint64(1)<<w - 1) << (Bits - lo[b+1])
	}
	x := &BPHS{G: G, Gh: g}
	for _, hdr := range combinations(G, g) {
		in := make([]bool, G)
		for _, b := range hdr {
			in[b] = true
		}
		order := slices.Clone(hdr)
		for b := range G {
			if !in[b] {
				order = append(order, b)
			}
		}
		t := bphsTable{}
		at := 0 // next free bit from the top
		for k, b := range order {
			w := lo[b+1] - lo[b]
			t.perm = append(t.perm, blockMove{blockMask(b), lo[b] - at})
			at += w
			if k == g-1 {
				t.headerBits = at
			}
		}
		es := make([]Entry, len(entries))
		for i, e := range entries {
			es[i] = Entry{t.permute(e.Hash), e.ID}
		}
		slices.SortFunc(es, func(a, b Entry) int {
			return cmp.Or(cmp.Compare(a.Hash, b.Hash), cmp.Compare(a.ID, b.ID))
		})
		t.hashes, t.ids = make([]uint64, len(es)), make([]uint32, len(es))
		for i, e := range es {
			t.hashes[i], t.ids[i] = e.Hash, e.ID
		}
		x.tables = append(x.tables, t)
	}
	return x
}

// combinations lists the g-subsets of 0..G-1 in lexicographic order.
func combinations(G, g int) [][]int {
	var out [][]int
	c := make([]int, g)
	var rec func(i, from int)
	rec = func(i, from int) {
		if i == g {
			out = append(out, slices.Clone(c))
			return
		}
		for b := from; b <= G-(g-i); b++ {
			c[i] = b
			rec(i+1, b+1)
		}
	}
	rec(0, 0)
	return out
}

// Tables is T.
func (x *BPHS) Tables() int { return len(x.tables) }

// Bytes is the RAM of the tables: T copies of hashes and IDs.
func (x *BPHS) Bytes() int {
	n := 0
	for _, t := range x.tables {
		n += 8*len(t.hashes) + 4*len(t.ids)
	}
	return n
}

// Query appends the stored hashes within h of q to dst. With first it stops
// at the first match (BPHS_F); otherwise it checks every table (BPHS_A) and
// reports each document once, in ascending ID order of the matches it
// appended. Exact when h <= G-g.
func (x *BPHS) Query(q uint64, h int, first bool, dst []Match) []Match {
	n0 := len(dst)
	for ti := range x.tables {
		t := &x.tables[ti]
		pq := t.permute(q)
		shift := Bits - t.headerBits
		hdr := pq >> shift
		lo := sort.Search(len(t.hashes), func(i int) bool { return t.hashes[i]>>shift >= hdr })
		for i := lo; i < len(t.hashes) && t.hashes[i]>>shift == hdr; i++ {
			if d := bits.OnesCount64(t.hashes[i] ^ pq); d <= h {
				dst = append(dst, Match{t.ids[i], x.unpermute(t, t.hashes[i]), d})
				if first {
					return dst
				}
			}
		}
	}
	// A pair agreeing on several header choices is found in several tables.
	m := dst[n0:]
	slices.SortFunc(m, func(a, b Match) int { return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(a.Hash, b.Hash)) })
	m = slices.Compact(m)
	return dst[:n0+len(m)]
}

func (x *BPHS) unpermute(t *bphsTable, y uint64) uint64 {
	var h uint64
	for _, m := range t.perm {
		if m.shift >= 0 {
			h |= (y >> m.shift) & m.mask
		} else {
			h |= (y << -m.shift) & m.mask
		}
	}
	return h
}
