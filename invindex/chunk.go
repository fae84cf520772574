package invindex

import (
	"math/bits"
	"slices"
)

// HashVersion identifies the tokenizer and hash definition: word splitting,
// normalisation, the word hash and WindowHash. It is written into index
// files; bump it whenever any output of Words, ChunkIDs or DocChunks could
// change, so that old indexes are rebuilt instead of silently mismatching.
const HashVersion = 1

// Window hash constants. They are part of the on-disk format (HashVersion 1)
// and must never change.
const (
	// windowSeed is the start value: the first 64 bits of the fraction of
	// pi (0x243F6A88 85A308D3), a nothing-up-my-sleeve number.
	windowSeed = 0x243F6A8885A308D3
	// windowPrime is 2^64 / golden ratio, rounded to odd; multiplying by it
	// spreads every input bit over the higher bits.
	windowPrime = 0x9E3779B97F4A7C15
	// windowRot moves the well-mixed high bits back down before the next
	// word is xored in, so that word order matters at every bit position.
	windowRot = 27
)

// WindowHash is the chunk ID of a window of words, given their word hashes
// (Word.Hash) in text order, truncated to bits bits (0..32):
//
//	h := 0x243F6A8885A308D3
//	for each word hash w:  h = rotl64((h ^ w) * 0x9E3779B97F4A7C15, 27)
//	h = splitmix64 finalizer(h):
//	    h ^= h >> 30; h *= 0xBF58476D1CE4E5B9
//	    h ^= h >> 27; h *= 0x94D049BB133111EB
//	    h ^= h >> 31
//	chunk ID = top `bits` bits of h, i.e. h >> (64 - bits)
//
// Word hashes are FNV-1a 64 over the normalised word (see Tokenizer.Words).
// The multiply-rotate chain is order-sensitive and cheap (one multiply per
// word); the splitmix64 finalizer gives full avalanche, so the chunk IDs are
// uniform over the ID space, which the range split across nodes and the
// bucket sort rely on. The top bits are taken because after a multiply they
// are the best mixed. Together with HashVersion this definition is stable
// forever: a test vector pins it.
//
// WindowHash panics if bits > 32.
func WindowHash(wordHashes []uint64, bits uint) uint32 {
	if bits > 32 {
		panic("invindex: WindowHash: bits > 32")
	}
	h := uint64(windowSeed)
	for _, w := range wordHashes {
		h = windowStep(h, w)
	}
	return uint32(splitmix64(h) >> (64 - bits))
}

func windowStep(h, w uint64) uint64 {
	return bits.RotateLeft64((h^w)*windowPrime, windowRot)
}

// splitmix64 is the finalizer of Steele, Lea and Flood's SplitMix64.
func splitmix64(z uint64) uint64 {
	z ^= z >> 30
	z *= 0xBF58476D1CE4E5B9
	z ^= z >> 27
	z *= 0x94D049BB133111EB
	z ^= z >> 31
	return z
}

// ChunkIDs appends to dst[:0] one chunk ID per window position
// i = 0..len(words)-N (the window words[i:i+N], N = Params.WindowWords), in
// text order, so chunk i spans words[i].Start to words[i+N-1].End. Fewer
// than N words give no chunks. Each ID equals WindowHash of the window's word
// hashes at Params.ChunkBits.
func (t *Tokenizer) ChunkIDs(words []Word, dst []uint32) []uint32 {
	dst = dst[:0]
	n := t.p.WindowWords
	if len(words) < n {
		return dst
	}
	count := len(words) - n + 1
	dst = slices.Grow(dst, count)[:count]
	shift := 64 - t.p.ChunkBits
	if n == 5 {
		// The default window, unrolled: half again as fast as the loop,
		// because the five multiplies of a window no longer wait for
		// loop control and the next window's chain can start early.
		for i := range dst {
			w := words[i : i+5 : i+5]
			h := windowStep(windowSeed, w[0].Hash)
			h = windowStep(h, w[1].Hash)
			h = windowStep(h, w[2].Hash)
			h = windowStep(h, w[3].Hash)
			h = windowStep(h, w[4].Hash)
			dst[i] = uint32(splitmix64(h) >> shift)
		}
		return dst
	}
	for i := range dst {
		h := uint64(windowSeed)
		for _, w := range words[i : i+n] {
			h = windowStep(h, w.Hash)
		}
		dst[i] = uint32(splitmix64(h) >> shift)
	}
	return dst
}

