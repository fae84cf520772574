package store

import (
	"context"
	"fmt"
)

// LastCommittedRun is the generation the database holds results for (0: none).
func LastCommittedRun(ctx context.Context, q Querier) (int64, error) {
	var id int64
	err := q.QueryRow(ctx, `select coalesce(max(id), 0) from runs where status = 'committed'`).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("read last committed run: %w", err)
	}
	return id, nil
}
