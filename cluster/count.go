package cluster

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/plagd/plagd/invindex"
)

// countBatch is how many documents the master asks the nodes to count at once:
// large enough to keep nodes busy, small enough to bound the partial counts held.
const countBatch = 512

// countAll counts every document of st.count on all nodes, sums the partial
// counts, and emits the rows (Kasprzak et al., section 3.1, steps 9-10).
func (m *Master) countAll(ctx context.Context, st *runState) error {
	docs := make([]invindex.DocID, 0, len(st.count))
	for d := range st.count {
		docs = append(docs, d)
	}
	// Sorted by external ID so that the rows come out in a deterministic order.
	slices.SortFunc(docs, func(a, b invindex.DocID) int {
		return cmp.Compare(st.docs.Ext(a), st.docs.Ext(b))
	})
	parts := make([][][]invindex.Pair, len(m.nodes))
	trim := make(map[int64]bool)
	var sum []invindex.Pair
	var matches []invindex.Match
	var done atomic.Int64
	stop := m.progress("counting", len(docs), &done)
	defer stop()
	for start := 0; start < len(docs); start += countBatch {
		batch := docs[start:min(start+countBatch, len(docs))]
		if err := m.each(ctx, func(ctx context.Context, i int, n Node) error {
			p, err := n.Count(ctx, batch)
			if err == nil && len(p) != len(batch) {
				err = fmt.Errorf("node %d returned %d count lists for %d documents", i, len(p), len(batch))
			}
			parts[i] = p
			return err
		}); err != nil {
			return fmt.Errorf("count: %w", err)
		}
		for j, a := range batch {
			sum = sum[:0]
			for i := range parts {
				sum = mergePairs(sum, parts[i][j])
			}
			matches = m.rowsFor(st, a, sum, matches[:0], trim)
		}
		done.Add(int64(len(batch)))
	}
	for b := range trim {
		st.out.Trim = append(st.out.Trim, b)
	}
	return nil
}

// rowsFor turns one document's summed counts into its top-k rows, plus the
// reverse rows of unchanged documents towards a changed one.
func (m *Master) rowsFor(st *runState, a invindex.DocID, sum []invindex.Pair, matches []invindex.Match, trim map[int64]bool) []invindex.Match {
	extA := st.docs.Ext(a)
	chunksA := float64(st.docs.Chunks(a))
	minShared := uint32(st.plan.MinShared)
	changed := st.upserted[a]
	for _, p := range sum {
		if p.Shared < minShared {
			continue
		}
		extB := st.docs.Ext(p.Other)
		matches = append(matches, invindex.Match{Other: extB, Shared: p.Shared})
		if changed && !st.count[p.Other] {
			// B is unchanged and keeps its list; it gains (or regains) A.
			st.out.Rows = append(st.out.Rows, Row{Doc: extB, Other: extA, Shared: p.Shared,
				Similarity: float64(p.Shared) / float64(st.docs.Chunks(p.Other))})
			trim[extB] = true
		}
	}
	for _, mt := range invindex.TopK(matches, st.plan.TopK) {
		st.out.Rows = append(st.out.Rows, Row{Doc: extA, Other: mt.Other, Shared: mt.Shared,
			Similarity: float64(mt.Shared) / chunksA})
	}
	return matches
}

// mergePairs adds the sorted partial counts b into the sorted sums a.
func mergePairs(a, b []invindex.Pair) []invindex.Pair {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return append(a, b...)
	}
	out := make([]invindex.Pair, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i].Other < b[j].Other:
			out = append(out, a[i])
			i++
		case a[i].Other > b[j].Other:
			out = append(out, b[j])
			j++
		default:
			out = append(out, invindex.Pair{Other: a[i].Other, Shared: a[i].Shared + b[j].Shared})
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}
