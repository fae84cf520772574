package invindex

import (
	"fmt"
	"math/bits"
)

// DocID is an internal document number: dense, recycled after deletion, and
// mapped to the external PostgreSQL id by a DocTable. Dense ids keep counters
// and bitsets plain arrays.
type DocID = uint32

// MaxSpace is the largest chunk-ID space (ChunkBits = 32). Ranges are uint64
// so that the last range can end at MaxSpace.
const MaxSpace = 1 << 32

// MaxDocs bounds the DocIDs an index can hold: a posting keeps the DocID in
// its top 24 bits and the chunk's fingerprint in the low 8 (see Posting),
// so DocIDs are below 2^24 (16,777,216 live documents, 14 times the largest
// archive plagd is designed for). DocTable.Assign refuses more.
const MaxDocs = 1 << 24

// Posting is one entry of a posting list: doc<<8 | fingerprint, the
// document containing the chunk and the fingerprint of the chunk in that
// document (WindowFingerprint). Sorted postings are sorted by document, the
// document being the high part, and a list holds each document once.
type Posting = uint32

// MakePosting packs a posting; doc must be below MaxDocs.
func MakePosting(doc DocID, check uint8) Posting { return doc<<8 | Posting(check) }

// PostingDoc is the document of a posting.
func PostingDoc(p Posting) DocID { return p >> 8 }

// PostingCheck is the chunk fingerprint of a posting.
func PostingCheck(p Posting) uint8 { return uint8(p) }

// DocChunks is one document's distinct chunk IDs (sorted ascending)
// restricted to a slice's range, with the fingerprint of each: Checks[i]
// belongs to Chunks[i] (Tokenizer.DocChunks). It is the unit the shuffle
// ships between nodes.
type DocChunks struct {
	Doc    DocID
	Chunks []uint32
	Checks []uint8
}

// Slice is the inverted index over the chunk-ID range [Lo, Hi): for every
// chunk ID the sorted list of documents containing it, each with the
// chunk's fingerprint in that document (a Posting). Immutable after
// construction (safe for concurrent readers); Update returns a new Slice so
// the committed generation survives until commit.
//
// The shape is the paper's Figure 1 made compact (see the package doc): only
// chunk IDs that have postings are stored, in the sorted keys array, with
// offsets[i]..offsets[i+1] delimiting their documents in docs. A directory
// over the top bits of the in-range chunk ID narrows a lookup to about eight
// keys. A dense offsets array over the whole space would cost 4 B per chunk ID
// (1 GiB at 28 bits) whether or not the archive is large.
type Slice struct {
	lo, hi uint64

	keys []uint32  // chunk IDs with at least one posting, strictly ascending
	offs []uint32  // len(keys)+1; postings of keys[i] are docs[offs[i]:offs[i+1]]
	docs []Posting // posting lists, each strictly ascending by document

	// dir[j] is the first i with (keys[i]-lo)>>dirShift >= j; len = buckets+1.
	dir      []uint32
	dirShift uint

	// maxDoc is 1 + the largest DocID posted (0 when empty), so a Counter
	// can be sized once per Count instead of checked per posting.
	maxDoc uint64
	// present holds the documents with postings here; multi is a one-hash
	// Bloom filter of the shared windows, chunk IDs with a fingerprint
	// that two postings or more carry (bit multiHash(c, check)). Count uses
	// them to skip an indexed document's unshared chunks, 86 % of all on
	// real corpora, without a lookup.
	present    *DocSet
	multi      []uint64
	multiShift uint // 64 - log2 of the filter's bits
}

// checkRange panics on a range no slice can have. Ranges come from
// SplitRange and Params, never from user input, so a bad one is a bug.
func checkRange(lo, hi uint64) {
	if lo > hi || hi > MaxSpace {
		panic(fmt.Sprintf("invindex: bad chunk range [%d, %d)", lo, hi))
	}
}

// NewSlice returns an empty slice over [lo, hi).
func NewSlice(lo, hi uint64) *Slice {
	checkRange(lo, hi)
	s := &Slice{lo: lo, hi: hi, offs: []uint32{0}}
	s.finish()
	return s
}

// Lo is the first chunk ID of the slice's range.
func (s *Slice) Lo() uint64 { return s.lo }

