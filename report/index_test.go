package report

import (
	"testing"

	"github.com/plagd/plagd/archive"
	"github.com/plagd/plagd/passage"
)

func TestVersionFamily(t *testing.T) {
	for _, tc := range []struct {
		id, family string
		suffix     bool
	}{
		{"thesis-2041", "thesis-2041", false},
		{"thesis-2041-v2", "thesis-2041", true},
		{"Thesis-2041_V3", "thesis-2041", true},
		{"E17_rev3", "e17", true},
		{"essay 5 draft", "essay 5", true},
		{"essays/2026/mills-v2", "essays/2026/mills", true},
		{"essay.resubmission1", "essay", true},
		{"thesis-2042", "thesis-2042", false},
		{"2024-03", "2024-03", false}, // a plain number is no version marker
		{"v2", "v2", false},           // nothing left without the suffix
		{"", "", false},
	} {
		f, ok := VersionFamily(tc.id)
		if f != tc.family || ok != tc.suffix {
			t.Errorf("VersionFamily(%q) = %q, %v; want %q, %v", tc.id, f, ok, tc.family, tc.suffix)
		}
	}
}

func TestIsVersion(t *testing.T) {
	doc := archive.Header{ExternalID: "essays/mills", Author: "Nováková, Jana"}
	src := func(ext, author string, sim, rev float64) SourceReport {
		return SourceReport{Header: archive.Header{ExternalID: ext, Author: author}, Similarity: sim, Reverse: rev}
	}
	for _, tc := range []struct {
		name string
		s    SourceReport
		want bool
	}{
		{"the same text uploaded again", src("x", "Someone", 0.95, 0.9), true},
		{"an essay pasted whole into a thesis", src("x", "Someone", 1.0, 0.04), false},
		{"a draft by the same author", src("x", "novakova jana", 0.6, 0.55), false}, // diacritics differ: another name
		{"a draft by the same author, same spelling", src("x", "Nováková Jana", 0.6, 0.55), true},
		{"a source by the same author sharing little", src("x", "Nováková, Jana", 0.3, 0.6), false},
		{"the same family of external ids", src("essays/mills-v2", "", 0.1, 0.1), true},
		{"another essay with a number", src("essays/mills2", "", 0.1, 0.1), false},
		{"a copy by someone else", src("y", "Petr", 0.7, 0.7), false},
	} {
		if got := IsVersion(doc, tc.s); got != tc.want {
			t.Errorf("%s: IsVersion = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestIndex: the index is the report's coverage under the default filter
// with the versions left out, whatever filter the raw report would be
// shown with; the top source is the one covering most of the document.
func TestIndex(t *testing.T) {
	text := "one two three four five six seven eight nine ten"
	pg := func(a, b int) passage.Passage { return passage.Passage{AStart: a, AEnd: b, BStart: 0, BEnd: b - a} }
	raw := Report{Text: text, Sources: []SourceReport{
		{ID: 7, Text: text, Similarity: 0.9, Reverse: 0.95, Passages: []passage.Passage{pg(0, len(text))}}, // a near-duplicate
		{ID: 8, Text: text, Similarity: 0.3, Reverse: 0.1, Passages: []passage.Passage{pg(0, 13)}},         // "one two three"
		{ID: 9, Text: text, Similarity: 0.5, Reverse: 0.1, Passages: []passage.Passage{pg(8, 28)}},         // "three ... six"
		{ID: 10, Text: text, Similarity: 0.02, Reverse: 0.01, Passages: []passage.Passage{}},
	}}
	idx := raw.Index()
	want := raw.Filter(Filter{Exclusions: passage.AllExclusions(), ExcludeSources: []int64{7}}).Coverage
	if idx.Value != want || idx.Value <= 0 || idx.Value >= 1 {
		t.Fatalf("index %v, want the coverage without the near-duplicate %v", idx.Value, want)
	}
	if idx.Versions != 1 || idx.Sources != 2 || idx.Top != 9 {
		t.Fatalf("index %+v: want 1 version left out, 2 sources with passages, source 9 on top", idx)
	}
	if all := raw.Filter(Filter{}).Coverage; all != 1 {
		t.Fatalf("with the near-duplicate counted the coverage is %v, want 1", all)
	}
}
