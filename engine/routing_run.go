package engine

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/plagd/plagd/cluster"
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

// routingPhase computes the features of what the run indexed, from its
// stage, on all cores. A full run, or features stored under another
// definition (routing.FeatureVersion) or missing, recomputes every
// document's from its stored text.
func (e *Engine) routingPhase(ctx context.Context, runID int64, full bool, out *cluster.Outcome) (*routingUpdate, error) {
	rd, err := e.runDocs(ctx, full, out)
	if err != nil {
		return nil, err
	}
	u := &routingUpdate{drop: rd.gone, all: full}
	if !full {
		var stale bool
		if err := e.pool.QueryRow(ctx, `select exists (select 1 from routing_features where version <> $1)
			or (select count(*) from routing_features where doc_id = any($2)) < coalesce(cardinality($2::bigint[]), 0)`,
			routing.FeatureVersion, rd.others).Scan(&stale); err != nil {
			return nil, fmt.Errorf("check routing features: %w", err)
		}
		u.all = stale
	}
	features := func() func(idText) routingRow {
		return func(t idText) routingRow {
			return routingRow{id: t.id, features: routing.Features([]byte(t.text), routing.DefaultParams)}
		}
	}
	if u.rows, err = mapTexts(ctx, e, runID, rd.indexed, true, features); err != nil {
		return nil, err
	}
	if u.all {
		more, err := mapTexts(ctx, e, runID, rd.others, false, features)
		if err != nil {
			return nil, err
		}
		u.rows = append(u.rows, more...)
	}
	return u, nil
}

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

// write stores the update inside the run's commit transaction.
func (u *routingUpdate) write(ctx context.Context, tx pgx.Tx, runID int64) error {
	if _, err := tx.Exec(ctx, `delete from routing_features where doc_id = any($1)`, u.drop); err != nil {
		return fmt.Errorf("drop routing features: %w", err)
	}
	if _, err := tx.Exec(ctx, `create temp table routing_stage (doc_id bigint, features bytea) on commit drop`); err != nil {
		return fmt.Errorf("stage routing features: %w", err)
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"routing_stage"}, []string{"doc_id", "features"},
		pgx.CopyFromSlice(len(u.rows), func(i int) ([]any, error) {
			return []any{u.rows[i].id, encodeFeatures(u.rows[i].features)}, nil
		})); err != nil {
		return fmt.Errorf("stage routing features: %w", err)
	}
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
