package pan

import (
	"fmt"
	"sync"

	"github.com/plagd/plagd/invindex"
	"github.com/plagd/plagd/passage"
	"github.com/plagd/plagd/related"
)

// AlignSettings are the passage-alignment settings of the evaluation.
type AlignSettings struct {
	// Aligner is "invindex" (passage.Align, the engine's aligner, named
	// after the package it first lived in) or "seed" (the stand-in in
	// seedalign.go, kept for comparison).
	Aligner string `json:"aligner"`
	// Window is the words per seed window (n-gram) for alignment. It is
	// independent of the index's window_words: retrieval uses the index's
	// 5-word chunks, alignment of a retrieved pair may use shorter windows,
	// which survive shuffling and synonym replacement.
	Window int `json:"window"`
	// MaxOcc ignores windows occurring more often than this in either text
	// of the pair (invindex: through passage.Options.Suppress).
	MaxOcc int `json:"max_occ"`
	// GapWords, MergeGapWords, MinWords, MinShared: see
	// passage.Options (and SeedOptions).
	GapWords      int `json:"gap_words"`
	MergeGapWords int `json:"merge_gap_words"`
	MinWords      int `json:"min_words"`
	MinShared     int `json:"min_shared"`
	// GapPenalty and MinDensity: see passage.Options (invindex only).
	GapPenalty float64 `json:"gap_penalty"`
	MinDensity float64 `json:"min_density"`
	// SupportWords and SupportDrift: see passage.Options.
	SupportWords int `json:"support_words"`
	SupportDrift int `json:"support_drift"`
	// SentenceDice: see passage.Options (invindex only); 0 turns sentence
	// seeds off.
	SentenceDice float64 `json:"sentence_dice"`
}

// DefaultAlignSettings were tuned on pan-id and on the English corpus of
// plagd-lab pan-gen (docs/QUALITY.md): a plateau, not a peak; neighbouring
// values score within a few hundredths.
func DefaultAlignSettings() AlignSettings {
	return AlignSettings{Aligner: "invindex", Window: 2, MaxOcc: 1, GapWords: 40, MergeGapWords: 120, MinWords: 20, MinShared: 6,
		GapPenalty: passage.DefaultGapPenalty, MinDensity: passage.DefaultMinDensity,
		SupportWords: passage.DefaultSupportWords, SupportDrift: passage.DefaultSupportDrift,
		SentenceDice: 0.4}
}

func (s AlignSettings) String() string {
	return fmt.Sprintf("aligner=%s window=%d max_occ=%d gap_words=%d merge_gap_words=%d min_words=%d min_shared=%d gap_penalty=%g min_density=%g support_words=%d support_drift=%d sentence_dice=%g",
		s.Aligner, s.Window, s.MaxOcc, s.GapWords, s.MergeGapWords, s.MinWords, s.MinShared, s.GapPenalty, s.MinDensity, s.SupportWords, s.SupportDrift, s.SentenceDice)
}

// Validate checks the settings.
func (s AlignSettings) Validate() error {
	if s.Aligner != "invindex" && s.Aligner != "seed" {
		return fmt.Errorf("aligner must be invindex or seed, got %q", s.Aligner)
	}
	if s.Window < 1 || s.Window > 64 {
		return fmt.Errorf("window must be 1..64, got %d", s.Window)
	}
	if s.MaxOcc < 1 {
		return fmt.Errorf("max-occ must be at least 1, got %d", s.MaxOcc)
	}
	if s.SentenceDice < 0 || s.SentenceDice > 1 {
		return fmt.Errorf("sentence-dice must be 0 (off) to 1, got %g", s.SentenceDice)
	}
	return nil
}

// Prepared is a document ready for alignment with Settings s.
type Prepared struct {
	Text  *Text
	doc   *passage.Doc
	count map[uint64]int32
	seed  *SeedDoc
}

