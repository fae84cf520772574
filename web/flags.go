package web

import (
	"slices"
	"strconv"

	"github.com/plagd/plagd/disguise"
	"github.com/plagd/plagd/passage"
)

// A disguised text is shown as such: a warning box at the top of its
// report lists each kind of flag with its count, and the report's text
// marks where (a class per kind on the flagged ranges, a marker where
// hidden text was left out). Flags come with the report (report.Report's
// Flags, stored by the run with the text), so offsets are the stored
// text's, as every other range of the report.

// flagLine is one line of the warning box.
type flagLine struct {
	Kind  disguise.Kind
	Count int
	Text  string // "412 Cyrillic letters in Latin words"
	Class string // "flag-confusable": the class of its ranges in the text
}

// kindWords say what a kind of flag counts, when the flag carries no
// detail of its own.
var kindWords = map[disguise.Kind]string{
	disguise.Confusable:   "letters of another script that look like those of the words around them",
	disguise.Invisible:    "invisible characters inside or between words",
	disguise.LetterSpaced: "letter-spaced words",
	disguise.HiddenText:   "characters of text hidden in the file (white or tiny text, text outside the page, hidden runs)",
}

// flagLines is the warning box of a report's flags; nil when there are none.
func flagLines(flags []disguise.Flag) []flagLine {
	var out []flagLine
	for _, f := range flags {
		what := f.Detail
		if what == "" {
			what = kindWords[f.Kind]
		}
		if what == "" {
			what = string(f.Kind)
		}
		out = append(out, flagLine{Kind: f.Kind, Count: f.Count, Text: thousands(f.Count) + " " + what, Class: flagClass(f.Kind)})
	}
	return out
}

// flagClass is the class of a kind's ranges in the text: "flag-" and the
// kind, whose names are CSS-safe.
func flagClass(k disguise.Kind) string { return "flag-" + string(k) }

// flagMarks finds the flags covering a position of the text.
type flagMarks struct {
	kinds  []flagLine        // the flags, in the box's order
	spans  [][]passage.Range // per flag: its ranges, by start
	points [][]int           // per flag: its empty spans (hidden text left out), by position
}

func newFlagMarks(flags []disguise.Flag) *flagMarks {
	m := &flagMarks{kinds: flagLines(flags)}
	for _, f := range flags {
		var rs []passage.Range
		var ps []int
		for _, s := range f.Spans {
			if s.End > s.Start {
				rs = append(rs, passage.Range{Start: s.Start, End: s.End})
			} else {
				ps = append(ps, s.Start)
			}
		}
		slices.SortFunc(rs, func(a, b passage.Range) int { return a.Start - b.Start })
		slices.Sort(ps)
		m.spans, m.points = append(m.spans, rs), append(m.points, ps)
	}
	return m
}

// cuts are the ranges the text must be cut at, for segmentText.
func (m *flagMarks) cuts() []passage.Range {
	var out []passage.Range
	for i := range m.kinds {
		out = append(out, m.spans[i]...)
		for _, p := range m.points[i] {
			out = append(out, passage.Range{Start: p, End: p})
		}
	}
	return out
}

// decorate marks seg, the piece of text starting at from, with the flags
// covering it: their classes and, in its title, what they are; a marker
// before it where hidden text was left out.
func (m *flagMarks) decorate(seg *segment, from int) {
	for i, k := range m.kinds {
		rs := m.spans[i]
		j, _ := slices.BinarySearchFunc(rs, from, func(r passage.Range, at int) int { return r.Start - at })
		// the range starting at or before from that may cover it
		if j < len(rs) && rs[j].Start == from || j > 0 && rs[j-1].End > from {
			seg.Class = joinClass(seg.Class, "flag "+k.Class)
			title := "Disguised: " + string(k.Kind) + " (" + k.Text + " in this text)"
			if seg.Title == "" {
				seg.Title = title
			} else {
				seg.Title += " · " + title
			}
		}
		if _, ok := slices.BinarySearch(m.points[i], from); ok {
			seg.Marker = joinClass(seg.Marker, "flag-mark "+k.Class)
			seg.MarkerTitle = "Hidden text was left out here (" + k.Text + " in this file)"
		}
	}
}

func joinClass(a, b string) string {
	if a == "" {
		return b
	}
	return a + " " + b
}

// flagCount is "1 flag" or "n flags", for the documents list's marker.
func flagCount(flags []disguise.Flag) string {
	if len(flags) == 1 {
		return "1 kind of disguise: " + string(flags[0].Kind)
	}
	s := strconv.Itoa(len(flags)) + " kinds of disguise: "
	for i, f := range flags {
		if i > 0 {
			s += ", "
		}
		s += string(f.Kind)
	}
	return s
}
