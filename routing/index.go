package routing

// The feature indexes (Bhagwat et al., sections 2.2-2.4). A Partition is one
// inverted map feature -> documents; it keeps every document's feature count
// so that, having counted the features a candidate shares with the query, it
// can give the exact Jaccard similarity without storing the feature sets:
// |A ∪ B| = |A| + |B| - |A ∩ B|. That is exact because a partition receives
// all of a routed document's features, never a subset.

import (
	"cmp"
	"slices"
	"sync"
)

// DocID identifies a document, as in invindex.
type DocID = uint32

// Match is one candidate of a query: the features it shares with the query
// and the Jaccard similarity of the two feature sets.
type Match struct {
	Doc     DocID
	Shared  int
	Jaccard float64
}

// Partition is one feature index. It is safe for concurrent use.
type Partition struct {
	mu   sync.RWMutex
	post map[uint64][]DocID // feature -> documents, in no order
	size map[DocID]int      // document -> its feature count
}

// NewPartition returns an empty partition. A single partition holding every
// document is the monolithic index routing is measured against.
func NewPartition() *Partition {
	return &Partition{post: make(map[uint64][]DocID), size: make(map[DocID]int)}
}

// Len is the number of documents in the partition.
func (p *Partition) Len() int {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return len(p.size)
}

// Postings is the number of (feature, document) entries: the partition's
// size for the paper's figure 7.
func (p *Partition) Postings() int {
	p.mu.RLock()
	defer p.mu.RUnlock()
	n := 0
	for _, ds := range p.post {
		n += len(ds)
	}
	return n
}

// Add indexes doc with its sorted, deduplicated features. A document already
// present must be removed first (with the features it was added with); Add
// panics otherwise, since its postings would be left inconsistent.
func (p *Partition) Add(doc DocID, fs []uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.size[doc]; ok {
		panic("routing: document added twice")
	}
	p.size[doc] = len(fs)
	for _, f := range fs {
		p.post[f] = append(p.post[f], doc)
	}
}

// Remove deletes doc, given the features it was added with; it reports
// whether doc was present. Each posting list is scanned for doc: lists are as
// long as a chunk's popularity, which for ~100-byte chunks of prose is short
// except for boilerplate.
func (p *Partition) Remove(doc DocID, fs []uint64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.size[doc]; !ok {
		return false
	}
	delete(p.size, doc)
	for _, f := range fs {
		ds := p.post[f]
		if i := slices.Index(ds, doc); i >= 0 {
			ds[i] = ds[len(ds)-1]
			ds = ds[:len(ds)-1]
		}
		if len(ds) == 0 {
			delete(p.post, f)
		} else {
			p.post[f] = ds
		}
	}
	return true
}

// Query returns every document sharing at least one feature with the sorted,
// deduplicated query features fs, ranked (Rank).
func (p *Partition) Query(fs []uint64) []Match {
	p.mu.RLock()
	shared := make(map[DocID]int)
	for _, f := range fs {
		for _, d := range p.post[f] {
			shared[d]++
		}
	}
	out := make([]Match, 0, len(shared))
	for d, n := range shared {
		out = append(out, Match{Doc: d, Shared: n, Jaccard: jaccard(n, len(fs), p.size[d])})
	}
	p.mu.RUnlock()
	Rank(out)
	return out
}

// Rank sorts matches by decreasing Jaccard similarity, then by decreasing
// shared features, then by DocID, so that equal inputs rank identically
// whatever the partitioning.
func Rank(ms []Match) {
	slices.SortFunc(ms, func(a, b Match) int {
		if c := cmp.Compare(b.Jaccard, a.Jaccard); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Shared, a.Shared); c != 0 {
			return c
		}
		return cmp.Compare(a.Doc, b.Doc)
	})
}
