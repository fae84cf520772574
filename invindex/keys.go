package invindex

// WindowKeys appends to dst[:0] the key of every window position
// i = 0..len(words)-N, in text order (N = Params.WindowWords): key i is
// ChunkID<<8 | fingerprint of the window words[i:i+N], that is the top
// ChunkBits+8 bits of its window hash (WindowHash, WindowFingerprint).
// Fewer than N words give no keys.
//
// Unlike DocChunks, which keeps each chunk ID once, WindowKeys keeps every
// window and its position, which is what passage alignment (package
// passage) needs.
// Two windows have the same key exactly when they would share a chunk in
// the index: same chunk ID, same fingerprint. KeyChunk and KeyCheck take a
// key apart.
func (t *Tokenizer) WindowKeys(words []Word, dst []uint64) []uint64 {
	return t.chunkKeys(words, dst)
}

// WindowWords is N, the number of words per window of t's Params.
func (t *Tokenizer) WindowWords() int { return t.p.WindowWords }

// KeyChunk is the chunk ID of a window key (WindowKeys).
func KeyChunk(key uint64) uint32 { return uint32(key >> 8) }

// KeyCheck is the fingerprint of a window key (WindowKeys).
func KeyCheck(key uint64) uint8 { return uint8(key) }