// Hi is the end of the slice's range (exclusive); it may be MaxSpace.
func (s *Slice) Hi() uint64 { return s.hi }

// Postings is the number of (chunk, doc) pairs.
func (s *Slice) Postings() int { return len(s.docs) }

// Keys is the number of distinct chunk IDs with postings.
func (s *Slice) Keys() int { return len(s.keys) }

// Bytes is the memory held by the slice's arrays, for the bytes-per-posting
// metric.
func (s *Slice) Bytes() int {
	return 4*(len(s.keys)+len(s.offs)+len(s.docs)+len(s.dir)) + 8*(len(s.multi)+len(s.present.words))
}

// Lookup returns the sorted documents containing chunk with any
// fingerprint, nil if none or if chunk is outside the range. The result is
// freshly allocated; LookupPostings is the allocation-free form.
func (s *Slice) Lookup(chunk uint32) []DocID {
	ps := s.LookupPostings(chunk)
	if ps == nil {
		return nil
	}
	ds := make([]DocID, len(ps))
	for i, p := range ps {
		ds[i] = PostingDoc(p)
	}
	return ds
}

// LookupPostings returns chunk's postings (documents with the chunk's
// fingerprint in each), sorted by document, nil if none or if chunk is
// outside the range. The result aliases the slice: do not modify it. A
// caller matching a window keeps only the postings whose PostingCheck
// equals the window's fingerprint.
func (s *Slice) LookupPostings(chunk uint32) []Posting {
	i, ok := s.find(chunk)
	if !ok {
		return nil
	}
	a, b := s.offs[i], s.offs[i+1]
	return s.docs[a:b:b]
}

// DF is chunk's document frequency in this slice (0 outside the range),
// whatever the fingerprints: the df cap counts every document posting on
// the chunk ID, so its cost bound and semantics do not depend on them.
func (s *Slice) DF(chunk uint32) int {
	i, ok := s.find(chunk)
	if !ok {
		return 0
	}
	return int(s.offs[i+1] - s.offs[i])
}

// find returns the index of chunk in keys.
func (s *Slice) find(chunk uint32) (int, bool) {
	c := uint64(chunk)
	if c < s.lo || c >= s.hi {
		return 0, false
	}
	j := (c - s.lo) >> s.dirShift
	a, end := int(s.dir[j]), int(s.dir[j+1])
	b := end
	for a < b {
		m := int(uint(a+b) >> 1)
		if s.keys[m] < chunk {
			a = m + 1
		} else {
			b = m
		}
	}
	return a, a < end && s.keys[a] == chunk
}

// widthBits is the number of bits of an in-range offset (chunk - lo).
func widthBits(lo, hi uint64) uint {
	if hi-lo <= 1 {
		return 0
	}
	return uint(bits.Len64(hi - lo - 1))
}

// buildDir derives the directory from keys. It is never stored in files: it
// costs one pass over keys and keeps the format free of redundant data.
func (s *Slice) buildDir() {
	wb := widthBits(s.lo, s.hi)
	var db uint // 2^db directory buckets, about eight keys each
	if k := len(s.keys); k >= 16 {
		db = uint(bits.Len(uint(k/8))) - 1
	}
	db = min(db, wb)
	s.dirShift = wb - db
	n := 1
	if s.hi > s.lo {
		n = int((s.hi-s.lo-1)>>s.dirShift) + 1
	}
	dir := make([]uint32, n+1)
	j := 0
	for i, k := range s.keys {
		b := int((uint64(k) - s.lo) >> s.dirShift)
		for j <= b {
			dir[j] = uint32(i)
			j++
		}
	}
	for ; j <= n; j++ {
		dir[j] = uint32(len(s.keys))
	}
	s.dir = dir
}

// finish derives the lookup structures from keys, offs and docs: the
// directory, maxDoc, the set of documents present, and the filter of chunks
// with df >= 2. None of them is stored in files; together they cost one
// pass over the arrays and well under 1 B per posting.
func (s *Slice) finish() {
	present := NewDocSet(0)
	for _, p := range s.docs {
		present.Add(PostingDoc(p))
	}
	s.finishWith(present)
}

