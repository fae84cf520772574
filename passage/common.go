package passage

// CommonRange is a stretch of a text made of common text: consecutive
// windows whose chunk the archive holds in more documents than its df cap
// (a faculty declaration, an assignment prompt, a stock phrase). Docs is
// the largest document frequency among its windows, for "found in 2,431
// documents".
type CommonRange struct {
	Range
	Docs int `json:"docs"`
}

// CommonRanges finds the common text of d: df tells the document frequency
// of a window key when the window is common, 0 otherwise. Overlapping and
// adjacent windows make one range, from the first byte of its first word
// to the last byte of its last word. A nil df finds nothing.
func CommonRanges(d *Doc, df func(key uint64) int) []CommonRange {
	if df == nil || len(d.Keys) == 0 {
		return nil
	}
	n := d.window()
	var out []CommonRange
	for i, k := range d.Keys {
		docs := df(k)
		if docs <= 0 {
			continue
		}
		r := Range{Start: int(d.Words[i].Start), End: int(d.Words[i+n-1].End)}
		if last := len(out) - 1; last >= 0 && r.Start <= out[last].End {
			out[last].End = max(out[last].End, r.End)
			out[last].Docs = max(out[last].Docs, docs)
			continue
		}
		out = append(out, CommonRange{Range: r, Docs: docs})
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
