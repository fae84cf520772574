package engine

// idSet is a set of document ids asked about every document of the
// archive, or every member of every held related list, in an incremental
// run: a million and thirty million questions at 1M documents, about a
// thousand ids in the set. Ids come from one sequence, so the set is a
// bitmap over the range of its own ids, one load and a bit test per
// question; Go's map took 1.1 s of the 1M incremental run's related phase
// for the same answers. Ids spread too far apart for a bitmap (more than
// maxIDSetSpan between the lowest and the highest) are kept in a map.
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
