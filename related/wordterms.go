package related

import (
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/plagd/plagd/invindex"
)

// WordTerms gives each word of text (as the index's tokenizer found them)
// its term for passage's sentence seeds (passage.Doc.Terms): the hash
// (TermHash) of its stem in the text's language, which Detect guesses from
// the start of the text, and 0 for a stop word or a word that is no term.
// A word is analysed once per language for the whole process (wordTermCache,
// keyed by the tokenizer's hash of the normalised word): a report aligns a
// text with a hundred sources whose words are mostly the same few thousand.
func WordTerms(text string, words []invindex.Word) []uint64 {
	lang := Detect(Words(detectPrefix(text), nil), AllLangs)
	terms := make([]uint64, len(words))
	var buf []string
	// A direct-mapped memo of this text's words in front of the shared
	// cache: most of a text's words are a few frequent ones, and the memo
	// needs no lock.
	var memo [1024]struct{ word, term uint64 }
	for i, w := range words {
		m := &memo[w.Hash&1023]
		if m.word == w.Hash && w.Hash != 0 {
			terms[i] = m.term
			continue
		}
		h, ok := wordTermCache.get(lang, w.Hash)
		if !ok {
			if buf = Words(text[w.Start:w.End], buf[:0]); len(buf) == 1 {
				if stem, ok := lang.Term(buf[0]); ok {
					h = TermHash(stem)
				}
			}
			wordTermCache.put(lang, w.Hash, h)
		}
		m.word, m.term = w.Hash, h
		terms[i] = h
	}
	return terms
}

// termCache maps (language, word hash) to the word's term, in shards that
// are emptied when they reach termCacheShardSize entries: a bound on memory
// that costs a few re-analysed words, never a wrong term.
type termCache struct {
	shards [termCacheShards]termShard
}

type termShard struct {
	mu sync.RWMutex
	m  map[uint64]uint64
}

const (
	termCacheShards    = 64
	termCacheShardSize = 1 << 14 // 1M entries in all, about 40 MB
)

var wordTermCache termCache

func (c *termCache) key(l Lang, word uint64) uint64 {
	return word*0x9E3779B97F4A7C15 ^ uint64(l)
}

func (c *termCache) get(l Lang, word uint64) (uint64, bool) {
	k := c.key(l, word)
	s := &c.shards[k>>58]
	s.mu.RLock()
	t, ok := s.m[k]
	s.mu.RUnlock()
	return t, ok
}

func (c *termCache) put(l Lang, word, term uint64) {
	k := c.key(l, word)
	s := &c.shards[k>>58]
	s.mu.Lock()
	if s.m == nil || len(s.m) >= termCacheShardSize {
		s.m = make(map[uint64]uint64, 256)
	}
	s.m[k] = term
	s.mu.Unlock()
}

// detectPrefix is the start of text that Detect reads: it looks at the
// first detectSample words only, which 4 KiB of prose hold.
func detectPrefix(text string) string {
	const n = 4 << 10
	if len(text) <= n {
		return text
	}
	cut := strings.LastIndexByte(text[:n], ' ')
	if cut < 0 {
		cut = n
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
	}
	return text[:cut]
}
