package invindex

import (
	"math/bits"
	"slices"
)

// HashVersion identifies the tokenizer and hash definition: word splitting,
// normalisation, the word hash, WindowHash and WindowFingerprint. It is
// written into index files; bump it whenever any output of Words, ChunkIDs
// or DocChunks could change, so that old indexes are rebuilt instead of
// silently mismatching.
//
//	1  chunk IDs only
//	2  DocChunks also returns each chunk's 8-bit fingerprint
//	3  Words undoes disguises: invisible characters inside a word are
//	   skipped, look-alike letters hash as their ASCII prototype, and
//	   letter-spaced words are joined (an index of version 2 is rebuilt
//	   by a full run: the engine's settings include HashVersion)
//	4  a capital look-alike whose own look differs from its fold's
//	   (Greek "Ν", "Υ") hashes as written in a Latin word (capitals.go);
//	   a letter-spaced run whose words were spaced like its letters is
//	   cut into English words (disguise.SpacedWords)
const HashVersion = 4

// Window hash constants. They are part of the on-disk format (since
// HashVersion 1) and must never change.
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
	return uint32(windowHash64(windowSeed, wordHashes) >> (64 - bits))
}

// WindowFingerprint is the fingerprint of a window: the 8 bits of the same
// 64-bit window hash right below the chunk-ID bits,
//
//	fingerprint = uint8(h >> (56 - bits))   (chunk ID = h >> (64 - bits))
//
// so chunk ID and fingerprint together are the top bits+8 bits of h. Two
// windows "share a chunk" only if both agree: at 28 bits about a third of
// all chunk IDs are taken once an archive holds 100M distinct windows, so
// the ID alone makes every document share a chunk with hundreds of
// unrelated ones; the fingerprint cuts such accidental matches 256-fold at
// no cost in the ID space, the range split or the index (it rides in the
// low byte of each posting). It panics if bits > 32.
func WindowFingerprint(wordHashes []uint64, bits uint) uint8 {
	if bits > 32 {
		panic("invindex: WindowFingerprint: bits > 32")
	}
	return uint8(windowHash64(windowSeed, wordHashes) >> (56 - bits))
}

// windowHash64 is the full 64-bit hash of a window of word hashes, from seed:
// the multiply-rotate chain and the splitmix64 finalizer described above.
func windowHash64(seed uint64, wordHashes []uint64) uint64 {
	h := seed
	for _, w := range wordHashes {
		h = windowStep(h, w)
	}
	return splitmix64(h)
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
	// One window-hash loop (chunkKeys) serves both: an ID is a key without
	// its fingerprint byte.
	t.keys = t.chunkKeys(words, t.keys)
	dst = slices.Grow(dst[:0], len(t.keys))
	for _, k := range t.keys {
		dst = append(dst, uint32(k>>8))
	}
	return dst
}

// chunkKeys appends to dst[:0] the key
// id<<8 | fingerprint of every window, that is the top ChunkBits+8 bits of
// its window hash (see WindowFingerprint).
func (t *Tokenizer) chunkKeys(words []Word, dst []uint64) []uint64 {
	dst = dst[:0]
	n := t.p.WindowWords
	if n != 5 {
		return t.appendKeys(words, dst, n, windowSeed)
	}
	if len(words) < n {
		return dst
	}
	count := len(words) - n + 1
	dst = slices.Grow(dst, count)[:count]
	shift := 56 - t.p.ChunkBits
	// The default window, unrolled: half again as fast as appendKeys' loop,
	// because the five multiplies of a window no longer wait for loop
	// control and the next window's chain can start early.
	for i := range dst {
		w := words[i : i+5 : i+5]
		h := windowStep(windowSeed, w[0].Hash)
		h = windowStep(h, w[1].Hash)
		h = windowStep(h, w[2].Hash)
		h = windowStep(h, w[3].Hash)
		h = windowStep(h, w[4].Hash)
		dst[i] = splitmix64(h) >> shift
	}
	return dst
}

// extraWindowSeed starts the hash of the extra chunk kind
// (Params.ExtraWindowWords): the next 64 bits of the fraction of pi after
// windowSeed, so that its windows and the main ones are different functions.
const extraWindowSeed = 0x13198A2E03707344

// appendKeys appends the key (id<<8 | fingerprint) of every n-word window
// hashed from seed: chunkKeys for other window sizes, and the extra chunk kind.
func (t *Tokenizer) appendKeys(words []Word, dst []uint64, n int, seed uint64) []uint64 {
	shift := 56 - t.p.ChunkBits
	for i := 0; i+n <= len(words); i++ {
		h := seed
		for _, w := range words[i : i+n] {
			h = windowStep(h, w.Hash)
		}
		dst = append(dst, splitmix64(h)>>shift)
	}
	return dst
}

