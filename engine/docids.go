package engine

import "math"

// Lookups by document id for the loops of an incremental run that visit
// every document of the archive, or every member of every held related
// list: a million and thirty million lookups at 1M documents. Document ids
// come from one PostgreSQL sequence, so an archive's ids are nearly dense,
// and a table indexed by id - lo answers in one load where a binary search
// or a Go map costs a cache miss or several. denseIndex finds positions in
// a sorted list of ids; idSet tells members of a small set.

// idSet is a small set of document ids (a run's batch: about a thousand)
// as a bitmap over the range of its own ids: one load and a bit test per
// lookup. Asking Go maps the same took 1.1 s of CPU in the related phase
// of the 1M incremental run (its CPU profile); BenchmarkIDSet measures
// both. Ids spread too far apart for a bitmap (more than maxIDSetSpan
// between the lowest and the highest) are kept in a map.
type idSet struct {
	lo   int64
	bits []uint64
	m    map[int64]bool
}

// maxIDSetSpan bounds an idSet's bitmap at 16 MiB.
const maxIDSetSpan = 1 << 27

// newIDSet is the set of the ids of every list given.
func newIDSet(lists ...[]int64) idSet {
	var s idSet
	lo, hi, n := int64(0), int64(-1), 0
	for _, ids := range lists {
		for _, id := range ids {
			if n == 0 || id < lo {
				lo = id
			}
			if n == 0 || id > hi {
				hi = id
			}
			n++
		}
	}
	if n == 0 {
		return s
	}
	if span := uint64(hi - lo); span >= maxIDSetSpan {
		s.m = make(map[int64]bool, n)
		for _, ids := range lists {
			for _, id := range ids {
				s.m[id] = true
			}
		}
		return s
	}
	s.lo = lo
	s.bits = make([]uint64, (hi-lo)/64+1)
	for _, ids := range lists {
		for _, id := range ids {
			i := uint64(id - lo)
			s.bits[i/64] |= 1 << (i % 64)
		}
	}
	return s
}

// has reports whether id is in the set.
func (s idSet) has(id int64) bool {
	if s.m != nil {
		return s.m[id]
	}
	i := uint64(id - s.lo) // ids below lo wrap to a place past the bitmap
	return i/64 < uint64(len(s.bits)) && s.bits[i/64]&(1<<(i%64)) != 0
}

// denseIndex maps an id to its position in an ascending list of ids by
// one load: pos[id-lo] is the position + 1, 0 for an id not in the list,
// instead of a binary search whose every step may miss the cache (in the
// 1M incremental run's CPU profile all of relatedState.index's lookups
// took 0.2 s with it). Empty (find answers "not known") when the ids span
// more than four slots per id.
type denseIndex struct {
	lo  int64
	pos []int32
}

func newDenseIndex(ids []int64) denseIndex {
	if len(ids) == 0 || len(ids) > math.MaxInt32-1 {
		return denseIndex{}
	}
	lo, hi := ids[0], ids[len(ids)-1]
	if span := uint64(hi - lo); span >= 4*uint64(len(ids))+1024 {
		return denseIndex{}
	}
	x := denseIndex{lo: lo, pos: make([]int32, hi-lo+1)}
	for i, id := range ids {
		x.pos[id-lo] = int32(i + 1)
	}
	return x
}

// find returns id's position and true, (-1, true) for an id not in the
// list, or false when the index is empty.
func (x denseIndex) find(id int64) (int, bool) {
	if x.pos == nil {
		return 0, false
	}
	o := uint64(id - x.lo)
	if o >= uint64(len(x.pos)) {
		return -1, true
	}
	return int(x.pos[o]) - 1, true
}
