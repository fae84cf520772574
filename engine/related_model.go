package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/jackc/pgx/v5"

	"github.com/plagd/plagd/related"
	"github.com/plagd/plagd/store"
	"github.com/plagd/plagd/termstat"
)

// relatedMaxDFShare drops terms found in more than 5 % of the documents
// from the vectors: the corpus' own stop words (and, in theses, the words
// every thesis uses: method, result, chapter). They say little about a
// topic, and every pair of documents shares them, so keeping them makes
// ZOLIP's common-important-terms phase compare nearly every pair: on 20,000
// generated documents a full run with a 50 % cut-off did not finish in 8
// minutes (docs/RELATED.md). Only from 100 counted documents on: in a small
// archive a topic may well be in 5 % of the documents.
func relatedMaxDFShare(docs int) float64 {
	if docs < 100 {
		return 0
	}
	return 0.05
}

// relatedMaxTerms is the cut (related.max_terms) of a model that counted
// docs documents: none below 100, as for relatedMaxDFShare. In a small
// archive the IDF cannot tell a document's topic from its accidents: with
// three documents a word the document shares with another weighs less
// than one it alone has, so the heaviest terms were the unshared ones and
// two essays on one topic came out unrelated (TestCLI_Related). The cut is
// for the cost of large archives' joins; a small one's is negligible.
func relatedMaxTerms(maxTerms, docs int) int {
	if docs < 100 {
		return 0
	}
	return maxTerms
}

// relatedModel is the stored IDF of the related-documents vectors: version
// 0 (none yet) weighs every term alike.
type relatedModel struct {
	*related.Model // its Docs are the documents counted (the sample)
	// ArchiveDocs is the number of indexed documents when it was built:
	// the model is rebuilt when the archive has doubled or halved since.
	ArchiveDocs int
}

// loadRelatedModel reads the newest model.
func loadRelatedModel(ctx context.Context, q store.Querier) (*relatedModel, error) {
	var version int64
	var docs, sample, maxTerms int
	var b []byte
	err := q.QueryRow(ctx, `select version, docs, sample_docs, max_terms, df from related_models order by version desc limit 1`).
		Scan(&version, &docs, &sample, &maxTerms, &b)
	if errors.Is(err, pgx.ErrNoRows) {
		return &relatedModel{Model: related.ModelFrom(0, termstat.Table{}, 0)}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the related-documents model: %w", err)
	}
	df, err := termstat.Decode(sample, b)
	if err != nil {
		return nil, fmt.Errorf("related-documents model %d: %w (a full run rebuilds it: plagd run --full)", version, err)
	}
	m := related.ModelFrom(version, df, relatedMaxDFShare(sample))
	m.MaxTerms = maxTerms
	return &relatedModel{Model: m, ArchiveDocs: docs}, nil
}

// insertRelatedModel stores m in tx as a new version (older ones are
// deleted: every vector is rewritten in the same transaction) and returns it.
func insertRelatedModel(ctx context.Context, tx pgx.Tx, runID int64, docs int, m *related.Model) (int64, error) {
	var v int64
	if err := tx.QueryRow(ctx, `insert into related_models (run_id, docs, sample_docs, max_terms, df) values ($1, $2, $3, $4, $5) returning version`,
		runID, docs, m.Docs, m.MaxTerms, m.Encode()).Scan(&v); err != nil {
		return 0, fmt.Errorf("store the related-documents model: %w", err)
	}
	if _, err := tx.Exec(ctx, `delete from related_models where version < $1`, v); err != nil {
		return 0, fmt.Errorf("drop old related-documents models: %w", err)
	}
	return v, nil
}

// encodeVector is the related_vectors terms and weights columns.
func encodeVector(v related.Vector) (terms, weights []byte) {
	terms = make([]byte, 0, 8*len(v.Terms))
	weights = make([]byte, 0, 4*len(v.W))
	for i, t := range v.Terms {
		terms = binary.LittleEndian.AppendUint64(terms, t)
		weights = binary.LittleEndian.AppendUint32(weights, math.Float32bits(v.W[i]))
	}
	return terms, weights
}

func decodeVector(terms, weights []byte, norm float32) (related.Vector, error) {
	n := len(terms) / 8
	if len(terms)%8 != 0 || len(weights) != 4*n {
		return related.Vector{}, fmt.Errorf("related vector: %d term bytes and %d weight bytes do not match", len(terms), len(weights))
	}
	v := related.Vector{Terms: make([]uint64, n), W: make([]float32, n), Norm: norm}
	for i := range n {
		v.Terms[i] = binary.LittleEndian.Uint64(terms[8*i:])
		v.W[i] = math.Float32frombits(binary.LittleEndian.Uint32(weights[4*i:]))
	}
	return v, nil
}

// docVector is the related-documents vector of a document's term counts
// under m: TF-IDF of its m.MaxTerms heaviest terms (related.max_terms),
// unit length.
func docVector(m *related.Model, terms []related.TermCount) related.Vector {
	return m.Vector(terms)
}
