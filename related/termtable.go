package related

// termTable maps term hashes to dense numbers: open addressing with linear
// probing over a power-of-two array. Interning a join's terms looks up
// every term of every document twice (count, then translate); with Go's
// map that was 2.1-2.4 s of an incremental run's 100,000-document join (30
// million lookups of 49,000 distinct terms). The keys are hashes already,
// so one multiply spreads them, and the slots of the common terms stay in
// cache.
type termTable struct {
	keys []uint64
	vals []int32 // -1: empty slot
	mask uint64
	n    int
}

func newTermTable(hint int) *termTable {
	size := 1024
	for size < 2*hint {
		size *= 2
	}
	h := &termTable{keys: make([]uint64, size), vals: make([]int32, size), mask: uint64(size - 1)}
	for i := range h.vals {
		h.vals[i] = -1
	}
	return h
}

func (h *termTable) home(term uint64) uint64 { return (term * 0x9e3779b97f4a7c15) >> 32 & h.mask }

// slot returns the slot of term, inserting it (value 0) when absent;
// added says it was.
func (h *termTable) slot(term uint64) (i int, added bool) {
	for j := h.home(term); ; j = (j + 1) & h.mask {
		switch {
		case h.vals[j] < 0:
			if 2*(h.n+1) > len(h.keys) {
				h.grow()
				return h.slot(term)
			}
			h.keys[j], h.vals[j] = term, 0
			h.n++
			return int(j), true
		case h.keys[j] == term:
			return int(j), false
		}
	}
}

// get returns the value of term, which must be present.
func (h *termTable) get(term uint64) int32 {
	for i := h.home(term); ; i = (i + 1) & h.mask {
		switch {
		case h.vals[i] < 0:
			panic("related: term not interned")
		case h.keys[i] == term:
			return h.vals[i]
		}
	}
}

func (h *termTable) grow() {
	old := *h
	*h = *newTermTable(len(old.keys))
	for i, v := range old.vals {
		if v >= 0 {
			j, _ := h.slot(old.keys[i])
			h.vals[j] = v
		}
	}
}

// each calls fn with every term and its value.
func (h *termTable) each(fn func(term uint64, v int32)) {
	for i, v := range h.vals {
		if v >= 0 {
			fn(h.keys[i], v)
		}
	}
}
