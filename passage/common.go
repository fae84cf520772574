package passage

// CommonRange is a stretch of a text made of common text: consecutive
// windows whose chunk the archive holds in more documents than its df cap
// (a faculty declaration, an assignment prompt, a stock phrase), or that
// belong to a template staff registered. Docs is the largest document
// frequency among its windows, for "found in 2,431 documents" (0 for
// template text the archive holds less often); AtLeast says Docs is only
// a lower bound (the count was not at hand: a cluster master's copy of the
// index on disk). Template names the registered template, "" for other
// common text.
type CommonRange struct {
	Range
	Docs     int    `json:"docs"`
	AtLeast  bool   `json:"at_least,omitempty"`
	Template string `json:"template,omitempty"`
}

// CommonRanges finds the common text of d: df tells the document frequency
// of a window key when the window is common, 0 otherwise (exact false when
// it is only a lower bound); template names
// the registered template holding a window key, "" for none. Either may be
// nil. Overlapping and adjacent windows of the same template (or of none)
// make one range, from the first byte of its first word to the last byte
// of its last word.
func CommonRanges(d *Doc, df func(key uint64) (docs int, exact bool), template func(key uint64) string) []CommonRange {
	if df == nil && template == nil || len(d.Keys) == 0 {
		return nil
	}
	n := d.window()
	var out []CommonRange
	for i, k := range d.Keys {
		docs, exact, name := 0, true, ""
		if df != nil {
			docs, exact = df(k)
		}
		if template != nil {
			name = template(k)
		}
		if docs <= 0 && name == "" {
			continue
		}
		r := Range{Start: int(d.Words[i].Start), End: int(d.Words[i+n-1].End)}
		if last := len(out) - 1; last >= 0 && r.Start <= out[last].End && out[last].Template == name {
			out[last].End = max(out[last].End, r.End)
			if docs > out[last].Docs {
				out[last].Docs, out[last].AtLeast = docs, !exact
			}
			continue
		}
		out = append(out, CommonRange{Range: r, Docs: docs, AtLeast: !exact, Template: name})
	}
	return out
}

// CommonSpans are the ranges of rs, for the exclusion lists.
func CommonSpans(rs []CommonRange) []Range {
	out := make([]Range, len(rs))
	for i, r := range rs {
		out[i] = r.Range
	}
	return out
}