// DocChunks tokenises text and returns its number of words and its distinct
// chunk IDs sorted ascending. The slice is freshly allocated with exactly
// that length, so callers may keep it; all other memory is t's reused
// buffers.
//
// The number of chunks of the document, the denominator of its similarity,
// is max(0, words-N+1); duplicates are counted there but appear once in
// chunks.
func (t *Tokenizer) DocChunks(text string) (words int, chunks []uint32) {
	t.words = t.Words(text, t.words)
	t.chunks = t.ChunkIDs(t.words, t.chunks)
	if cap(t.scratch) < len(t.chunks) {
		t.scratch = make([]uint32, len(t.chunks), cap(t.chunks))
	}
	distinct := SortDistinct(t.chunks, t.scratch)
	chunks = make([]uint32, len(distinct))
	copy(chunks, distinct)
	return len(t.words), chunks
}

// SortDistinct tuning. Radix sorts cost O(n) plus a fixed cost per pass for
// clearing and summing the histograms, so the digit width follows n: below
// sdMinRadixLen a comparison sort wins outright; up to sdWideLen, 8-bit
// digits (256 counters, four passes for 32-bit IDs) keep the fixed cost low;
// beyond, 11-bit digits (2048 counters, 8 KiB, still L1-resident) save a
// pass: three passes cover 32-bit IDs, two cover IDs below 2^22.
const (
	sdMinRadixLen = 128
	sdWideLen     = 2048
)

// SortDistinct sorts ids ascending in place and removes duplicates, returning
// the distinct prefix of ids. It is an LSD radix sort with 8-bit digits for
// short inputs and 11-bit digits for long ones; only as many passes run as
// the largest ID needs, and a pass whose digit is the same for all IDs is
// skipped. On chunk IDs it is several times faster than slices.Sort (see
// BenchmarkSortDistinct).
//
// scratch is a buffer of at least len(ids) elements the caller may pass to
// avoid an allocation; nil or a shorter one means SortDistinct allocates.
// The contents of scratch are clobbered.
func SortDistinct(ids []uint32, scratch []uint32) []uint32 {
	n := len(ids)
	if n < sdMinRadixLen {
		slices.Sort(ids)
		return slices.Compact(ids)
	}
	if cap(scratch) < n {
		scratch = make([]uint32, n)
	}
	scratch = scratch[:n]
	var sorted []uint32
	if n < sdWideLen {
		sorted = radixSort8(ids, scratch)
	} else {
		sorted = radixSort11(ids, scratch)
	}
	// Write the distinct values of sorted to the front of ids (in place if
	// sorted is ids: the write index never passes the read index).
	out := 0
	prev := ^sorted[0]
	for _, v := range sorted {
		if v != prev {
			ids[out] = v
			out++
			prev = v
		}
	}
	return ids[:out]
}

// radixSort8 sorts a (len >= 1) by 8-bit digits, using b (same length) as
// the other buffer, and returns whichever of the two holds the result.
func radixSort8(a, b []uint32) []uint32 {
	const width, mask = 8, 1<<8 - 1
	var counts [4][1 << width]uint32
	var all uint32
	for _, v := range a {
		all |= v
		counts[0][v&mask]++
		counts[1][v>>width&mask]++
		counts[2][v>>(2*width)&mask]++
		counts[3][v>>(3*width)]++
	}
	passes := (bits.Len32(all) + width - 1) / width
	for p := range passes {
		shift := uint(p * width)
		if scatter(a, b, counts[p][:], shift, mask) {
			a, b = b, a
		}
	}
	return a
}

// radixSort11 is radixSort8 with 11-bit digits.
func radixSort11(a, b []uint32) []uint32 {
	const width, mask = 11, 1<<11 - 1
	var counts [3][1 << width]uint32
	var all uint32
	for _, v := range a {
		all |= v
		counts[0][v&mask]++
		counts[1][v>>width&mask]++
		counts[2][v>>(2*width)]++
	}
	passes := (bits.Len32(all) + width - 1) / width
	for p := range passes {
		shift := uint(p * width)
		if scatter(a, b, counts[p][:], shift, mask) {
			a, b = b, a
		}
	}
	return a
}

// scatter is one stable counting-sort pass of src into dst by the digit
// (v >> shift) & mask, whose histogram is count. It returns false, doing
// nothing, when all values share the digit.
func scatter(src, dst, count []uint32, shift uint, mask uint32) bool {
	if count[src[0]>>shift&mask] == uint32(len(src)) {
		return false
	}
	var sum uint32
	for d, k := range count {
		count[d] = sum
		sum += k
	}
	dst = dst[:len(src)]
	for _, v := range src {
		d := v >> shift & mask
		dst[count[d]] = v
		count[d]++
	}
	return true
}
