package invindex

import "testing"

// keysText is a sentence of ordinary prose, 19 words.
const keysText = "The committee examined the thesis in detail and found the methodology sound and the results reproducible in every respect"

// TestWindowKeys: a window key is the window's chunk ID and fingerprint,
// as ChunkIDs, WindowHash and WindowFingerprint compute them.
func TestWindowKeys(t *testing.T) {
	tok := NewTokenizer(DefaultParams())
	words := tok.Words(keysText, nil)
	keys := tok.WindowKeys(words, nil)
	ids := tok.ChunkIDs(words, nil)
	if len(keys) != len(words)-4 || len(ids) != len(keys) {
		t.Fatalf("%d keys, %d ids for %d words", len(keys), len(ids), len(words))
	}
	hashes := make([]uint64, 5)
	for i, k := range keys {
		for j := range hashes {
			hashes[j] = words[i+j].Hash
		}
		if KeyChunk(k) != ids[i] || KeyChunk(k) != WindowHash(hashes, 28) || KeyCheck(k) != WindowFingerprint(hashes, 28) {
			t.Fatalf("key %d = %#x: chunk %d check %d, want %d/%d", i, k, KeyChunk(k), KeyCheck(k), WindowHash(hashes, 28), WindowFingerprint(hashes, 28))
		}
	}
	if tok.WindowWords() != 5 {
		t.Fatalf("WindowWords = %d", tok.WindowWords())
	}
}
