package store

import (
	"context"
	"crypto/sha256"
	"fmt"
)

// Identical is a live document whose stored file has the same bytes as an
// upload: a re-upload, which staff are warned about instead of getting a
// second copy.
type Identical struct {
	ID         int64  `json:"id"`
	ExternalID string `json:"external_id,omitempty"`
	Title      string `json:"title,omitempty"`
	Filename   string `json:"filename,omitempty"`
}

// IdenticalDocuments lists the live documents whose file is content, byte
// for byte (the same SHA-256 digest and size: the bytes are not sent
// again), oldest first. Plain text documents have no file and are never
// listed. One probe of the index documents_content_sha256 (migration 0010).
func IdenticalDocuments(ctx context.Context, q Querier, content []byte) ([]Identical, error) {
	if len(content) == 0 {
		return nil, nil
	}
	sum := sha256.Sum256(content)
	rows, err := q.Query(ctx, `select id, coalesce(external_id, ''), coalesce(title, ''), coalesce(filename, '')
		from documents
		where sha256(content) = $1 and content is not null and deleted_at is null and octet_length(content) = $2
		order by id`, sum[:], len(content))
	if err != nil {
		return nil, fmt.Errorf("look for an identical document: %w", err)
	}
	defer rows.Close()
	var out []Identical
	for rows.Next() {
		var d Identical
		if err := rows.Scan(&d.ID, &d.ExternalID, &d.Title, &d.Filename); err != nil {
			return nil, fmt.Errorf("look for an identical document: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("look for an identical document: %w", err)
	}
	return out, nil
}