// DocChunks tokenises text and returns its number of words, its distinct
// chunk IDs sorted ascending, and the fingerprint of each (checks[i]
// belongs to chunks[i], see WindowFingerprint). Both slices are freshly
// allocated with exactly that length, so callers may keep them; all other
// memory is t's reused buffers.
//
// With Params.ExtraWindowWords the windows of that length are chunks too.
// The number of chunks of the document, the denominator of its similarity,
// is the number of distinct chunk IDs returned. When windows of the document have the same chunk ID but
// different fingerprints (a 28-bit collision inside the document: about one
// per 20,000-chunk thesis), the ID appears once with the smallest of the
// fingerprints, so the result is deterministic; the other window is lost
// for matching, which costs that document at most one shared chunk.
func (t *Tokenizer) DocChunks(text string) (words int, chunks []uint32, checks []uint8) {
	t.words = t.Words(text, t.words)
	t.keys = t.chunkKeys(t.words, t.keys)
	if n := t.p.ExtraWindowWords; n > 0 {
		t.keys = t.appendKeys(t.words, t.keys, n, extraWindowSeed)
	}
	if cap(t.scratch) < len(t.keys) {
		t.scratch = make([]uint64, len(t.keys), cap(t.keys))
	}
	keys := distinctKeys(t.keys, t.scratch[:len(t.keys)], t.p.ChunkBits)
	chunks, checks = make([]uint32, len(keys)), make([]uint8, len(keys))
	for i, k := range keys {
		chunks[i], checks[i] = uint32(k>>8), uint8(k)
	}
	return len(t.words), chunks, checks
}

// distinctKeys sorts chunk keys (id<<8 | fingerprint, ids below 2^idBits)
// by id and keeps one key per id, the one with the smallest fingerprint. It
// returns a prefix of a or b, which have the same length and are clobbered.
//
// It is an LSD radix sort on the id bits only: the fingerprint decides
// nothing but ties inside a document, which are rare (see DocChunks) and
// settled by the final pass. Sorting 64-bit keys by the 28 id bits costs
// about what SortDistinct costs on 32-bit ids (three passes either way).
func distinctKeys(a, b []uint64, idBits uint) []uint64 {
	if len(a) < sdMinRadixLen {
		slices.Sort(a)
	} else {
		a = radixSortKeys(a, b, idBits)
	}
	out := 0
	for i := 0; i < len(a); {
		k := a[i]
		for i++; i < len(a) && a[i]>>8 == k>>8; i++ {
			k = min(k, a[i])
		}
		a[out] = k
		out++
	}
	return a[:out]
}

// radixSortKeys sorts a by bits [8, 8+idBits) of each key (idBits <= 32),
// stably, using b (same length) as the other buffer, and returns whichever
// holds the result. Long inputs take three passes (digits of at most 11
// bits), short ones four (at most 8 bits), whose histograms cost less to
// clear and sum. The histogram loop is unrolled: looping over the passes
// there costs more than a whole scatter pass.
func radixSortKeys(a, b []uint64, idBits uint) []uint64 {
	passes := uint(3)
	if len(a) < sdWideLen {
		passes = 4
	}
	width := (idBits + passes - 1) / passes
	mask := uint64(1)<<width - 1
	var counts [4][1 << 11]uint32
	c0, c1, c2, c3 := &counts[0], &counts[1], &counts[2], &counts[3]
	s1, s2, s3 := 8+width, 8+2*width, 8+3*width
	if passes == 3 {
		for _, v := range a {
			c0[v>>8&mask]++
			c1[v>>s1&mask]++
			c2[v>>s2&mask]++
		}
	} else {
		for _, v := range a {
			c0[v>>8&mask]++
			c1[v>>s1&mask]++
			c2[v>>s2&mask]++
			c3[v>>s3&mask]++
		}
	}
	for p := range passes {
		shift := 8 + p*width
		c := counts[p][:1<<width]
		if c[a[0]>>shift&mask] == uint32(len(a)) {
			continue // all keys share this digit
		}
		var sum uint32
		for d, k := range c {
			c[d] = sum
			sum += k
		}
		for _, v := range a {
			d := v >> shift & mask
			b[c[d]] = v
			c[d]++
		}
		a, b = b, a
	}
	return a
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
