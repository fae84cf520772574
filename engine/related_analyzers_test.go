package engine

import (
	"testing"

	"github.com/plagd/plagd/related"
)

// TestAnalyzerShelf: a run's workers get back the last run's Analyzers
// (their word memory), never one made for other candidate languages, and
// the shelf keeps only what was last given.
func TestAnalyzerShelf(t *testing.T) {
	var s analyzerShelf
	en := []related.Lang{related.AllLangs[0]}
	a, b := s.take(en), s.take(en)
	if a == b {
		t.Fatal("two workers share one Analyzer")
	}
	a.Analyze("the words of a text the analyzer remembers")
	s.give([]*related.Analyzer{a, b})
	got := []*related.Analyzer{s.take(en), s.take(en)}
	if !(got[0] == a || got[1] == a) || !(got[0] == b || got[1] == b) {
		t.Fatalf("the next run's workers got new Analyzers, not the shelf's")
	}
	s.give(got)
	if other := s.take(related.AllLangs); other == a || other == b {
		t.Fatal("an Analyzer for other candidate languages came from the shelf")
	}
	s.give(nil)
	if c := s.take(en); c == a || c == b {
		t.Fatal("the shelf kept Analyzers it was not given last")
	}
}
