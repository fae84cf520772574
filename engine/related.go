package engine

import (
	"context"
	"fmt"
	"runtime"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plagd/plagd/archive"
	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/related"
)

// RelatedDoc is a document related to another by topic: the cosine of
// their TF-IDF vectors (1: the same words in the same proportions).
type RelatedDoc struct {
	ID int64 `json:"id"`
	archive.Header
	Cosine float64 `json:"cosine"`
}

// Related returns the stored related documents of id, best first, at most
// k (0: all stored, related.k). A document not yet through a run, or
// failed, has none.
func Related(ctx context.Context, pool *pgxpool.Pool, id int64, k int) ([]RelatedDoc, error) {
	if k <= 0 {
		k = 100
	}
	rows, err := pool.Query(ctx, `
		select d.id, coalesce(d.external_id, ''), coalesce(d.title, ''), coalesce(d.author, ''),
			coalesce(d.kind, ''), coalesce(d.year, 0), d.restricted, r.cosine
		from related r join documents d on d.id = r.other_id
		where r.doc_id = $1 and d.deleted_at is null
		order by r.cosine desc, r.other_id limit $2`, id, k)
	if err != nil {
		return nil, fmt.Errorf("read related documents of %d: %w", id, err)
	}
	return collectRelated(rows)
}

func collectRelated(rows pgx.Rows) ([]RelatedDoc, error) {
	out := []RelatedDoc{}
	var d RelatedDoc
	var cos float32
	if _, err := pgx.ForEachRow(rows, []any{&d.ID, &d.ExternalID, &d.Title, &d.Author, &d.Kind, &d.Year,
		&d.Restricted, &cos}, func() error {
		d.Cosine = float64(cos)
		out = append(out, d)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read related documents: %w", err)
	}
	return out, nil
}

// RelatedStats say how a batch of texts was joined with the archive.
type RelatedStats struct {
	Method    string `json:"method"`
	Archive   int    `json:"archive_documents"`
	Queries   int    `json:"queries"`
	NDDOnly   int    `json:"answered_by_ndd"` // queries ZOLIP's first phase answered alone
	Compared  int64  `json:"pairs_compared"`
	ModelDocs int    `json:"model_documents"`
}

// RelatedTexts finds the k documents of the archive most related to each
// of texts (not stored): the paper's R-S join of a batch of query documents
// against the archive, by related.method. It reads every stored vector, so
// it suits a batch more than a single live query.
func RelatedTexts(ctx context.Context, pool *pgxpool.Pool, cfg config.Config, texts []string, k int) ([][]RelatedDoc, RelatedStats, error) {
	st := RelatedStats{Queries: len(texts)}
	m, err := loadRelatedModel(ctx, pool)
	if err != nil {
		return nil, st, err
	}
	if m.Version == 0 {
		return nil, st, fmt.Errorf("no run has computed related documents yet: run plagd run first")
	}
	st.ModelDocs = m.Docs
	langs, err := cfg.Related.Langs()
	if err != nil {
		return nil, st, err
	}
	rows, err := pool.Query(ctx, `select v.doc_id, v.terms, v.weights, v.norm from related_vectors v
		join documents d on d.id = v.doc_id where v.model = $1 and d.deleted_at is null order by v.doc_id`, m.Version)
	if err != nil {
		return nil, st, fmt.Errorf("read related vectors: %w", err)
	}
	var ids []int64
	var vecs []related.Vector
	if err := scanVectors(rows, func(id int64, v related.Vector) { ids, vecs = append(ids, id), append(vecs, v) }); err != nil {
		return nil, st, err
	}
	st.Archive = len(ids)
	st.Method = cfg.Related.Method
	q := make([]related.Vector, len(texts))
	for i, t := range texts {
		_, terms := related.Analyze(t, langs)
		q[i] = docVector(m.Model, terms)
	}
	pool2 := related.Pool(runtime.GOMAXPROCS(0))
	s := related.Prepare(q, vecs, false, pool2)
	var lists [][]related.Neighbor
	if st.Method == "exact" {
		var es related.ExactStats
		lists, es = related.Exact(s, related.NewIndex(s), k, pool2)
		st.Compared = es.Postings
	} else {
		var zs related.Stats
		lists, zs = related.ZOLIP(s, related.Params{K: k, Lambda: cfg.Related.Lambda, Sigma: cfg.Related.Sigma}, pool2)
		st.NDDOnly, st.Compared = zs.NDDOnly, zs.NDDPairs+zs.CITDots
	}
	var want []int64
	for _, l := range lists {
		for _, n := range l {
			want = append(want, ids[n.Doc])
		}
	}
	rows, err = pool.Query(ctx, `
		select d.id, coalesce(d.external_id, ''), coalesce(d.title, ''), coalesce(d.author, ''),
			coalesce(d.kind, ''), coalesce(d.year, 0), d.restricted, 0::real
		from documents d where d.id = any($1)`, want)
	if err != nil {
		return nil, st, fmt.Errorf("read documents: %w", err)
	}
	meta, err := collectRelated(rows)
	if err != nil {
		return nil, st, err
	}
	byID := make(map[int64]RelatedDoc, len(meta))
	for _, d := range meta {
		byID[d.ID] = d
	}
	out := make([][]RelatedDoc, len(lists))
	for i, l := range lists {
		out[i] = []RelatedDoc{}
		for _, n := range l {
			d := byID[ids[n.Doc]]
			d.ID, d.Cosine = ids[n.Doc], float64(n.Sim)
			out[i] = append(out[i], d)
		}
	}
	return out, st, nil
}
