package engine

import (
	"sync"

	"github.com/plagd/plagd/invindex"
	"github.com/plagd/plagd/passage"
	"github.com/plagd/plagd/report"
)

// indexCacheBytes bounds the texts whose tokenisation a refresh keeps
// (docCache): about four times as much memory, for words and window keys.
// In the realistic 20k archive the sources of all lists hold 117 MB of
// text and each is a source of five lists on average.
const indexCacheBytes = 96 << 20

// docCache keeps the tokenised texts (passage.Doc) of the sources a
// refresh aligned, up to a budget of text bytes, so that a source of many
// lists is tokenised once rather than once per list. Over the budget an
// arbitrary entry makes room. Safe for concurrent use.
type docCache struct {
	p      invindex.Params
	align  passage.Options // the reports' alignment, for their sources' terms
	budget int
	mu     sync.Mutex
	used   int
	docs   map[int64]*passage.Doc
	toks   sync.Pool
}

func newDocCache(p invindex.Params, align passage.Options, budget int) *docCache {
	c := &docCache{p: p, align: align, budget: budget, docs: map[int64]*passage.Doc{}}
	c.toks.New = func() any { return invindex.NewTokenizer(p) }
	return c
}

// get is the tokenised text of document id (text): report.Options.SourceDoc.
func (c *docCache) get(id int64, text string) *passage.Doc {
	c.mu.Lock()
	d, ok := c.docs[id]
	c.mu.Unlock()
	if ok && d.Text == text {
		return d
	}
	tok := c.toks.Get().(*invindex.Tokenizer)
	d = report.NewDoc(tok, text, c.align)
	c.toks.Put(tok)
	if len(text) > c.budget/4 {
		return d
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for old, od := range c.docs {
		if c.used+len(text) <= c.budget {
			break
		}
		c.used -= len(od.Text)
		delete(c.docs, old)
	}
	if prev, ok := c.docs[id]; ok {
		c.used -= len(prev.Text)
	}
	c.docs[id] = d
	c.used += len(text)
	return d
}
