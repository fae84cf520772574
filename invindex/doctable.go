package invindex

import (
	"container/heap"
	"errors"
	"fmt"
)

// ErrTooManyDocs is returned by DocTable.Assign when every DocID below
// MaxDocs is in use. The master fails the run with it: the archive has
// outgrown what one index can address (see MaxDocs), and no partial run is
// committed.
var ErrTooManyDocs = errors.New("invindex: more live documents than the index can hold")

// DocTable maps internal DocIDs to external (PostgreSQL) ids and chunk
// counts, the denominator of sim(A→B) = shared / chunks(A).
//
// Internal ids are dense and recycled after deletion, lowest free id first
// (Kasprzak et al.): dense ids keep counters and bitsets small, and lowest-first
// keeps MaxID close to Len so those arrays do not grow with churn. Runs
// mutate a Clone; the committed table stays untouched until commit.
type DocTable struct {
	ext    []int64  // by DocID; 0 marks a free id
	chunks []uint32 // by DocID
	byExt  map[int64]DocID
	free   freeIDs // free ids below len(ext), a min-heap
	limit  int     // DocIDs are below limit; 0 means MaxDocs (tests lower it)
}

// NewDocTable returns an empty table.
func NewDocTable() *DocTable { return &DocTable{byExt: make(map[int64]DocID)} }

// Assign gives a new document (external id ext, which must not be 0) the
// lowest free DocID. Assigning an ext that is already present updates its
// chunk count and returns its DocID, so a replayed change is harmless.
// When all MaxDocs DocIDs are taken it returns ErrTooManyDocs and changes
// nothing.
func (t *DocTable) Assign(ext int64, chunks uint32) (DocID, error) {
	if ext == 0 {
		panic("invindex: external id 0 is reserved for free DocIDs")
	}
	if d, ok := t.byExt[ext]; ok {
		t.chunks[d] = chunks
		return d, nil
	}
	var d DocID
	if t.free.Len() > 0 {
		d = heap.Pop(&t.free).(DocID)
		t.ext[d], t.chunks[d] = ext, chunks
	} else {
		limit := t.limit
		if limit == 0 {
			limit = MaxDocs
		}
		if len(t.ext) >= limit {
			return 0, fmt.Errorf("%w: all %d document ids are in use (document %d)", ErrTooManyDocs, limit, ext)
		}
		d = DocID(len(t.ext))
		t.ext = append(t.ext, ext)
		t.chunks = append(t.chunks, chunks)
	}
	t.byExt[ext] = d
	return d, nil
}

// Set records a modified document's new chunk count; it keeps its DocID.
// Setting a free id does nothing.
func (t *DocTable) Set(d DocID, chunks uint32) {
	if int(d) < len(t.ext) && t.ext[d] != 0 {
		t.chunks[d] = chunks
	}
}

// Free releases d for reuse. Freeing a free or unknown id does nothing.
func (t *DocTable) Free(d DocID) {
	if int(d) >= len(t.ext) || t.ext[d] == 0 {
		return
	}
	delete(t.byExt, t.ext[d])
	t.ext[d], t.chunks[d] = 0, 0
	heap.Push(&t.free, d)
}

// Lookup returns the DocID of external id ext.
func (t *DocTable) Lookup(ext int64) (DocID, bool) {
	d, ok := t.byExt[ext]
	return d, ok
}

// Ext is d's external id, 0 when d is free.
func (t *DocTable) Ext(d DocID) int64 {
	if int(d) >= len(t.ext) {
		return 0
	}
	return t.ext[d]
}

// Chunks is d's chunk count, 0 when d is free.
func (t *DocTable) Chunks(d DocID) uint32 {
	if int(d) >= len(t.chunks) {
		return 0
	}
	return t.chunks[d]
}

// Len is the number of live documents.
func (t *DocTable) Len() int { return len(t.byExt) }

// MaxID is an exclusive upper bound of the assigned DocIDs: size counters
// and DocSets with it.
func (t *DocTable) MaxID() DocID { return DocID(len(t.ext)) }

// Clone returns an independent copy.
func (t *DocTable) Clone() *DocTable {
	c := &DocTable{
		ext:    append([]int64(nil), t.ext...),
		chunks: append([]uint32(nil), t.chunks...),
		byExt:  make(map[int64]DocID, len(t.byExt)),
		free:   append(freeIDs(nil), t.free...),
		limit:  t.limit,
	}
	for k, v := range t.byExt {
		c.byExt[k] = v
	}
	return c
}

// Each calls fn for every live document in ascending DocID order.
func (t *DocTable) Each(fn func(d DocID, ext int64, chunks uint32)) {
	for d, e := range t.ext {
		if e != 0 {
			fn(DocID(d), e, t.chunks[d])
		}
	}
}

// rebuild derives byExt and free from ext, as ReadDocTable needs. It refuses
// duplicate external ids, which would make Lookup ambiguous.
func (t *DocTable) rebuild() error {
	t.byExt = make(map[int64]DocID)
	t.free = t.free[:0]
	for d, e := range t.ext {
		if e == 0 {
			if t.chunks[d] != 0 {
				return fmt.Errorf("free DocID %d has %d chunks", d, t.chunks[d])
			}
			t.free = append(t.free, DocID(d)) // ascending: already a heap
			continue
		}
		if prev, dup := t.byExt[e]; dup {
			return fmt.Errorf("external id %d is both DocID %d and %d", e, prev, d)
		}
		t.byExt[e] = DocID(d)
	}
	return nil
}

// freeIDs is a min-heap of free DocIDs.
type freeIDs []DocID

func (h freeIDs) Len() int           { return len(h) }
func (h freeIDs) Less(i, j int) bool { return h[i] < h[j] }
func (h freeIDs) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *freeIDs) Push(x any)        { *h = append(*h, x.(DocID)) }
func (h *freeIDs) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
