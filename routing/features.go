package routing

// Feature extraction (Bhagwat et al., section 2.1): a document's features are the
// characteristic fingerprints of its TTTD chunks, each the minimum hash over
// the chunk's overlapping q-grams. The minimum is a min-hash sample of the
// chunk's q-grams, so a chunk that an edit touches slightly often keeps its
// fingerprint, and the q-gram hash (mixed, hash.go) stands in for the
// min-wise independent permutation the routing argument relies on.

import (
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/plagd/plagd/disguise"
)

// Q is the q-gram length of the characteristic fingerprint (Bhagwat et al.: 20).
const Q = 20

// Params are the feature extraction parameters.
type Params struct {
	Chunk ChunkParams
	Q     int // q-gram length in bytes
}

// DefaultParams are Bhagwat et al.'s: ~100-byte TTTD chunks and q = 20.
var DefaultParams = Params{Chunk: DefaultChunkParams, Q: Q}

// Normalize lower-cases text and collapses every run of white space to one
// space, trimming both ends, so that re-wrapping, re-indenting or
// re-capitalising a document does not change its chunks or features. Invalid
// UTF-8 bytes are kept as they are. Two of the disguises package invindex's
// tokenizer undoes are undone here too, with the same data: invisible
// characters (disguise.IsInvisible) are dropped and look-alike letters
// become their ASCII prototype (disguise.Prototype). Letter spacing is not:
// the features are over bytes, not words.
func Normalize(text []byte) []byte { return NormalizeAppend(make([]byte, 0, len(text)), text) }

// NormalizeAppend appends Normalize(text) to out.
func NormalizeAppend(out, text []byte) []byte {
	base := len(out)
	space := false
	for i := 0; i < len(text); {
		if keptASCII[text[i]] {
			// A run of ASCII bytes kept as they are (neither white space
			// nor capitals: most of a text), appended at once.
			j := i + 1
			for j < len(text) && keptASCII[text[j]] {
				j++
			}
			if space && len(out) > base {
				out = append(out, ' ')
			}
			space = false
			out = append(out, text[i:j]...)
			i = j
			continue
		}
		if c := text[i]; c < utf8.RuneSelf { // other ASCII: white space, capitals
			i++
			switch {
			case c == ' ' || '\t' <= c && c <= '\r':
				space = true
				continue
			case 'A' <= c && c <= 'Z':
				c += 'a' - 'A'
			}
			if space && len(out) > base {
				out = append(out, ' ')
			}
			space = false
			out = append(out, c)
			continue
		}
		r, n := utf8.DecodeRune(text[i:])
		if r == utf8.RuneError && n == 1 {
			if space && len(out) > base {
				out = append(out, ' ')
			}
			space = false
			out = append(out, text[i])
			i++
			continue
		}
		i += n
		if disguise.IsInvisible(r) {
			continue
		}
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && len(out) > base {
			out = append(out, ' ')
		}
		space = false
		lr := unicode.ToLower(r)
		if p, ok := disguise.Prototype(lr); ok {
			out = append(out, p...)
			continue
		}
		out = utf8.AppendRune(out, lr)
	}
	return out
}

// keptASCII marks the bytes NormalizeAppend copies as they are: ASCII other
// than white space and capital letters.
var keptASCII = func() (t [256]bool) {
	for c := range utf8.RuneSelf {
		t[c] = !(c == ' ' || '\t' <= c && c <= '\r' || 'A' <= c && c <= 'Z')
	}
	return t
}()

// Fingerprint is the characteristic fingerprint of one chunk: the minimum
// over its overlapping q-grams of mix(polynomial hash). A chunk shorter than
// q has no q-gram; it is fingerprinted by the hash of the whole chunk, which
// is the same function applied to a shorter string.
func Fingerprint(chunk []byte, q int) uint64 {
	if len(chunk) <= q {
		return mix(polyHash(chunk))
	}
	out := powBase(q)
	h := polyHash(chunk[:q])
	best := mix(h)
	for i := q; i < len(chunk); i++ {
		h = h*polyBase + byteTab[chunk[i]] - out*byteTab[chunk[i-q]]
		best = min(best, mix(h))
	}
	return best
}

// Features returns the features of a document's text: Normalize, chunk with
// TTTD, fingerprint every chunk, then sort and remove duplicates. The result
// is the sorted set the rest of the package works on (Route, Jaccard, the
// indexes); empty text has no features. It panics on invalid parameters.
func Features(text []byte, p Params) []uint64 {
	var x Extractor
	return x.Features(text, p)
}

// Extractor is Features with buffers reused from document to document
// (the normalised text, the chunk ends). One per goroutine.
type Extractor struct {
	text, norm []byte
	ends       []int
}

// FeaturesString is Features of a string, without a copy of it per call.
func (x *Extractor) FeaturesString(text string, p Params) []uint64 {
	x.text = append(x.text[:0], text...)
	return x.Features(x.text, p)
}

// Features is the package's Features, with the extractor's buffers.
func (x *Extractor) Features(text []byte, p Params) []uint64 {
	if p.Q < 1 {
		panic("routing: Params.Q < 1")
	}
	x.norm = NormalizeAppend(x.norm[:0], text)
	x.ends = Chunks(x.norm, p.Chunk, x.ends[:0])
	norm, ends := x.norm, x.ends
	fs := make([]uint64, 0, len(ends))
	start := 0
	for _, e := range ends {
		fs = append(fs, Fingerprint(norm[start:e], p.Q))
		start = e
	}
	slices.Sort(fs)
	return slices.Compact(fs)
}
