package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/plagd/plagd/invindex"
	"github.com/plagd/plagd/neardup"
	"github.com/plagd/plagd/store"
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
	idf        sampleIDF
	Flip       neardup.FlipModel
}

// sampleIDF is the smoothed IDF of neardup.DocFreq over a sample of the
// archive, held as sorted arrays (12 bytes a word instead of a map's ~40).
// Words seen in one sampled document only are not stored: they weigh the
// same as words never seen, which is what a rare word should weigh.
type sampleIDF struct {
	docs int
	keys []uint64 // ascending
	df   []uint32
}

// IDF implements neardup.IDF.
func (s *sampleIDF) IDF(feature uint64) float64 {
	if s.docs == 0 {
		return 1
	}
	df := 1
	if i, ok := slices.BinarySearch(s.keys, feature); ok {
		df = int(s.df[i])
	}
	return math.Log(float64(1+s.docs)/float64(1+df)) + 1
}

// newSampleIDF keeps the words of d that occur in at least two documents.
func newSampleIDF(d *neardup.DocFreq) sampleIDF {
	s := sampleIDF{docs: d.Docs}
	for k, n := range d.DF {
		if n >= 2 {
			s.keys = append(s.keys, k)
		}
	}
	slices.Sort(s.keys)
	s.df = make([]uint32, len(s.keys))
	for i, k := range s.keys {
		s.df[i] = d.DF[k]
	}
	return s
}

// encode is the neardup_models.df column: (feature, df) pairs, little-endian.
func (s *sampleIDF) encode() []byte {
	b := make([]byte, 0, 12*len(s.keys))
	for i, k := range s.keys {
		b = binary.LittleEndian.AppendUint64(b, k)
		b = binary.LittleEndian.AppendUint32(b, s.df[i])
	}
	return b
}

func decodeSampleIDF(docs int, b []byte) (sampleIDF, error) {
	if len(b)%12 != 0 {
		return sampleIDF{}, fmt.Errorf("document frequencies: %d bytes is not a whole number of entries", len(b))
	}
	s := sampleIDF{docs: docs, keys: make([]uint64, len(b)/12), df: make([]uint32, len(b)/12)}
	for i := range s.keys {
		s.keys[i] = binary.LittleEndian.Uint64(b[12*i:])
		s.df[i] = binary.LittleEndian.Uint32(b[12*i+8:])
		if i > 0 && s.keys[i] <= s.keys[i-1] {
			return sampleIDF{}, errors.New("document frequencies are not sorted")
		}
	}
	return s, nil
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
	return neardup.Simhash(h.features(text), &h.m.idf)
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
	if m.idf, err = decodeSampleIDF(m.SampleDocs, df); err != nil {
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
		runID, m.Docs, m.SampleDocs, m.idf.encode(), flip, m.PairsReal, m.PairsSynth).Scan(&m.Version); err != nil {
		return fmt.Errorf("store the near-duplicate model: %w", err)
	}
	if _, err := tx.Exec(ctx, `delete from neardup_models where version < $1`, m.Version); err != nil {
		return fmt.Errorf("drop old near-duplicate models: %w", err)
	}
	return nil
}
