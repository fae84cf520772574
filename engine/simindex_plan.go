package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plagd/plagd/store"
)

// The order of a refresh. A document's report aligns it with its sources,
// and each of them is tokenised (passage.Doc: about fifteen times its
// text with the index of its windows, indexCacheBytes) once per report
// unless the refresh's cache still holds it. The similarity
// lists are symmetric, so a source is also a queued document of its own,
// and a copy with three sources ties four documents together: taken in
// the order of their IDs, the four are far apart, and the cache must hold
// each from its first use to its last, or tokenise it again. At 100,000
// realistic documents 53,451 of them have sources and their reports use
// 170,000 Docs of 53,451 texts; a cache of 512 MiB held a sixth of those
// texts, and was the peak of a full run's memory.
//
// indexPlan therefore takes the queued documents group by group, a group
// being the documents its lists connect (the components of the similarity
// graph, sources outside the queue included), and counts how often the
// refresh will use each Doc, so that the cache keeps a Doc only while a use
// is still to come (docCache.uses). Groups are mostly small (a copy and its
// sources), so the cache holds little more than the current one. The order
// changes nothing but the time and memory of the refresh: each document's
// index depends on its own inputs only.

// indexPlan is the refresh's order of the queued documents, their lists,
// and the uses of each Doc.
type indexPlan struct {
	order []int64                      // every queued document, group by group
	lists map[int64][]store.SimilarRow // the queued documents' lists, read once for the plan and the batches
	uses  map[int64]int32              // reports that will use the document's Doc: its own, and those of the lists naming it
}

// planIndexes reads the queue and the lists of the queued documents and
// plans the refresh.
func planIndexes(ctx context.Context, pool *pgxpool.Pool) (indexPlan, error) {
	rows, err := pool.Query(ctx, `select doc_id from plagd_index_queue order by doc_id`)
	if err != nil {
		return indexPlan{}, fmt.Errorf("read the similarity-index queue: %w", err)
	}
	queued, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return indexPlan{}, fmt.Errorf("read the similarity-index queue: %w", err)
	}
	lists, err := store.SimilarLists(ctx, pool, queued)
	if err != nil {
		return indexPlan{}, err
	}
	var edges [][2]int64
	for _, d := range queued {
		for _, r := range lists[d] {
			edges = append(edges, [2]int64{d, r.OtherID})
		}
	}
	p := planOf(queued, edges)
	p.lists = lists
	return p, nil
}

// planOf is the plan for the queued documents (ascending) whose lists
// name the sources of edges (document, source). Each group is taken
// breadth first from its first queued document, neighbours in ascending
// order: a copy with its sources, a source with its copies, so that the
// Docs a group's reports share are used close together even in a group
// of thousands (the realistic 100k archive has one of 19,088 documents,
// tied by stock phrases and chains of copies, and 10,717 small ones).
func planOf(queued []int64, edges [][2]int64) indexPlan {
	p := indexPlan{uses: make(map[int64]int32, len(queued)), order: make([]int64, 0, len(queued))}
	adj := map[int64][]int64{}
	withSources := map[int64]bool{}
	for _, e := range edges {
		adj[e[0]] = append(adj[e[0]], e[1])
		adj[e[1]] = append(adj[e[1]], e[0])
		p.uses[e[1]]++
		withSources[e[0]] = true
	}
	for d := range withSources {
		p.uses[d]++ // its own report's Doc (report.Options.TextDoc)
	}
	for d, ns := range adj {
		slices.Sort(ns)
		adj[d] = slices.Compact(ns)
	}
	isQueued := make(map[int64]bool, len(queued))
	for _, d := range queued {
		isQueued[d] = true
	}
	seen := map[int64]bool{}
	var next []int64
	for _, start := range queued {
		if seen[start] {
			continue
		}
		seen[start] = true
		next = append(next[:0], start)
		for len(next) > 0 {
			d := next[0]
			next = next[1:]
			if isQueued[d] {
				p.order = append(p.order, d)
			}
			for _, n := range adj[d] {
				if !seen[n] {
					seen[n] = true
					next = append(next, n)
				}
			}
		}
	}
	return p
}
