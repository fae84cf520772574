package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// SimilarityIndex is a document's stored similarity index (table
// similarity_index; its definition is report.Index): the share of the
// document's text inside verified passages from its sources, under the
// default exclusions, earlier versions and near-duplicates left out.
type SimilarityIndex struct {
	// Value is the share, 0-1.
	Value float64 `json:"value"`
	// Sources counts the sources with a passage; Versions the earlier
	// versions and near-duplicates left out.
	Sources  int `json:"sources"`
	Versions int `json:"versions"`
	// TopSource covers the largest share of the document (TopShare); 0
	// when no source has a passage.
	TopSource int64   `json:"top_source,omitempty"`
	TopShare  float64 `json:"top_share"`
	// Run is the run after which it was computed.
	Run int64 `json:"run"`
}

// nullIndex scans a similarity_index row that may be missing (left join).
type nullIndex struct {
	value             *float64
	sources, versions *int
	top               *int64
	share             *float64
	run               *int64
}

func (n nullIndex) index() *SimilarityIndex {
	if n.value == nil {
		return nil
	}
	x := &SimilarityIndex{Value: *n.value, Sources: *n.sources, Versions: *n.versions, TopShare: *n.share, Run: *n.run}
	if n.top != nil {
		x.TopSource = *n.top
	}
	return x
}

// GetSimilarityIndex reads document id's stored similarity index; nil
// when it has none.
func GetSimilarityIndex(ctx context.Context, q Querier, id int64) (*SimilarityIndex, error) {
	var n nullIndex
	err := q.QueryRow(ctx, `select value, sources, versions, top_source, top_share, run_id from similarity_index where doc_id = $1`, id).
		Scan(&n.value, &n.sources, &n.versions, &n.top, &n.share, &n.run)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the similarity index of document %d: %w", id, err)
	}
	return n.index(), nil
}
