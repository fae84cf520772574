package termstat

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// TermCount is one distinct term of a document and how often it occurs.
type TermCount struct {
	Term  uint64
	Count uint32
}

// Count appends the distinct terms of hs to dst[:0], ascending, with how
// often each occurs; hs is left as it is. Sorted counts make the
// floating-point sums over a document independent of word order, and let two
// documents be merged term by term.
func Count(hs []uint64, dst []TermCount) []TermCount {
	dst = dst[:0]
	for _, h := range hs {
		dst = append(dst, TermCount{Term: h, Count: 1})
	}
	return Merge(dst)
}

// Merge sorts tc by term (SortByTerm) and merges the entries of each term
// into one, adding their counts, in place: a document's occurrences, one
// entry each, become its distinct terms with their counts. SortByTerm's
// buckets take a realistic document's word hashes about twice as fast as
// sorting the bare hashes did (BenchmarkTermCounts in neardup).
func Merge(tc []TermCount) []TermCount {
	SortByTerm(tc)
	out := tc[:0]
	for _, t := range tc {
		if n := len(out); n > 0 && out[n-1].Term == t.Term {
			out[n-1].Count += t.Count
			continue
		}
		out = append(out, t)
	}
	return out
}

// IDF is the smoothed inverse document frequency ln((1+docs)/(1+df)) + 1 of
// a term found in df of docs documents: positive for every term, largest
// for a term never seen, so a new word counts like the rarest one.
func IDF(docs, df int) float64 {
	return math.Log(float64(1+docs)/float64(1+df)) + 1
}

// DocFreq counts, for each term, the documents it occurs in. It is updated
// document by document (Add, Remove) or by a Delta computed elsewhere (a
// worker goroutine, a node process, an incremental run). Not safe for
// concurrent use.
type DocFreq struct {
	Docs int
	DF   map[uint64]uint32
}

// NewDocFreq returns an empty DocFreq.
func NewDocFreq() *DocFreq { return &DocFreq{DF: make(map[uint64]uint32)} }

// Add counts one document given its distinct terms (Count's output).
func (d *DocFreq) Add(terms []TermCount) {
	d.Docs++
	for _, t := range terms {
		d.DF[t.Term]++
	}
}

// Remove undoes Add for a deleted or changed document.
func (d *DocFreq) Remove(terms []TermCount) {
	d.Docs--
	for _, t := range terms {
		if c := d.DF[t.Term]; c <= 1 {
			delete(d.DF, t.Term)
		} else {
			d.DF[t.Term] = c - 1
		}
	}
}

// Apply adds a Delta (upserting Delta.DF into a table does the same in SQL).
func (d *DocFreq) Apply(x *Delta) {
	d.Docs += x.Docs
	for t, n := range x.DF {
		if c := int64(d.DF[t]) + int64(n); c <= 0 {
			delete(d.DF, t)
		} else {
			d.DF[t] = uint32(c)
		}
	}
}

// IDF is the IDF of term over the documents counted.
func (d *DocFreq) IDF(term uint64) float64 { return IDF(d.Docs, int(d.DF[term])) }

// Delta is a signed change of document frequencies: the documents added and
// removed by one batch.
type Delta struct {
	Docs int
	DF   map[uint64]int32
}

// NewDelta returns an empty Delta.
func NewDelta() *Delta { return &Delta{DF: make(map[uint64]int32)} }

// Add records an added document.
func (x *Delta) Add(terms []TermCount) { x.add(terms, 1) }

// Remove records a removed document (for a changed one: Remove the old
// terms, Add the new).
func (x *Delta) Remove(terms []TermCount) { x.add(terms, -1) }

func (x *Delta) add(terms []TermCount, s int32) {
	x.Docs += int(s)
	for _, t := range terms {
		if c := x.DF[t.Term] + s; c == 0 {
			delete(x.DF, t.Term)
		} else {
			x.DF[t.Term] = c
		}
	}
}

