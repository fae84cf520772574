package routing

// Routed is the partitioned index of Bhagwat et al. (section 3): K partitions, each
// document added to the partitions its bottom-m features route it to, and a
// query consulting only its own routed partitions, in parallel, with no
// communication among them. A document routed to several partitions is found
// in each with the same shared count (each holds all its features), so the
// merge only has to drop duplicates.

import (
	"sync"
)

// Routed is a routed feature index. It is safe for concurrent use; adding or
// removing the same document concurrently is the caller's race.
type Routed struct {
	m     int
	parts []*Partition
}

// NewRouted returns an empty index of k partitions with routing factor m.
// It panics unless k >= 1 and m >= 1.
func NewRouted(k, m int) *Routed {
	if k < 1 || m < 1 {
		panic("routing: NewRouted needs k >= 1 and m >= 1")
	}
	r := &Routed{m: m, parts: make([]*Partition, k)}
	for i := range r.parts {
		r.parts[i] = NewPartition()
	}
	return r
}

// K is the number of partitions.
func (r *Routed) K() int { return len(r.parts) }

// M is the routing factor used for ingestion.
func (r *Routed) M() int { return r.m }

// Partition returns partition i, for measurements (sizes, figure 7).
func (r *Routed) Partition(i int) *Partition { return r.parts[i] }

// Add indexes doc with its sorted, deduplicated features in every partition
// it routes to, and returns those partitions. A document without features is
// not indexed (it could never be found).
func (r *Routed) Add(doc DocID, fs []uint64) []int {
	ps := Route(fs, len(r.parts), r.m, nil)
	for _, i := range ps {
		r.parts[i].Add(doc, fs)
	}
	return ps
}

// Remove deletes doc, given the features it was added with (which determine
// its partitions); it reports whether doc was present in any of them.
func (r *Routed) Remove(doc DocID, fs []uint64) bool {
	found := false
	for _, i := range Route(fs, len(r.parts), r.m, nil) {
		if r.parts[i].Remove(doc, fs) {
			found = true
		}
	}
	return found
}

// Query returns the documents sharing a feature with fs in the partitions fs
// routes to with routing factor m (m <= 0: the ingestion factor M), merged
// and ranked (Rank). Querying with a larger m than ingestion reaches more
// partitions, which the measurements may want to compare.
func (r *Routed) Query(fs []uint64, m int) []Match {
	if m <= 0 {
		m = r.m
	}
	ps := Route(fs, len(r.parts), m, nil)
	res := make([][]Match, len(ps))
	if len(ps) == 1 {
		res[0] = r.parts[ps[0]].Query(fs)
	} else {
		var wg sync.WaitGroup
		for j, i := range ps {
			wg.Go(func() { res[j] = r.parts[i].Query(fs) })
		}
		wg.Wait()
	}
	return Merge(res)
}

// Merge unions the answers of several partitions (each in any order),
// keeping each document once, ranked (Rank). A document routed to several
// partitions holds all its features in each, so it answers from each with
// the same figures.
func Merge(res [][]Match) []Match {
	n := 0
	for _, ms := range res {
		n += len(ms)
	}
	seen := make(map[DocID]struct{}, n)
	out := make([]Match, 0, n)
	for _, ms := range res {
		for _, m := range ms {
			if _, ok := seen[m.Doc]; ok {
				continue
			}
			seen[m.Doc] = struct{}{}
			out = append(out, m)
		}
	}
	Rank(out)
	return out
}
