package engine

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/plagd/plagd/routing"
)

// routingUpdate is what a run writes to routing_features in its commit: the
// features of the documents it indexed (all of them when the stored ones
// are of another routing.FeatureVersion), none for those that left.
type routingUpdate struct {
	rows []routingRow
	drop []int64
	all  bool // every row rewritten: rows of documents not in it go
}

type routingRow struct {
	id       int64
	features []uint64
}

// routingPhase computes the routing features of what the run indexed. A
// full run, or features stored under another definition
// (routing.FeatureVersion) or missing, recomputes every document's, from
// the stored texts too.
type routingPhase struct {
	e  *Engine
	u  *routingUpdate
	mu sync.Mutex
}

func (p *routingPhase) Name() string { return "routing" }

// Prepare decides whether every document's features are recomputed: in a
// full run, and when the stored ones are of another routing.FeatureVersion
// or some untouched document has none (an archive indexed before routing
// existed).
//
// Both tests read no more than an index's ends and counts, whatever the
// archive's size (at 1M documents they were a scan of the table for
// another version and a count over every untouched document's id: 2.1 s of
// each incremental run):
//   - Every commit leaves all rows of one version: an incremental run
//     writes the current version after finding the stored one current, and
//     a rebuild (this one, or a full run) drops every row it did not write.
//     So the oldest row (lowest seq) tells the version of all of them.
//   - Rows belong only to documents indexed and not gone since (a run drops
//     those it failed or that were deleted; a hard delete cascades), so the
//     untouched documents' rows are all rows but the run's own, and none is
//     missing when they are as many as the untouched documents.
func (p *routingPhase) Prepare(ctx context.Context, r *RunState) (bool, error) {
	p.u = &routingUpdate{drop: r.Docs.gone, all: r.Full}
	if !r.Full {
		touched := slices.Concat(r.Docs.indexed, r.Docs.gone)
		var oldest *int32
		var rows, own int64
		if err := p.e.pool.QueryRow(ctx, `select (select version from routing_features order by seq limit 1),
			(select count(*) from routing_features), (select count(*) from routing_features where doc_id = any($1))`,
			touched).Scan(&oldest, &rows, &own); err != nil {
			return false, fmt.Errorf("check routing features: %w", err)
		}
		p.u.all = oldest != nil && *oldest != routing.FeatureVersion || rows-own < int64(len(r.Docs.others))
	}
	return p.u.all, nil
}

// Worker computes each text's features (content-defined chunks of its
// normalised bytes, fingerprinted).
func (p *routingPhase) Worker() func(*DocText) {
	var x routing.Extractor
	return func(t *DocText) {
		row := routingRow{id: t.ID, features: x.FeaturesString(t.Text, routing.DefaultParams)}
		p.mu.Lock()
		p.u.rows = append(p.u.rows, row)
		p.mu.Unlock()
	}
}

func (p *routingPhase) Finish(context.Context, *RunState) (Update, error) { return p.u, nil }

// encodeFeatures is the routing_features.features column.
func encodeFeatures(fs []uint64) []byte {
	b := make([]byte, 0, 8*len(fs))
	for _, f := range fs {
		b = binary.LittleEndian.AppendUint64(b, f)
	}
	return b
}

func decodeFeatures(b []byte) ([]uint64, error) {
	if len(b)%8 != 0 {
		return nil, fmt.Errorf("routing features: %d bytes is not a whole number of features", len(b))
	}
	fs := make([]uint64, len(b)/8)
	for i := range fs {
		fs[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return fs, nil
}

// Write stores the update inside the run's commit transaction.
func (u *routingUpdate) Write(ctx context.Context, tx pgx.Tx, runID int64) error {
	if _, err := tx.Exec(ctx, `delete from routing_features where doc_id = any($1)`, u.drop); err != nil {
		return fmt.Errorf("drop routing features: %w", err)
	}
	if err := stageRows(ctx, tx, "routing_stage", []string{"doc_id bigint", "features bytea"},
		pgx.CopyFromSlice(len(u.rows), func(i int) ([]any, error) {
			return []any{u.rows[i].id, encodeFeatures(u.rows[i].features)}, nil
		})); err != nil {
		return fmt.Errorf("stage routing features: %w", err)
	}
	// Staged: a rebuild's features (about 0.7 GB at 1M documents) need not be
	// held while the commit waits for the related self join.
	u.rows = nil
	if _, err := tx.Exec(ctx, `
		insert into routing_features (doc_id, features, version, run_id)
		select s.doc_id, s.features, $1, $2 from routing_stage s join documents d on d.id = s.doc_id
		on conflict (doc_id) do update set features = excluded.features, version = excluded.version,
			run_id = excluded.run_id, seq = nextval('routing_features_seq')`, routing.FeatureVersion, runID); err != nil {
		return fmt.Errorf("store routing features: %w", err)
	}
	if u.all {
		if _, err := tx.Exec(ctx, `delete from routing_features where run_id <> $1`, runID); err != nil {
			return fmt.Errorf("drop stale routing features: %w", err)
		}
	}
	return nil
}