// Table is a frozen DocFreq: the document count and the terms seen in at
// least two documents with their frequencies, as sorted arrays. A term seen
// in one document only is not stored: it weighs the same as a term never
// seen (df 1), which is what a rare term should weigh, and it keeps the
// table to the terms that can make two documents alike. The zero Table has
// no documents and no terms.
type Table struct {
	Docs  int
	terms []uint64 // ascending
	df    []uint32
	// A hash index of terms (slot: index in terms + 1, 0 empty; built by
	// Freeze and Decode, nil in a zero Table) and the IDF of each term over
	// idfDocs documents: a lookup is one or two cache lines instead of a
	// binary search and a logarithm. The values are those IDF computes.
	idx     []uint32
	shift   uint8
	idf     []float64
	idf1    float64 // IDF of a term not stored (df 1)
	idfDocs int
}

// index builds the hash index and the IDFs.
func (t *Table) index() {
	if len(t.terms) == 0 {
		return
	}
	n := 1
	for n < 2*len(t.terms) {
		n *= 2
	}
	t.idx = make([]uint32, n)
	t.shift = uint8(64 - bits.TrailingZeros(uint(n)))
	mask := uint64(n - 1)
	for i, k := range t.terms {
		j := t.slot(k)
		for t.idx[j] != 0 {
			j = (j + 1) & mask
		}
		t.idx[j] = uint32(i + 1)
	}
	t.idfDocs = t.Docs
	t.idf = make([]float64, len(t.terms))
	for i, n := range t.df {
		t.idf[i] = IDF(t.Docs, int(n))
	}
	t.idf1 = IDF(t.Docs, 1)
}

func (t *Table) slot(term uint64) uint64 { return term * 0x9e3779b97f4a7c15 >> t.shift }

// find is the index of term in terms, or -1.
func (t *Table) find(term uint64) int {
	if t.idx == nil {
		if i, ok := slices.BinarySearch(t.terms, term); ok {
			return i
		}
		return -1
	}
	mask := uint64(len(t.idx) - 1)
	for j := t.slot(term); ; j = (j + 1) & mask {
		i := t.idx[j]
		if i == 0 {
			return -1
		}
		if t.terms[i-1] == term {
			return int(i - 1)
		}
	}
}

// Freeze returns the Table of d as it is now.
func (d *DocFreq) Freeze() Table {
	t := Table{Docs: d.Docs}
	for k, n := range d.DF {
		if n >= 2 {
			t.terms = append(t.terms, k)
		}
	}
	slices.Sort(t.terms)
	t.df = make([]uint32, len(t.terms))
	for i, k := range t.terms {
		t.df[i] = d.DF[k]
	}
	t.index()
	return t
}

// Len is the number of terms stored.
func (t *Table) Len() int { return len(t.terms) }

// DF is the document frequency of term as the table knows it: 1 if not
// stored.
func (t *Table) DF(term uint64) int {
	if i := t.find(term); i >= 0 {
		return int(t.df[i])
	}
	return 1
}

// IDF is the IDF of term over the documents counted, with the table's DF.
func (t *Table) IDF(term uint64) float64 {
	if t.idx == nil || t.Docs != t.idfDocs {
		return IDF(t.Docs, t.DF(term))
	}
	if i := t.find(term); i >= 0 {
		return t.idf[i]
	}
	return t.idf1
}

// entry is the size of one encoded term: its hash and its frequency.
const entry = 12

// Encode is the stored form of the terms: for each, ascending, the term as a
// little-endian uint64 and its frequency as a little-endian uint32. The
// document count is not part of it (the daemon stores it in a column).
func (t *Table) Encode() []byte {
	b := make([]byte, 0, entry*len(t.terms))
	for i, k := range t.terms {
		b = binary.LittleEndian.AppendUint64(b, k)
		b = binary.LittleEndian.AppendUint32(b, t.df[i])
	}
	return b
}

// Decode reads what Encode wrote back into a Table over docs documents. It
// refuses a length that is not a whole number of terms and terms that are
// not strictly ascending (lookups would miss them).
func Decode(docs int, b []byte) (Table, error) {
	if len(b)%entry != 0 {
		return Table{}, fmt.Errorf("document frequencies: %d bytes is not a whole number of entries", len(b))
	}
	n := len(b) / entry
	t := Table{Docs: docs, terms: make([]uint64, n), df: make([]uint32, n)}
	for i := range n {
		t.terms[i] = binary.LittleEndian.Uint64(b[entry*i:])
		t.df[i] = binary.LittleEndian.Uint32(b[entry*i+8:])
		if i > 0 && t.terms[i] <= t.terms[i-1] {
			return Table{}, errors.New("document frequencies are not sorted")
		}
	}
	t.index()
	return t, nil
}
