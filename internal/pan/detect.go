package pan

// Detections turns passages between suspicious document a and source b
// (byte offsets) into PAN detections (character offsets).
func Detections(a, b *Text, ps []Passage) []Annotation {
	out := make([]Annotation, 0, len(ps))
	for _, p := range ps {
		ts, te := a.Chars(p.AStart), a.Chars(p.AEnd)
		ss, se := b.Chars(p.BStart), b.Chars(p.BEnd)
		if te <= ts || se <= ss {
			continue
		}
		out = append(out, Annotation{This: a.Name, TOff: ts, TLen: te - ts, Src: b.Name, SOff: ss, SLen: se - ss, External: true})
	}
	return out
}
