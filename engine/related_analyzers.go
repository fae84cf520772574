package engine

import (
	"slices"
	"sync"

	"github.com/plagd/plagd/related"
)

// analyzerShelf keeps the related phase's Analyzers from one run to the
// next. An Analyzer remembers every word it has seen with its stop-word
// bits and stem; a fresh one stems each word of the run's texts again,
// which an incremental run of 800 texts pays in full (Snowball's stemmers
// were about a third of its related analysis at 20k realistic documents).
// Each Analyzer bounds its own memory (related.Analyzer: at most 2^18
// words, about 50 MB with its table), and the shelf holds one per
// text-pass worker of the last run, memory the run had allocated anyway.
type analyzerShelf struct {
	mu   sync.Mutex
	free []*related.Analyzer
}

// take returns an Analyzer for the candidate languages langs: one from the
// shelf if it has one for the same languages, else a new one.
func (s *analyzerShelf) take(langs []related.Lang) *related.Analyzer {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.free) - 1; i >= 0; i-- {
		if a := s.free[i]; slices.Equal(a.Candidates, langs) {
			s.free = slices.Delete(s.free, i, i+1)
			return a
		}
	}
	return &related.Analyzer{Candidates: langs}
}

// give puts Analyzers back once no worker uses them: the shelf then holds
// those of the last text pass only.
func (s *analyzerShelf) give(as []*related.Analyzer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.free = append(s.free[:0], as...)
}