// Prepare tokenises t for alignment. tok must be built from the Params
// that Tokenizer(s) returns; it is used by one goroutine at a time.
func (s AlignSettings) Prepare(tok *invindex.Tokenizer, t *Text) *Prepared {
	p := &Prepared{Text: t}
	if s.Aligner == "seed" {
		p.seed = NewSeedDoc(tok, t, s.Window)
		return p
	}
	p.doc = passage.NewDoc(tok, t.S)
	if s.SentenceDice > 0 {
		p.doc.SetTerms(related.WordTerms(t.S, p.doc.Words))
	}
	p.count = make(map[uint64]int32, len(p.doc.Keys))
	for _, k := range p.doc.Keys {
		p.count[k]++
	}
	return p
}

// Tokenizer returns a tokenizer for Prepare: the index's params (case
// folding, diacritics) with the alignment window.
func (s AlignSettings) Tokenizer(index invindex.Params) *invindex.Tokenizer {
	index.WindowWords = s.Window
	return invindex.NewTokenizer(index)
}

// Align returns the detections of suspicious document a from source b.
// Prepared documents may be aligned concurrently.
func (s AlignSettings) Align(a, b *Prepared) []Annotation {
	var ps []Passage
	if s.Aligner == "seed" {
		ps = SeedAlign(a.seed, b.seed, SeedOptions{Gram: s.Window, MaxOcc: s.MaxOcc, GapWords: s.GapWords,
			MinSeeds: s.MinShared, MinWords: s.MinWords, MergeGapWords: s.MergeGapWords})
	} else {
		max := int32(s.MaxOcc)
		opt := passage.Options{MaxGapWords: s.GapWords, MergeGapWords: s.MergeGapWords,
			MinWords: s.MinWords, MinShared: s.MinShared, GapPenalty: s.GapPenalty, MinDensity: s.MinDensity,
			SupportWords: s.SupportWords, SupportDrift: s.SupportDrift, SentenceDice: s.SentenceDice,
			Suppress: func(k uint64) bool { return a.count[k] > max || b.count[k] > max }}
		for _, q := range passage.Align(a.doc, b.doc, opt) {
			// passage.Align ends a passage with its last word; PAN cases end
			// with the sentence's punctuation.
			ps = append(ps, Passage{AStart: q.AStart, AEnd: extendPunct(a.Text.S, q.AEnd),
				BStart: q.BStart, BEnd: extendPunct(b.Text.S, q.BEnd), AWords: q.AWords, BWords: q.BWords, Shared: q.Shared})
		}
	}
	return Detections(a.Text, b.Text, ps)
}

// Cache prepares each document once, concurrently safe.
type Cache struct {
	s     AlignSettings
	index invindex.Params
	mu    sync.Mutex
	m     map[string]*cacheEntry
	toks  sync.Pool
}

type cacheEntry struct {
	once sync.Once
	p    *Prepared
	err  error
}

// NewCache returns a cache for settings s and the index's params.
func NewCache(s AlignSettings, index invindex.Params) *Cache {
	c := &Cache{s: s, index: index, m: map[string]*cacheEntry{}}
	c.toks.New = func() any { return s.Tokenizer(index) }
	return c
}

// Get returns the prepared document at path (named name), reading it on first use.
func (c *Cache) Get(name, path string) (*Prepared, error) {
	c.mu.Lock()
	e := c.m[path]
	if e == nil {
		e = &cacheEntry{}
		c.m[path] = e
	}
	c.mu.Unlock()
	e.once.Do(func() {
		t, err := ReadText(name, path)
		if err != nil {
			e.err = err
			return
		}
		tok := c.toks.Get().(*invindex.Tokenizer)
		e.p = c.s.Prepare(tok, t)
		c.toks.Put(tok)
	})
	return e.p, e.err
}

// Forget drops the document at path from the cache (a suspicious document
// is aligned once; sources stay for the next suspicious document).
func (c *Cache) Forget(path string) {
	c.mu.Lock()
	delete(c.m, path)
	c.mu.Unlock()
}
