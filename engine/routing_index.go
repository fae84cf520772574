package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/invindex"
	"github.com/plagd/plagd/routing"
	"github.com/plagd/plagd/store"
)

// routedIndex is the feature index live checks take their candidates from
// (Bhagwat et al.): routing.Routed over the stored routing_features, K
// partitions, each document in the partitions of its m smallest features.
// Before each query it applies the rows written since the last one (seq)
// and, when a run has committed since, drops the documents whose rows are
// gone. Safe for concurrent use.
type routedIndex struct {
	pool *pgxpool.Pool
	cfg  config.Routing

	mu     sync.Mutex
	routed *routing.Routed
	dense  map[int64]routing.DocID // documents.id -> the index's DocID
	ids    []int64                 // DocID -> documents.id (0: free)
	feats  map[int64][]uint64      // what each document was added with (Remove needs it)
	seq    int64
	run    int64 // the committed run whose deletions have been applied

	remoteQueries atomic.Int64 // node queries answered by nodes (tests)

	// With remote nodes the partitions are served by them (partition p by
	// node p mod n); this process keeps the whole index as the master's
	// copy, to load a node that lost or never had its share.
	gen     int64           // bumped by every change
	pending []routingChange // the changes since genFrom, for delta syncs
	genFrom int64           // the generation pending starts from
	nodeGen map[cluster.Worker]int64
	layout  []cluster.Worker // the nodes nodeGen is for (a new set reloads them all)
}

// routingChange is one document added to or removed from the index.
type routingChange struct {
	doc    cluster.RoutingDoc
	remove bool
}

// maxPending bounds the changes kept for delta syncs: past it, nodes that
// are behind get a full load.
const maxPending = 1 << 16

func newRoutedIndex(pool *pgxpool.Pool, cfg config.Routing) *routedIndex {
	return &routedIndex{pool: pool, cfg: cfg}
}

// refresh brings the index up to date with the table.
func (x *routedIndex) refresh(ctx context.Context) error {
	if x.routed == nil {
		x.routed = routing.NewRouted(x.cfg.Partitions, x.cfg.M)
		x.dense, x.feats = map[int64]routing.DocID{}, map[int64][]uint64{}
		x.genFrom = -1 // nodes start with a full load
	}
	rows, err := x.pool.Query(ctx, `select doc_id, features, seq from routing_features
		where seq > $1 and version = $2 order by seq`, x.seq, routing.FeatureVersion)
	if err != nil {
		return fmt.Errorf("read routing features: %w", err)
	}
	var id, seq int64
	var b []byte
	if _, err := pgx.ForEachRow(rows, []any{&id, &b, &seq}, func() error {
		fs, err := decodeFeatures(b)
		if err != nil {
			return fmt.Errorf("document %d: %w", id, err)
		}
		x.remove(id)
		d := routing.DocID(len(x.ids))
		x.ids = append(x.ids, id)
		x.dense[id], x.feats[id] = d, fs
		x.routed.Add(d, fs)
		x.changed(routingChange{doc: cluster.RoutingDoc{ID: d, Features: fs}})
		x.seq = seq
		return nil
	}); err != nil {
		return fmt.Errorf("read routing features: %w", err)
	}
	committed, err := store.LastCommittedRun(ctx, x.pool)
	if err != nil || committed == x.run {
		return err
	}
	// A run has committed: documents it dropped have no row any more.
	rows, err = x.pool.Query(ctx, `select doc_id from routing_features`)
	if err != nil {
		return fmt.Errorf("read routing features: %w", err)
	}
	present, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return fmt.Errorf("read routing features: %w", err)
	}
	slices.Sort(present)
	for id := range x.dense {
		if _, ok := slices.BinarySearch(present, id); !ok {
			x.remove(id)
		}
	}
	x.run = committed
	return nil
}

func (x *routedIndex) remove(id int64) {
	d, ok := x.dense[id]
	if !ok {
		return
	}
	x.routed.Remove(d, x.feats[id])
	x.changed(routingChange{doc: cluster.RoutingDoc{ID: d, Features: x.feats[id]}, remove: true})
	x.ids[d] = 0
	delete(x.dense, id)
	delete(x.feats, id)
}

