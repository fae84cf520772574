package daemon

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plagd/plagd/invindex"
	"github.com/plagd/plagd/routing"
)

// routedIndex is the feature index live checks take their candidates from
// (seed 001): routing.Routed over the stored routing_features, K
// partitions, each document in the partitions of its m smallest features.
// Before each query it applies the rows written since the last one (seq)
// and, when a run has committed since, drops the documents whose rows are
// gone. Safe for concurrent use.
type routedIndex struct {
	pool *pgxpool.Pool
	cfg  RoutingConfig

	mu     sync.Mutex
	routed *routing.Routed
	dense  map[int64]routing.DocID // documents.id -> the index's DocID
	ids    []int64                 // DocID -> documents.id (0: free)
	feats  map[int64][]uint64      // what each document was added with (Remove needs it)
	seq    int64
	run    int64 // the committed run whose deletions have been applied
}

func newRoutedIndex(pool *pgxpool.Pool, cfg RoutingConfig) *routedIndex {
	return &routedIndex{pool: pool, cfg: cfg}
}

// refresh brings the index up to date with the table.
func (x *routedIndex) refresh(ctx context.Context) error {
	if x.routed == nil {
		x.routed = routing.NewRouted(x.cfg.Partitions, x.cfg.M)
		x.dense, x.feats = map[int64]routing.DocID{}, map[int64][]uint64{}
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
		x.seq = seq
		return nil
	}); err != nil {
		return fmt.Errorf("read routing features: %w", err)
	}
	committed, err := lastCommittedRun(ctx, x.pool)
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
	x.ids[d] = 0
	delete(x.dense, id)
	delete(x.feats, id)
}

// candidates returns the documents sharing features with fs, best by
// Jaccard first, at most n, and the partitions consulted.
func (x *routedIndex) candidates(ctx context.Context, fs []uint64, n int) ([]int64, int, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.refresh(ctx); err != nil {
		return nil, 0, err
	}
	var ms []routing.Match
	parts := x.routed.K()
	if x.cfg.AllPartitions {
		ms = x.routed.QueryAll(fs)
	} else {
		ms = x.routed.Query(fs, 0)
		parts = len(routing.Route(fs, x.routed.K(), x.routed.M(), nil))
	}
	out := make([]int64, 0, min(n, len(ms)))
	for _, m := range ms[:min(n, len(ms))] {
		out = append(out, x.ids[m.Doc])
	}
	return out, parts, nil
}

// routedMatches is the live check's candidates from the routed feature
// index, compared chunk by chunk: a candidate shares a chunk when its text
// holds the chunk with the same fingerprint, as the index counts it. The
// figures are those Query gives for the same documents; documents the
// routing does not reach are missing (routing.all_partitions widens the
// search to every partition). It returns the matches, best first (at most
// top), and the stored texts read.
func (e *Engine) routedMatches(ctx context.Context, text string, chunks []uint32, checks []uint8, top int) ([]QueryMatch, map[int64]storedText, error) {
	if gen, err := lastCommittedRun(ctx, e.pool); err != nil {
		return nil, nil, err
	} else if gen == 0 {
		return nil, nil, fmt.Errorf("%w: no run has committed yet", ErrNoIndex)
	}
	e.routedOnce.Do(func() { e.routed = newRoutedIndex(e.pool, e.cfg.Routing) })
	fs := routing.Features([]byte(text), routing.DefaultParams)
	cands, parts, err := e.routed.candidates(ctx, fs, e.cfg.Routing.Candidates)
	if err != nil {
		return nil, nil, err
	}
	e.log.Debug().Int("features", len(fs)).Int("partitions", parts).Int("candidates", len(cands)).Msg("live check routed")
	texts, err := storedTexts(ctx, e.pool, cands)
	if err != nil {
		return nil, nil, err
	}
	if e.minShared == 0 {
		if err := e.resolveMinShared(ctx); err != nil {
			return nil, nil, err
		}
	}
	if top <= 0 {
		top = e.cfg.Engine.TopK
	}
	tok := invindex.NewTokenizer(e.cfg.Params())
	var out []QueryMatch
	for _, id := range cands {
		t, ok := texts[id]
		if !ok || t.body == nil {
			continue
		}
		_, cc, ck := tok.DocChunks(*t.body)
		if n := sharedChunks(chunks, checks, cc, ck); n >= e.MinShared() {
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