// finishWith is finish when the caller knows the set of documents with
// postings (BuildSlice and Update know it from their input, in time
// proportional to the documents instead of the postings).
func (s *Slice) finishWith(present *DocSet) {
	s.buildDir()
	s.present = present
	s.maxDoc = 0
	for w := len(present.words) - 1; w >= 0; w-- {
		if x := present.words[w]; x != 0 {
			s.maxDoc = uint64(w)*64 + uint64(bits.Len64(x))
			break
		}
	}
	// The filter holds the windows that are shared: a chunk ID with a
	// fingerprint that two postings or more carry. A chunk whose ID others
	// post on only with other fingerprints (other windows whose hash
	// collided in the ID bits, a third of all IDs at 100k documents and
	// nearly all at 1M) counts for nothing, and is skipped like a df = 1
	// chunk.
	multi := 0
	s.eachShared(func(uint32, uint8) { multi++ })
	// 16 bits per shared window: an unshared one passes by mistake with
	// probability about 1/16, and the filter stays small.
	fb := uint(max(bits.Len(uint(16*multi)), 6))
	s.multi = make([]uint64, 1<<(fb-6))
	s.multiShift = 64 - fb
	s.eachShared(func(k uint32, check uint8) {
		h := s.multiHash(k, check)
		s.multi[h>>6] |= 1 << (h & 63)
	})
}

// eachShared calls fn with every window (chunk ID and fingerprint) that
// at least two postings carry, once each.
func (s *Slice) eachShared(fn func(chunk uint32, check uint8)) {
	for i, k := range s.keys {
		ps := s.docs[s.offs[i]:s.offs[i+1]]
		switch {
		case len(ps) < 2:
		case len(ps) == 2:
			if PostingCheck(ps[0]) == PostingCheck(ps[1]) {
				fn(k, PostingCheck(ps[0]))
			}
		default:
			var seen, twice [4]uint64
			for _, p := range ps {
				c := PostingCheck(p)
				w, b := c>>6, uint64(1)<<(c&63)
				twice[w] |= seen[w] & b
				seen[w] |= b
			}
			for w, m := range twice {
				for ; m != 0; m &= m - 1 {
					fn(k, uint8(w<<6|bits.TrailingZeros64(m)))
				}
			}
		}
	}
}

// multiHash maps a window (chunk ID and fingerprint) to a bit of the multi
// filter.
func (s *Slice) multiHash(c uint32, check uint8) uint64 { return multiBit(c, check, s.multiShift) }

// multiBit is multiHash with the filter's shift at hand (Count's loop
// keeps it in a register): multiplicative hashing of the window's 40 bits.
func multiBit(c uint32, check uint8, shift uint) uint64 {
	return (uint64(c)<<8 | uint64(check)) * 0x9e3779b97f4a7c15 >> shift
}

// validate checks every structural invariant. ReadSlice calls it so that a
// file with a valid checksum but inconsistent content (a writer bug, a
// crafted file) is refused instead of causing out-of-range panics later;
// tests call it on every slice they build.
func (s *Slice) validate() error {
	if s.lo > s.hi || s.hi > MaxSpace {
		return fmt.Errorf("bad range [%d, %d)", s.lo, s.hi)
	}
	if len(s.offs) != len(s.keys)+1 {
		return fmt.Errorf("%d offsets for %d keys", len(s.offs), len(s.keys))
	}
	if s.offs[0] != 0 || int(s.offs[len(s.keys)]) != len(s.docs) {
		return fmt.Errorf("offsets span [%d, %d), want [0, %d)", s.offs[0], s.offs[len(s.keys)], len(s.docs))
	}
	for i, k := range s.keys {
		if uint64(k) < s.lo || uint64(k) >= s.hi {
			return fmt.Errorf("key %d (%d) outside [%d, %d)", i, k, s.lo, s.hi)
		}
		if i > 0 && k <= s.keys[i-1] {
			return fmt.Errorf("keys %d and %d out of order", i-1, i)
		}
		a, b := s.offs[i], s.offs[i+1]
		if b <= a || int(b) > len(s.docs) {
			return fmt.Errorf("key %d (%d) has postings [%d, %d) of %d", i, k, a, b, len(s.docs))
		}
		for p := a + 1; p < b; p++ {
			if PostingDoc(s.docs[p]) <= PostingDoc(s.docs[p-1]) {
				return fmt.Errorf("postings of chunk %d out of order", k)
			}
		}
	}
	return nil
}