// changed records a change for the nodes' next sync.
func (x *routedIndex) changed(c routingChange) {
	x.gen++
	if len(x.pending) < maxPending {
		x.pending = append(x.pending, c)
	} else {
		x.pending, x.genFrom = nil, -1 // too many: nodes behind get a full load
	}
}

// sync brings every node to x.gen: the pending changes for a node at
// x.genFrom, a full load of its partitions otherwise. A node that cannot
// be synced is left out (its partitions are answered from the master's
// copy).
func (x *routedIndex) sync(ctx context.Context, clients []cluster.Worker) map[cluster.Worker]bool {
	if !slices.Equal(clients, x.layout) {
		x.layout, x.nodeGen = slices.Clone(clients), map[cluster.Worker]int64{}
	}
	ready := map[cluster.Worker]bool{}
	var adds, removes []cluster.RoutingDoc
	for _, c := range x.pending {
		if c.remove {
			removes = append(removes, c.doc)
		} else {
			adds = append(adds, c.doc)
		}
	}
	for i, c := range clients {
		g, known := x.nodeGen[c]
		if known && g == x.gen {
			ready[c] = true
			continue
		}
		s := cluster.RoutingSync{From: x.genFrom, To: x.gen, K: x.cfg.Partitions, M: x.cfg.M, Add: adds, Remove: removes}
		var err error = cluster.ErrRoutingStale
		if known && g == x.genFrom && x.genFrom >= 0 {
			err = c.RoutingSync(ctx, s)
		}
		if errors.Is(err, cluster.ErrRoutingStale) {
			s = cluster.RoutingSync{To: x.gen, Full: true, K: x.cfg.Partitions, M: x.cfg.M}
			for p := i; p < x.cfg.Partitions; p += len(clients) {
				s.Owned = append(s.Owned, p)
			}
			for id, fs := range x.feats {
				s.Add = append(s.Add, cluster.RoutingDoc{ID: x.dense[id], Features: fs})
			}
			err = c.RoutingSync(ctx, s)
		}
		if err != nil {
			delete(x.nodeGen, c)
			continue
		}
		x.nodeGen[c] = x.gen
		ready[c] = true
	}
	if len(ready) == len(clients) {
		x.pending, x.genFrom = nil, x.gen
	}
	return ready
}

// query consults partitions ps (all of them with every) for fs: on the
// nodes that hold them when there are nodes, in this process otherwise or
// for a node that cannot answer.
func (x *routedIndex) query(ctx context.Context, clients []cluster.Worker, fs []uint64, ps []int) []routing.Match {
	if len(clients) == 0 {
		res := make([][]routing.Match, len(ps))
		for j, p := range ps {
			res[j] = x.routed.Partition(p).Query(fs)
		}
		return routing.Merge(res)
	}
	ready := x.sync(ctx, clients)
	byNode := make([][]int, len(clients))
	for _, p := range ps {
		byNode[p%len(clients)] = append(byNode[p%len(clients)], p)
	}
	res := make([][]routing.Match, len(clients))
	failed := make([]bool, len(clients))
	var wg sync.WaitGroup
	for i, c := range clients {
		if len(byNode[i]) == 0 {
			continue
		}
		wg.Go(func() {
			if ready[c] {
				ms, err := c.RoutingQuery(ctx, x.gen, byNode[i], fs)
				if err == nil {
					res[i] = ms
					x.remoteQueries.Add(1)
					return
				}
			}
			// Answered from the master's copy; the node gets a full load
			// at the next query.
			failed[i] = true
			for _, p := range byNode[i] {
				res[i] = append(res[i], x.routed.Partition(p).Query(fs)...)
			}
		})
	}
	wg.Wait()
	for i, c := range clients {
		if failed[i] {
			delete(x.nodeGen, c)
		}
	}
	return routing.Merge(res)
}

