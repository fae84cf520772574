package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/jackc/pgx/v5"

	"github.com/plagd/plagd/invindex"
	"github.com/plagd/plagd/neardup"
	"github.com/plagd/plagd/store"
	"github.com/plagd/plagd/termstat"
)

// nearModel is what a simhash depends on besides the text: the document
// frequencies that weigh words (TF-IDF, Sood and Loguinov algorithm 1) and the
// distribution of weight changes between near-duplicates that orders the
// bit flips (VOSH). Hashes of different versions are not comparable, so
// every stored hash names its version; version 0 is "no model yet":
// uniform IDF and every bit equally likely to flip.
type nearModel struct {
	Version    int64
	Docs       int // indexed documents when it was built
	SampleDocs int // documents whose words were counted
	PairsReal  int
	PairsSynth int
	idf        termstat.Table // over the SampleDocs
	Flip       neardup.FlipModel
}

// IDF is what weighs the words of a simhash under m: the document
// frequencies of the sample, or, with nothing counted (version 0, or an
// archive without text when the model was built), every word alike.
func (m *nearModel) IDF() neardup.IDF {
	if m.idf.Docs == 0 {
		return neardup.UniformIDF
	}
	return &m.idf
}

// hasher computes simhashes under one model; one per goroutine (it owns
// tokenizer buffers).
type hasher struct {
	m     *nearModel
	tok   *invindex.Tokenizer
	words []invindex.Word
	fs    []neardup.Feature
}

func (m *nearModel) hasher(p invindex.Params) *hasher {
	return &hasher{m: m, tok: invindex.NewTokenizer(p)}
}

// features are the distinct words of text with their counts.
func (h *hasher) features(text string) []neardup.Feature {
	h.words = h.tok.Words(text, h.words[:0])
	h.fs = neardup.TermCounts(h.words, h.fs[:0])
	return h.fs
}

// hash is text's simhash and per-bit weights.
func (h *hasher) hash(text string) (uint64, neardup.Weights) {
	return neardup.Simhash(h.features(text), h.m.IDF())
}

// encodeWeights is the simhashes.weights column: 64 float32, little-endian.
// float32 keeps the order of the flip probabilities (it only rounds |W_j|).
func encodeWeights(W *neardup.Weights) []byte {
	b := make([]byte, 0, 4*neardup.Bits)
	for _, w := range W {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(w)))
	}
	return b
}

func decodeWeights(b []byte) (neardup.Weights, error) {
	var W neardup.Weights
	if len(b) != 4*neardup.Bits {
		return W, fmt.Errorf("simhash weights: %d bytes, want %d", len(b), 4*neardup.Bits)
	}
	for j := range W {
		W[j] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*j:])))
	}
	return W, nil
}

// loadNearModel reads the newest model; without one it returns version 0.
func loadNearModel(ctx context.Context, q store.Querier) (*nearModel, error) {
	m := &nearModel{}
	var df []byte
	var flip []float32
	err := q.QueryRow(ctx, `
		select version, docs, sample_docs, pairs_real, pairs_synth, df, flip
		from neardup_models order by version desc limit 1`).
		Scan(&m.Version, &m.Docs, &m.SampleDocs, &m.PairsReal, &m.PairsSynth, &df, &flip)
	if errors.Is(err, pgx.ErrNoRows) {
		return m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the near-duplicate model: %w", err)
	}
	if m.idf, err = termstat.Decode(m.SampleDocs, df); err != nil {
		return nil, fmt.Errorf("near-duplicate model %d: %w (a full run rebuilds it: plagd run --full)", m.Version, err)
	}
	m.Flip.Abs = make([]float64, len(flip))
	for i, f := range flip {
		m.Flip.Abs[i] = float64(f)
	}
	return m, nil
}

// nearModelVersion is the newest model's version (0: none), cheap enough to
// ask before every upload check.
func nearModelVersion(ctx context.Context, q store.Querier) (int64, error) {
	var v int64
	if err := q.QueryRow(ctx, `select coalesce(max(version), 0) from neardup_models`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read the near-duplicate model version: %w", err)
	}
	return v, nil
}

// insertNearModel stores a new model in tx and sets m.Version. Older models
// are deleted: every hash is rewritten with the new one in the same
// transaction, and upload-time hashes of an older version are ignored.
func insertNearModel(ctx context.Context, tx pgx.Tx, runID int64, m *nearModel) error {
	flip := make([]float32, len(m.Flip.Abs))
	for i, f := range m.Flip.Abs {
		flip[i] = float32(f)
	}
	if err := tx.QueryRow(ctx, `
		insert into neardup_models (run_id, docs, sample_docs, df, flip, pairs_real, pairs_synth)
		values ($1, $2, $3, $4, $5, $6, $7) returning version`,
		runID, m.Docs, m.SampleDocs, m.idf.Encode(), flip, m.PairsReal, m.PairsSynth).Scan(&m.Version); err != nil {
		return fmt.Errorf("store the near-duplicate model: %w", err)
	}
	if _, err := tx.Exec(ctx, `delete from neardup_models where version < $1`, m.Version); err != nil {
		return fmt.Errorf("drop old near-duplicate models: %w", err)
	}
	return nil
}
