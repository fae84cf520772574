package report

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/plagd/plagd/archive"
	"github.com/plagd/plagd/passage"
)

// The similarity index is the one figure a document is known by: in the
// documents list, at the top of its report, in the API, in plagd similar
// and in the printed report. It is defined once, here (Index): the share
// of the document's characters inside a verified passage from any of its
// sources, under the default exclusions (quotations, block quotes, the
// bibliography and common text left out), with the document's earlier
// versions and near-duplicates (IsVersion) listed apart and not counted.
// A run stores it for every document whose report it may have changed
// (engine's similarity-index step); a report with the default filter
// shows exactly the stored figure, because both come from Index over the
// same raw report.

// Near-duplicate and earlier-version thresholds on chunk containment, both
// ways (SourceReport.Similarity and Reverse). Two uploads of one essay
// (as DOCX and as PDF, or a resubmission with a corrected page) share
// nearly all their chunks both ways; an essay pasted whole into a thesis
// shares all of the essay but a few percent of the thesis, and stays a
// source.
const (
	// NearDuplicateShare: both texts share at least this share of their
	// chunks with the other.
	NearDuplicateShare = 0.8
	// SameAuthorShare: a source by the same author sharing at least this
	// share both ways is an earlier version (a draft, a resubmission).
	SameAuthorShare = 0.5
)

// IsVersion reports whether source s is an earlier version or a
// near-duplicate of the document with header doc: the two share at least
// NearDuplicateShare of their chunks both ways; or they have the same
// author (ignoring case, spaces and punctuation) and share at least
// SameAuthorShare both ways; or their external ids differ only by a
// version suffix ("thesis-2041" and "thesis-2041-v2", "E17_rev3";
// VersionFamily). Such a source is the student's own submission again,
// not a source copied from: reports list it apart, and the similarity
// index leaves it out unless asked.
func IsVersion(doc archive.Header, s SourceReport) bool {
	if s.Similarity >= NearDuplicateShare && s.Reverse >= NearDuplicateShare {
		return true
	}
	if a := authorKey(doc.Author); a != "" && a == authorKey(s.Author) &&
		s.Similarity >= SameAuthorShare && s.Reverse >= SameAuthorShare {
		return true
	}
	f, ok := VersionFamily(doc.ExternalID)
	g, ok2 := VersionFamily(s.ExternalID)
	return (ok || ok2) && f != "" && f == g
}

// Versions are the ids of r's sources that IsVersion says are earlier
// versions or near-duplicates of r's document, in rank order.
func (r Report) Versions() []int64 {
	var ids []int64
	for _, s := range r.Sources {
		if IsVersion(r.Header, s) {
			ids = append(ids, s.ID)
		}
	}
	return ids
}

// versionSuffix is a trailing version marker of an external id: a
// separator, then v, ver, version, rev, revision, draft or resubmission,
// then an optional number ("-v2", "_rev3", " draft", ".resubmission1").
var versionSuffix = regexp.MustCompile(`(?i)[-_. ]+(?:v|ver|version|rev|revision|draft|resub|resubmission)[-_. ]?\d*$`)

// VersionFamily is the family of an external id, the id without its
// version suffix, lower-cased; ok tells whether id had such a suffix. Ids
// without a suffix are their own family, so that "thesis-2041" and
// "thesis-2041-v2" are one family while "thesis-2041" and "thesis-2042",
// or two ids that differ in a plain number, never are: only an explicit
// version marker joins ids.
func VersionFamily(id string) (family string, ok bool) {
	id = strings.TrimSpace(id)
	if id == "" {
		return "", false
	}
	f := versionSuffix.ReplaceAllString(id, "")
	return strings.ToLower(f), f != id && f != ""
}

// authorKey is an author's name as compared: letters and digits only,
// lower-cased, in order ("Nováková, Jana" and "novakova jana" differ in
// diacritics and stay apart; a typo is a different person).
func authorKey(a string) string {
	var b strings.Builder
	for _, r := range a {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// IndexFilter is the filter the similarity index is defined with: the
// default exclusions, and r's versions (Versions) left out.
func IndexFilter(r Report) Filter {
	return Filter{Exclusions: passage.AllExclusions(), ExcludeSources: r.Versions()}
}

// Index is a document's similarity index and what it is made of.
type Index struct {
	// Value is the share of the document's characters inside a verified
	// passage from a counted source, in [0, 1] (Report.Coverage under
	// IndexFilter).
	Value float64 `json:"value"`
	// Sources counts the sources with at least one passage; Versions the
	// earlier versions and near-duplicates left out.
	Sources  int `json:"sources"`
	Versions int `json:"versions"`
	// Top is the source covering the largest share of the document (0:
	// none), and TopShare that share (its CoverageA).
	Top      int64   `json:"top_source,omitempty"`
	TopShare float64 `json:"top_share"`
}

// Index computes the similarity index of a raw report (one built with
// zero exclusions and the common text known, as engine.Passages and the
// web interface's report cache make it). Filtering the raw report with
// IndexFilter gives the report a teacher sees by default; its coverage is
// the index.
func (r Report) Index() Index {
	f := IndexFilter(r)
	out := r.Filter(f)
	idx := Index{Value: out.Coverage, Versions: len(f.ExcludeSources)}
	for _, s := range out.Sources {
		if len(s.Passages) == 0 {
			continue
		}
		idx.Sources++
		if s.CoverageA > idx.TopShare || idx.Top == 0 {
			idx.Top, idx.TopShare = s.ID, s.CoverageA
		}
	}
	return idx
}
