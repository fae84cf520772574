package invindex

import "fmt"

// Params fix how text becomes chunk IDs. An index built with one Params is
// meaningless under another, so Params travel inside every index file and a
// mismatch forces a full rebuild.
type Params struct {
	// WindowWords is N: every run of N consecutive words is one chunk.
	WindowWords int
	// ChunkBits is the width of a chunk ID (20..32). The seed used 28-32 bits;
	// at 28 bits hash collisions change similarities by well under 1 %.
	ChunkBits uint
	// StripDiacritics folds letters to their base form (é → e) before hashing.
	// Off by default: in Czech, diacritics distinguish words.
	StripDiacritics bool
	// ExtraWindowWords, when not 0, adds a second kind of chunk: every run of
	// this many words (e.g. 3), hashed from another seed so the two kinds never
	// coincide by construction. Shorter windows survive paraphrase that breaks
	// every 5-word window (synonyms, reordering), at the price of more
	// postings and more sharing of common phrases; both kinds count in the
	// similarity, numerator and denominator alike. 0 (off) by default.
	ExtraWindowWords int
}

// DefaultParams are the parameters of a fresh installation.
func DefaultParams() Params {
	return Params{WindowWords: 5, ChunkBits: 28}
}

// Validate checks the ranges the algorithms rely on.
func (p Params) Validate() error {
	if p.WindowWords < 1 || p.WindowWords > 64 {
		return fmt.Errorf("window_words must be 1..64, got %d", p.WindowWords)
	}
	if p.ChunkBits < 20 || p.ChunkBits > 32 {
		return fmt.Errorf("chunk_bits must be 20..32, got %d", p.ChunkBits)
	}
	if p.ExtraWindowWords != 0 && (p.ExtraWindowWords < 1 || p.ExtraWindowWords > 64 || p.ExtraWindowWords == p.WindowWords) {
		return fmt.Errorf("extra_window_words must be 0 (off) or 1..64 and differ from window_words, got %d", p.ExtraWindowWords)
	}
	return nil
}

// SpaceSize is the number of distinct chunk IDs, 2^ChunkBits.
func (p Params) SpaceSize() uint64 { return 1 << p.ChunkBits }
