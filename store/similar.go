package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// ResolveDoc finds a document by what a person types: its numeric id, or
// else its external_id. A number that is no document's id is tried as an
// external_id too, since integrators' keys are often numeric.
func ResolveDoc(ctx context.Context, pool Querier, ref string) (int64, error) {
	var id int64
	if n, err := strconv.ParseInt(ref, 10, 64); err == nil {
		err := pool.QueryRow(ctx, `select id from documents where id = $1`, n).Scan(&id)
		switch {
		case err == nil:
			return id, nil
		case !errors.Is(err, pgx.ErrNoRows):
			return 0, fmt.Errorf("look up document %q: %w", ref, err)
		}
	}
	err := pool.QueryRow(ctx, `select id from documents where external_id = $1`, ref).Scan(&id)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return 0, fmt.Errorf("no document with id or external_id %q", ref)
	case err != nil:
		return 0, fmt.Errorf("look up document %q: %w", ref, err)
	}
	return id, nil
}

// DocInfo describes one document for report headers.
type DocInfo struct {
	ID         int64  `json:"id"`
	ExternalID string `json:"external_id,omitempty"`
	Title      string `json:"title,omitempty"`
	Filename   string `json:"filename,omitempty"`
	Kind       string `json:"kind,omitempty"`
	// Status is "indexed" or "failed" (the last run's verdict), "pending"
	// (changed since, or never processed) or "deleted" (soft-deleted).
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	Words  int    `json:"words"`
	Chunks int    `json:"chunks"`
}

// LoadDocInfo reads the header of document id.
func LoadDocInfo(ctx context.Context, pool Querier, id int64) (DocInfo, error) {
	d := DocInfo{ID: id}
	err := pool.QueryRow(ctx, `
		select coalesce(d.external_id, ''), coalesce(d.title, ''), coalesce(d.filename, ''), coalesce(d.kind, ''),
		       case when d.deleted_at is not null then 'deleted'
		            when s.doc_id is null or exists (select 1 from plagd_changes c where c.doc_id = d.id and `+changedEntry+`) then 'pending'
		            else s.status end,
		       coalesce(s.error, ''), coalesce(s.words, 0), coalesce(s.chunks, 0)
		from documents d left join document_status s on s.doc_id = d.id
		where d.id = $1`, id).
		Scan(&d.ExternalID, &d.Title, &d.Filename, &d.Kind, &d.Status, &d.Error, &d.Words, &d.Chunks)
	if errors.Is(err, pgx.ErrNoRows) {
		return d, fmt.Errorf("no document with id %d", id)
	}
	if err != nil {
		return d, fmt.Errorf("read document %d: %w", id, err)
	}
	return d, nil
}

// SimilarRow is one document similar to the one asked about.
type SimilarRow struct {
	OtherID    int64  `json:"other_id"`
	ExternalID string `json:"external_id,omitempty"`
	Title      string `json:"title,omitempty"`
	Filename   string `json:"filename,omitempty"`
	Shared     int    `json:"shared_chunks"`
	// Similarity is doc→other: the share of doc's chunks found in other.
	Similarity float64 `json:"similarity"`
	// Reverse is other→doc when stored, i.e. when doc is in other's top-k
	// list; nil otherwise.
	Reverse *float64 `json:"reverse,omitempty"`
}

// Similar lists the stored similarities of docID, in the order the engine
// ranks them: most shared chunks first, ties by other_id. An empty list is
// not an error (the document may be unique, pending or failed).
func Similar(ctx context.Context, pool Querier, docID int64) ([]SimilarRow, error) {
	rows, err := pool.Query(ctx, `
		select s.other_id, coalesce(d.external_id, ''), coalesce(d.title, ''), coalesce(d.filename, ''),
		       s.shared_chunks, s.similarity, r.similarity
		from similarities s
		join documents d on d.id = s.other_id
		left join similarities r on r.doc_id = s.other_id and r.other_id = s.doc_id
		where s.doc_id = $1
		order by s.shared_chunks desc, s.other_id`, docID)
	if err != nil {
		return nil, fmt.Errorf("read similarities of document %d: %w", docID, err)
	}
	defer rows.Close()
	out := []SimilarRow{}
	for rows.Next() {
		var r SimilarRow
		if err := rows.Scan(&r.OtherID, &r.ExternalID, &r.Title, &r.Filename, &r.Shared, &r.Similarity, &r.Reverse); err != nil {
			return nil, fmt.Errorf("read similarities of document %d: %w", docID, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read similarities of document %d: %w", docID, err)
	}
	return out, nil
}

// SimilarExternalIDs lists the stored similarities from documents whose
// external id starts with from to documents whose external id starts with
// to, as pairs of external ids, in the engine's order per document (most
// shared chunks first, ties by other_id): an evaluation's ranking.
func SimilarExternalIDs(ctx context.Context, q Querier, from, to string) ([][2]string, error) {
	return externalPairs(ctx, q, "similarities", "shared_chunks desc", from, to)
}

// RelatedExternalIDs is SimilarExternalIDs for the related-documents lists
// (the documents on the same subject, package related): pairs of external
// ids, each document's list most similar first (cosine, then id).
func RelatedExternalIDs(ctx context.Context, q Querier, from, to string) ([][2]string, error) {
	return externalPairs(ctx, q, "related", "cosine desc", from, to)
}

// externalPairs reads the lists of table (similarities or related: doc_id,
// other_id) from documents whose external id starts with from to those
// whose external id starts with to, as pairs of external ids, each list in
// the order rank (then other_id). table and rank are constants of this
// package, never input.
func externalPairs(ctx context.Context, q Querier, table, rank, from, to string) ([][2]string, error) {
	rows, err := q.Query(ctx, fmt.Sprintf(`
		select a.external_id, b.external_id
		from %s s
		join documents a on a.id = s.doc_id
		join documents b on b.id = s.other_id
		where starts_with(a.external_id, $1) and starts_with(b.external_id, $2)
		order by s.doc_id, s.%s, s.other_id`, table, rank), from, to)
	if err != nil {
		return nil, fmt.Errorf("read %s lists: %w", table, err)
	}
	defer rows.Close()
	var out [][2]string
	for rows.Next() {
		var p [2]string
		if err := rows.Scan(&p[0], &p[1]); err != nil {
			return nil, fmt.Errorf("read %s lists: %w", table, err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read %s lists: %w", table, err)
	}
	return out, nil
}

// SimilarLists reads the similarity lists of ids at once, each in the
// order Similar gives (most shared chunks first, ties by other_id), with
// the figures only: other_id, shared chunks and similarity. Documents
// without a list are missing from the map.
func SimilarLists(ctx context.Context, q Querier, ids []int64) (map[int64][]SimilarRow, error) {
	rows, err := q.Query(ctx, `
		select doc_id, other_id, shared_chunks, similarity from similarities
		where doc_id = any($1) order by doc_id, shared_chunks desc, other_id`, ids)
	if err != nil {
		return nil, fmt.Errorf("read similarity lists: %w", err)
	}
	defer rows.Close()
	out := make(map[int64][]SimilarRow, len(ids))
	for rows.Next() {
		var doc int64
		var r SimilarRow
		if err := rows.Scan(&doc, &r.OtherID, &r.Shared, &r.Similarity); err != nil {
			return nil, fmt.Errorf("read similarity lists: %w", err)
		}
		out[doc] = append(out[doc], r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read similarity lists: %w", err)
	}
	return out, nil
}
