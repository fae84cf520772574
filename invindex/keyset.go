package invindex

import (
	"math/bits"
	"slices"
)

// KeySet is an immutable set of chunk IDs, small next to a slice (the
// chunks over a df cap, say), tested once per chunk of a counted document:
// a one-hash filter (16 bits per key) answers most absent chunks with one
// load, and a binary search the rest. A nil *KeySet is the empty set.
type KeySet struct {
	keys   []uint32 // strictly ascending
	filter []uint64
	shift  uint
}

// NewKeySet returns the set of keys, which must be strictly ascending; the
// set keeps keys (the caller must not modify it afterwards).
func NewKeySet(keys []uint32) *KeySet {
	fb := uint(max(bits.Len(uint(16*len(keys))), 6))
	s := &KeySet{keys: keys, filter: make([]uint64, 1<<(fb-6)), shift: 32 - fb}
	for _, k := range keys {
		h := s.hash(k)
		s.filter[h>>6] |= 1 << (h & 63)
	}
	return s
}

func (s *KeySet) hash(k uint32) uint32 { return (k * 0x9e3779b1) >> s.shift }

// Len is the number of keys.
func (s *KeySet) Len() int {
	if s == nil {
		return 0
	}
	return len(s.keys)
}

// Keys returns the keys, ascending; the caller must not modify them.
func (s *KeySet) Keys() []uint32 {
	if s == nil {
		return nil
	}
	return s.keys
}

// Has reports whether k is in the set.
func (s *KeySet) Has(k uint32) bool {
	if s.Len() == 0 {
		return false
	}
	h := s.hash(k)
	if s.filter[h>>6]>>(h&63)&1 == 0 {
		return false
	}
	_, ok := slices.BinarySearch(s.keys, k)
	return ok
}

// Without appends to dstC and dstK the chunks of chunks (with their
// fingerprints checks) that are not in s, in order, and returns them. It
// is how a caller counts a document without the chunks of a set: the
// result is a subset of chunks, so Count's rules about self's chunks hold.
func (s *KeySet) Without(dstC []uint32, dstK []uint8, chunks []uint32, checks []uint8) ([]uint32, []uint8) {
	if s.Len() == 0 {
		return append(dstC, chunks...), append(dstK, checks...)
	}
	for i, c := range chunks {
		if !s.Has(c) {
			dstC = append(dstC, c)
			dstK = append(dstK, checks[i])
		}
	}
	return dstC, dstK
}

// KeysOver appends to dst the chunk IDs of s whose df (postings on the
// chunk ID, whatever their fingerprints, dead or alive) exceeds n, in
// ascending order. It is one pass over the keys and their offsets.
func (s *Slice) KeysOver(dst []uint32, n int) []uint32 {
	if n < 0 {
		n = 0
	}
	for i, k := range s.keys {
		if int(s.offs[i+1]-s.offs[i]) > n {
			dst = append(dst, k)
		}
	}
	return dst
}