// candidates returns the documents sharing features with fs, best by
// Jaccard first, at most n, and the partitions consulted.
func (x *routedIndex) candidates(ctx context.Context, clients []cluster.Worker, fs []uint64, n int) ([]int64, int, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.refresh(ctx); err != nil {
		return nil, 0, err
	}
	var ps []int
	if x.cfg.AllPartitions {
		for p := range x.routed.K() {
			ps = append(ps, p)
		}
	} else {
		ps = routing.Route(fs, x.routed.K(), x.routed.M(), nil)
	}
	ms := x.query(ctx, clients, fs, ps)
	parts := len(ps)
	out := make([]int64, 0, min(n, len(ms)))
	for _, m := range ms[:min(n, len(ms))] {
		out = append(out, x.ids[m.Doc])
	}
	return out, parts, nil
}

// routedMatches is the live check's candidates from the routed feature
// index, compared chunk by chunk: a candidate shares a chunk when its text
// holds the chunk with the same fingerprint and the chunk is neither
// common text (CommonText) nor, for that document, template text (tpl),
// as the index counts it. The
// figures are those Query gives for the same documents; documents the
// routing does not reach are missing (routing.all_partitions widens the
// search to every partition). It returns the matches, best first (at most
// top), and the stored texts read.
func (e *Engine) routedMatches(ctx context.Context, text string, chunks []uint32, checks []uint8, top int, tpl *templateSet) ([]QueryMatch, map[int64]storedText, error) {
	if gen, err := store.LastCommittedRun(ctx, e.pool); err != nil {
		return nil, nil, err
	} else if gen == 0 {
		return nil, nil, fmt.Errorf("%w: no run has committed yet", ErrNoIndex)
	}
	e.routedOnce.Do(func() { e.routed = newRoutedIndex(e.pool, e.cfg.Routing) })
	fs := routing.Features([]byte(text), routing.DefaultParams)
	cands, parts, err := e.routed.candidates(ctx, e.relatedClients(), fs, e.cfg.Routing.Candidates)
	if err != nil {
		return nil, nil, err
	}
	e.log.Debug().Int("features", len(fs)).Int("partitions", parts).Int("candidates", len(cands)).Msg("live check routed")
	texts, err := storedTexts(ctx, e.pool, cands)
	if err != nil {
		return nil, nil, err
	}
	lim, err := e.queryLimits(ctx)
	if err != nil {
		return nil, nil, err
	}
	if lim.dfCap > 0 {
		// The index counts no common text: neither does the comparison.
		ct, err := e.CommonText(ctx)
		if err != nil {
			return nil, nil, err
		}
		chunks, checks = ct.uncommon(chunks, checks)
	}
	if top <= 0 {
		top = e.cfg.Engine.TopK
	}
	p, err := e.queryParams(ctx)
	if err != nil {
		return nil, nil, err
	}
	tok := invindex.NewTokenizer(p)
	var out []QueryMatch
	for _, id := range cands {
		t, ok := texts[id]
		if !ok || t.body == nil {
			continue
		}
		_, cc, ck := tok.DocChunks(*t.body)
		if skip := tpl.skip(t.head.Kind); skip != nil {
			cc, ck = filterChunks(cc, ck, skip) // as the run indexed it
		}
		if n := sharedChunks(chunks, checks, cc, ck); n >= max(lim.minShared, 1) {
			out = append(out, QueryMatch{ID: id, Shared: n, Chunks: len(cc)})
		}
	}
	slices.SortFunc(out, func(a, b QueryMatch) int { return cmp.Or(cmp.Compare(b.Shared, a.Shared), cmp.Compare(a.ID, b.ID)) })
	return out[:min(top, len(out))], texts, nil
}

// sharedChunks counts the chunks of a (sorted, with fingerprints) that b
// holds with the same fingerprint.
func sharedChunks(a []uint32, ac []uint8, b []uint32, bc []uint8) int {
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			if ac[i] == bc[j] {
				n++
			}
			i++
			j++
		}
	}
	return n
}
