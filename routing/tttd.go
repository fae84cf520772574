package routing

// TTTD content-defined chunking (Two Thresholds, Two Divisors; Eshghi and
// Tang, HP Labs TR 2005-30), the chunker Bhagwat et al. uses. The basic sliding
// window algorithm cuts where the hash of the last W bytes is 0 mod D; TTTD
// bounds chunk sizes to [Tmin, Tmax] and, to avoid cutting blindly at Tmax,
// remembers the last position where a second, smaller divisor D' matched
// (more likely to hit) and cuts there instead. Cuts remain a function of the
// local content, so an insertion moves the boundaries near it and the later
// ones only shift with the text.
//
// The rolling hash is the package's polynomial hash (hash.go) over a window
// of W bytes, mixed before the modulus. A polynomial (Rabin-Karp) hash rather
// than Gear: Gear's low bits see only the last few bytes, and the moduli
// here read every bit, so Gear would need the high-bit masking variant to
// get a real window; the polynomial gets one directly for one multiply more.

import "math"

// ChunkParams are TTTD's parameters. The hash test at a byte is f mod D ==
// D-1 (main) and f mod D' == D'-1 (backup), where f is the high 32 bits of
// the mixed window hash (32-bit divisions are the cheaper ones).
type ChunkParams struct {
	Min, Max int // chunk size bounds Tmin, Tmax (bytes, inclusive)
	D        int // main divisor
	Backup   int // backup divisor D' (TTTD uses D/2: hits twice as often)
	Window   int // bytes in the rolling hash window (<= Min)
	// D and Backup must be below 2^32.
}

// DefaultChunkParams are the TTTD paper's parameters (Tmin 460, Tmax 2800,
// D 540, D' 270, average ~1 KB) divided by ten for Bhagwat et al.'s average chunk
// of about 100 bytes. The window is 16 bytes: long enough to be specific in
// text, short enough to fit Tmin with room.
var DefaultChunkParams = ChunkParams{Min: 46, Max: 280, D: 54, Backup: 27, Window: 16}

// valid reports whether p can be chunked with.
func (p ChunkParams) valid() bool {
	return p.Min >= 1 && p.Max >= p.Min && p.D >= 1 && p.Backup >= 1 &&
		p.Window >= 1 && p.Window <= p.Min && p.D <= math.MaxUint32 && p.Backup <= math.MaxUint32
}

// Chunks appends to dst[:0] the chunk boundaries of data: the end offset
// (exclusive) of each chunk, in order; the last is len(data). Chunk i is
// data[ends[i-1]:ends[i]] (from 0 for i = 0). Every chunk but the last has
// a length in [p.Min, p.Max]. Empty data has no chunks. It panics on invalid
// parameters.
func Chunks(data []byte, p ChunkParams, dst []int) []int {
	if !p.valid() {
		panic("routing: invalid ChunkParams")
	}
	dst = dst[:0]
	out := powBase(p.Window) // weight of the byte leaving the window
	d, bd := uint32(p.D), uint32(p.Backup)
	var h uint64
	start, backup := 0, -1 // current chunk's start; last backup cut end, or -1
	for i, c := range data {
		// The window is continuous across chunk boundaries: a cut depends on
		// the W bytes before it, never on where the previous chunk began.
		h = h*polyBase + byteTab[c]
		if i >= p.Window {
			h -= out * byteTab[data[i-p.Window]]
		}
		n := i + 1 - start // length of the chunk if cut after byte i
		if n < p.Min {
			continue
		}
		f := uint32(mix(h) >> 32)
		if f%bd == bd-1 {
			backup = i + 1
		}
		if f%d == d-1 {
			dst = append(dst, i+1)
			start, backup = i+1, -1
			continue
		}
		if n < p.Max {
			continue
		}
		// At Tmax without a main hit: cut at the last backup hit if any,
		// else here. Bytes after a backup cut stay scanned: none of them hit
		// D (we would have cut) and none hit D' (backup is the last).
		if backup > 0 {
			dst = append(dst, backup)
			start = backup
		} else {
			dst = append(dst, i+1)
			start = i + 1
		}
		backup = -1
	}
	if start < len(data) {
		dst = append(dst, len(data))
	}
	return dst
}
