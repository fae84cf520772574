package store

import (
	"context"
	"fmt"
	"slices"

	"github.com/plagd/plagd/disguise"
)

// FlagExamples is how many document ids the status lists per kind of flag.
const FlagExamples = 5

// FlagSummary counts the live documents whose stored text carries flags
// (package disguise), as the last run that indexed them found.
type FlagSummary struct {
	Documents int         `json:"documents"` // documents with at least one flag
	Kinds     []FlagCount `json:"kinds"`     // one per kind found, most documents first
}

// FlagCount is one kind of flag across the archive.
type FlagCount struct {
	Kind      disguise.Kind `json:"kind"`
	Documents int           `json:"documents"`
	// Count adds up the flags' counts (characters, or words for
	// letter_spaced) over those documents.
	Count int `json:"count"`
	// First are the ids of the first FlagExamples documents, by id.
	First []int64 `json:"first"`
}

// loadFlags counts the flagged documents per kind. Deleted documents have
// no stored text once a run has handled them; until then they are left out
// here too.
func loadFlags(ctx context.Context, q Querier) (FlagSummary, error) {
	s := FlagSummary{Kinds: []FlagCount{}}
	rows, err := q.Query(ctx, `
		select f->>'kind', count(distinct t.doc_id), coalesce(sum((f->>'count')::bigint), 0),
			(array_agg(distinct t.doc_id order by t.doc_id))[1:$1]
		from document_texts t join documents d on d.id = t.doc_id and d.deleted_at is null,
			jsonb_array_elements(t.flags) f
		where t.flags is not null
		group by 1`, FlagExamples)
	if err != nil {
		return s, fmt.Errorf("status: count flags: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var c FlagCount
		var kind string
		if err := rows.Scan(&kind, &c.Documents, &c.Count, &c.First); err != nil {
			return s, fmt.Errorf("status: count flags: %w", err)
		}
		c.Kind = disguise.Kind(kind)
		s.Kinds = append(s.Kinds, c)
	}
	if err := rows.Err(); err != nil {
		return s, fmt.Errorf("status: count flags: %w", err)
	}
	slices.SortFunc(s.Kinds, func(a, b FlagCount) int {
		if a.Documents != b.Documents {
			return b.Documents - a.Documents
		}
		if a.Kind < b.Kind {
			return -1
		}
		if a.Kind > b.Kind {
			return 1
		}
		return 0
	})
	if err := q.QueryRow(ctx, `select count(*) from document_texts t join documents d on d.id = t.doc_id and d.deleted_at is null
		where t.flags is not null`).Scan(&s.Documents); err != nil {
		return s, fmt.Errorf("status: count flagged documents: %w", err)
	}
	return s, nil
}
