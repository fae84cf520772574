package engine

import (
	"sync"

	"github.com/plagd/plagd/invindex"
	"github.com/plagd/plagd/passage"
	"github.com/plagd/plagd/report"
)

// indexCacheBytes bounds the memory of the tokenised texts a refresh
// keeps (docCache), as passage.Doc.Bytes counts it: words, window keys and
// their index, sentences and their terms, about fifteen times the text.
// The refresh's order (indexPlan) lets the cache keep only Docs a later
// report uses, mostly those of the group of documents at hand; with it,
// 512 MiB tokenise 65,219 texts for the 53,451 a full refresh of the
// realistic 100k archive needs, and 21,078 for 19,322 at 20k
// (docs/PERFORMANCE.md).
const indexCacheBytes = 512 << 20

// docCache keeps the tokenised texts (passage.Doc) of the sources a
// refresh aligned, up to a budget of bytes (passage.Doc.Bytes), so that
// a source of many lists is tokenised once rather than once per list.
// Over the budget an arbitrary entry makes room. Safe for concurrent use.
type docCache struct {
	p      invindex.Params
	align  passage.Options // the reports' alignment, for their sources' terms
	budget int
	mu     sync.Mutex
	used   int
	docs   map[int64]*passage.Doc
	toks   sync.Pool
	// uses counts the uses of each document's Doc still to come, as the
	// refresh's plan foresaw them (indexPlan): a Doc is kept only while one
	// is, and dropped after its last.
	uses      map[int64]int32
	tokenised int // Docs made (the rest came from the cache)
}

func newDocCache(p invindex.Params, align passage.Options, budget int, uses map[int64]int32) *docCache {
	c := &docCache{p: p, align: align, budget: budget, docs: map[int64]*passage.Doc{}, uses: uses}
	c.toks.New = func() any { return invindex.NewTokenizer(p) }
	return c
}

// texts are the texts of those of ids the cache holds.
func (c *docCache) texts(ids []int64) map[int64]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[int64]string{}
	for _, id := range ids {
		if d, ok := c.docs[id]; ok {
			out[id] = d.Text
		}
	}
	return out
}

// get is the tokenised text of document id (text): report.Options.SourceDoc.
func (c *docCache) get(id int64, text string) *passage.Doc {
	c.mu.Lock()
	d, ok := c.docs[id]
	later := c.useOnce(id)
	if ok && d.Text == text {
		if !later {
			c.used -= d.Bytes()
			delete(c.docs, id)
		}
		c.mu.Unlock()
		return d
	}
	c.tokenised++
	c.mu.Unlock()
	tok := c.toks.Get().(*invindex.Tokenizer)
	d = report.NewDoc(tok, text, c.align)
	c.toks.Put(tok)
	size := d.Bytes()
	if !later || size > c.budget/4 {
		return d
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for old, od := range c.docs {
		if c.used+size <= c.budget {
			break
		}
		c.used -= od.Bytes()
		delete(c.docs, old)
	}
	if prev, ok := c.docs[id]; ok {
		c.used -= prev.Bytes()
	}
	c.docs[id] = d
	c.used += size
	return d
}

// useOnce counts one use of document id's Doc and says whether another is
// to come. The caller holds mu.
func (c *docCache) useOnce(id int64) bool {
	n := c.uses[id] - 1
	if n <= 0 {
		delete(c.uses, id)
		return false
	}
	c.uses[id] = n
	return true
}
