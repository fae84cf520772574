package related

import (
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/plagd/plagd/disguise"
	"github.com/plagd/plagd/invindex"
)

// WordTerms gives each word of text (as the index's tokenizer found them)
// its term for passage's sentence seeds (passage.Doc.SetTerms): the hash
// (TermHash) of its stem in the text's language, which Detect guesses from
// the start of the text, and 0 for a stop word or a word that is no term.
// The term is a function of the word's spelling (its disguises undone,
// see disguise.PlainWord) and the language alone, so a text gets the same
// terms whenever and wherever it is analysed (a run's stored report and
// the one a teacher opens later must agree); each spelling is analysed
// once per language for the whole process (wordTermCache): a report
// aligns a text with a hundred sources whose words are mostly the same
// few thousand.
func WordTerms(text string, words []invindex.Word) []uint64 {
	// A disguised copy must get the terms of the clean one: look-alike
	// letters and invisible characters are undone word by word as
	// disguise.Plain undoes them in the whole text (disguise.PlainWord),
	// before the language is guessed and the words are stemmed.
	// An ASCII text has only letter-spaced words to undo, which the
	// tokenizer's words already are.
	spell := func(i int) string { return text[words[i].Start:words[i].End] }
	var lang Lang
	if !isASCII(text) && disguise.MaybeDisguised(text) {
		dominant, found := "", false // found at the first word that needs it
		spell = func(i int) string {
			word := text[words[i].Start:words[i].End]
			if isASCII(word) {
				return word
			}
			if !found {
				dominant, found = disguise.Dominant(text), true
			}
			var prev, next string
			if i > 0 {
				prev = text[words[i-1].Start:words[i-1].End]
			}
			if i+1 < len(words) {
				next = text[words[i+1].Start:words[i+1].End]
			}
			return disguise.PlainWord(word, dominant, prev, next)
		}
		var sb strings.Builder
		for i, w := range words {
			if int(w.End) > detectPrefixBytes {
				break
			}
			sb.WriteString(spell(i))
			sb.WriteByte(' ')
		}
		lang = Detect(Words(sb.String(), nil), AllLangs)
	} else {
		lang = Detect(Words(detectPrefix(text), nil), AllLangs)
	}
	terms := make([]uint64, len(words))
	var buf []string
	// A direct-mapped memo of this text's spellings in front of the shared
	// cache: most of a text's words are a few frequent ones, and the memo
	// needs no lock.
	var memo [1024]struct {
		word string
		term uint64
	}
	for i, w := range words {
		raw := spell(i)
		m := &memo[w.Hash&1023]
		if m.word == raw && raw != "" {
			terms[i] = m.term
			continue
		}
		h, ok := wordTermCache.get(lang, raw)
		if !ok {
			if buf = Words(raw, buf[:0]); len(buf) == 1 {
				if stem, ok := lang.Term(buf[0]); ok {
					h = TermHash(stem)
				}
			}
			wordTermCache.put(lang, raw, h)
		}
		m.word, m.term = raw, h
		terms[i] = h
	}
	return terms
}

// termCache maps (language, spelling) to the spelling's term, in shards
// that are emptied when they reach termCacheShardSize entries: a bound on
// memory that costs a few re-analysed words, never a different term.
type termCache struct {
	shards [numLangs][termCacheShards]termShard
}

type termShard struct {
	mu sync.RWMutex
	m  map[string]uint64
}

const (
	termCacheShards    = 16
	termCacheShardSize = 1 << 14 // 256k spellings per language, about 20 MB
)

var wordTermCache termCache

func (c *termCache) shard(l Lang, word string) *termShard {
	return &c.shards[l][TermHash(word)%termCacheShards]
}

func (c *termCache) get(l Lang, word string) (uint64, bool) {
	s := c.shard(l, word)
	s.mu.RLock()
	t, ok := s.m[word]
	s.mu.RUnlock()
	return t, ok
}

func (c *termCache) put(l Lang, word string, term uint64) {
	s := c.shard(l, word)
	s.mu.Lock()
	if s.m == nil || len(s.m) >= termCacheShardSize {
		s.m = make(map[string]uint64, 256)
	}
	s.m[strings.Clone(word)] = term // not a slice of the text, which the cache would keep alive
	s.mu.Unlock()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// detectPrefixBytes is how much of a text's start WordTerms reads to
// guess its language: Detect looks at the first detectSample words only,
// which 4 KiB of prose hold.
const detectPrefixBytes = 4 << 10

// detectPrefix is the start of text that Detect reads (detectPrefixBytes).
func detectPrefix(text string) string {
	const n = detectPrefixBytes
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
