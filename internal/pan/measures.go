package pan

import (
	"math"
	"sort"
)

// Annotation is one plagiarism case or detection: a section of a suspicious
// document (This, TOff, TLen) and, when External, a section of a source
// document (Src, SOff, SLen). Offsets and lengths are in characters (Unicode
// code points) of the files as stored, as in PAN's XML.
type Annotation struct {
	This        string `json:"this_reference"`
	TOff        int    `json:"this_offset"`
	TLen        int    `json:"this_length"`
	Src         string `json:"source_reference,omitempty"`
	SOff        int    `json:"source_offset"`
	SLen        int    `json:"source_length"`
	External    bool   `json:"-"`
	Obfuscation string `json:"obfuscation,omitempty"` // cases only: the obfuscation attribute, else type; not part of identity
}

// key is an annotation's identity as the script sees it (a namedtuple in a set).
type key struct {
	this       string
	toff, tlen int
	src        string
	soff, slen int
	ext        bool
}

func (a Annotation) key() key { return key{a.This, a.TOff, a.TLen, a.Src, a.SOff, a.SLen, a.External} }

// Dedup returns anns without repeats, as the script's sets hold them. The
// first of equal annotations is kept; the order is otherwise preserved.
func Dedup(anns []Annotation) []Annotation {
	seen := make(map[key]bool, len(anns))
	out := make([]Annotation, 0, len(anns))
	for _, a := range anns {
		if k := a.key(); !seen[k] {
			seen[k] = true
			out = append(out, a)
		}
	}
	return out
}

// Scores are the PAN measures of a set of detections against a set of cases.
type Scores struct {
	Cases       int     `json:"cases"`
	Detections  int     `json:"detections"`
	Precision   float64 `json:"precision"`
	Recall      float64 `json:"recall"`
	Granularity float64 `json:"granularity"`
	Plagdet     float64 `json:"plagdet"`
	// Micro-averaged (character-level over the whole corpus) precision and
	// recall, and the plagdet computed from them with the same granularity.
	MicroPrecision float64 `json:"micro_precision"`
	MicroRecall    float64 `json:"micro_recall"`
	MicroPlagdet   float64 `json:"micro_plagdet"`
}

// Evaluate computes all measures as the script does (after Dedup of both sets).
func Evaluate(cases, dets []Annotation) Scores {
	cases, dets = Dedup(cases), Dedup(dets)
	s := Scores{Cases: len(cases), Detections: len(dets)}
	s.Recall, s.Precision = MacroRecall(cases, dets), MacroPrecision(cases, dets)
	s.MicroRecall, s.MicroPrecision = MicroRecallPrecision(cases, dets)
	s.Granularity = Granularity(cases, dets)
	s.Plagdet = Plagdet(s.Recall, s.Precision, s.Granularity)
	s.MicroPlagdet = Plagdet(s.MicroRecall, s.MicroPrecision, s.Granularity)
	return s
}

// Plagdet combines recall, precision and granularity: F1 / log2(1 + gran).
func Plagdet(rec, prec, gran float64) float64 {
	if (rec == 0 && prec == 0) || prec < 0 || rec < 0 || gran < 1 {
		return 0
	}
	return ((2 * rec * prec) / (rec + prec)) / math.Log2(1+gran)
}

// index maps the suspicious-document reference to its annotations.
func index(anns []Annotation) map[string][]Annotation {
	m := map[string][]Annotation{}
	for _, a := range anns {
		m[a.This] = append(m[a.This], a)
	}
	return m
}

// MacroRecall is the mean over cases of the share of each case's characters
// (suspicious and source side together) that overlapping detections cover.
func MacroRecall(cases, dets []Annotation) float64 {
	if len(cases) == 0 && len(dets) == 0 {
		return 1
	}
	if len(cases) == 0 || len(dets) == 0 {
		return 0
	}
	di := index(dets)
	var per []float64
	for _, c := range cases {
		ds, ok := di[c.This]
		if !ok {
			continue
		}
		per = append(per, caseRecall(c, ds))
	}
	return fsum(per) / float64(len(cases))
}

// MacroPrecision is MacroRecall with the roles swapped.
func MacroPrecision(cases, dets []Annotation) float64 { return MacroRecall(dets, cases) }

func caseRecall(c Annotation, dets []Annotation) float64 {
	n := overlappingChars(c, dets)
	d := c.TLen + c.SLen
	if d == 0 {
		return 0 // the script divides by zero here; such annotations do not occur in PAN data
	}
	return float64(n) / float64(d)
}

// overlappingChars counts the characters of a (both sides) covered by the
// annotations that overlap it.
func overlappingChars(a Annotation, anns []Annotation) int {
	this := make([]bool, max(a.TLen, 0))
	src := make([]bool, max(a.SLen, 0))
	any := false
	for _, b := range anns {
		if !isOverlapping(a, b) {
			continue
		}
		any = true
		mark(this, b.TOff-a.TOff, b.TLen, a.TLen)
		mark(src, b.SOff-a.SOff, b.SLen, a.SLen)
	}
	if !any {
		return 0
	}
	return count(this) + count(src)
}

func mark(bits []bool, diff, blen, alen int) {
	lo := min(max(0, diff), alen)
	hi := min(max(0, diff+blen), alen)
	for i := lo; i < hi; i++ {
		bits[i] = true
	}
}

func count(bits []bool) int {
	n := 0
	for _, b := range bits {
		if b {
			n++
		}
	}
	return n
}

// isOverlapping reports whether b overlaps a: same suspicious document and
// overlapping suspicious sections, and when both are external, the same
// source and overlapping source sections.
func isOverlapping(a, b Annotation) bool {
	ok := a.This == b.This && b.TOff+b.TLen > a.TOff && b.TOff < a.TOff+a.TLen
	if a.External && b.External {
		ok = ok && a.Src == b.Src && b.SOff+b.SLen > a.SOff && b.SOff < a.SOff+a.SLen
	}
	return ok
}

// Granularity is the mean number of detections overlapping a detected case
// (1 when nothing is detected).
func Granularity(cases, dets []Annotation) float64 {
	if len(dets) == 0 {
		return 1
	}
	di := index(dets)
	total, detected := 0, 0
	for _, c := range cases {
		ds, ok := di[c.This]
		if !ok {
			continue
		}
		n := 0
		for _, d := range ds {
			if isOverlapping(c, d) {
				n++
			}
		}
		total += n
		if n > 0 {
			detected++
		}
	}
	if detected == 0 {
		return 1
	}
	return float64(total) / float64(detected)
}

// MicroRecallPrecision is the character-level recall and precision over the
// whole corpus: characters of cases covered by detections (each counted
// once per document and side) over characters of cases, and over characters
// of detections.
func MicroRecallPrecision(cases, dets []Annotation) (rec, prec float64) {
	if len(cases) == 0 && len(dets) == 0 {
		return 1, 1
	}
	if len(cases) == 0 || len(dets) == 0 {
		return 0, 0
	}
	plag, det := countChars(cases), countChars(dets)
	hit := countChars(trueDetections(cases, dets)) // the script fails when this set is empty; 0 here
	if plag > 0 {
		rec = float64(hit) / float64(plag)
	}
	if det > 0 {
		prec = float64(hit) / float64(det)
	}
	return rec, prec
}

// trueDetections reduces every detection to its overlap with each case it detects.
func trueDetections(cases, dets []Annotation) []Annotation {
	di := index(dets)
	var out []Annotation
	for _, c := range cases {
		for _, d := range di[c.This] {
			if !isOverlapping(c, d) {
				continue
			}
			o := Annotation{This: c.This, Src: c.Src, External: c.External && d.External}
			o.TOff, o.TLen = overlapChars(c.TOff, c.TLen, d.TOff, d.TLen)
			if o.External {
				o.SOff, o.SLen = overlapChars(c.SOff, c.SLen, d.SOff, d.SLen)
			}
			out = append(out, o)
		}
	}
	return out
}

// overlapChars is the script's overlap_chars: the overlap of [o1, o1+l1)
// and [o2, o2+l2) as (start, length), (0, 0) when they do not overlap.
func overlapChars(o1, l1, o2, l2 int) (int, int) {
	maxO, maxL, minO, minL := o1, l1, o2, l2
	if !(o1 >= o2) {
		maxO, maxL = o2, l2
	}
	if o1 < o2 {
		minO, minL = o1, l1
	}
	if minO+minL > maxO {
		return maxO, min(minO+minL, maxO+maxL) - maxO
	}
	return 0, 0
}

// countChars counts the characters the annotations cover, overlapping ones
// once: per suspicious document on the suspicious side plus per source
// document on the source side.
func countChars(anns []Annotation) int {
	if len(anns) == 0 {
		return 0
	}
	return countSide(anns, func(a Annotation) (string, int, int) { return a.This, a.TOff, a.TLen }) +
		countSide(anns, func(a Annotation) (string, int, int) { return a.Src, a.SOff, a.SLen })
}

func countSide(anns []Annotation, side func(Annotation) (string, int, int)) int {
	type iv struct{ lo, hi int }
	by := map[string][]iv{}
	for _, a := range anns {
		ref, off, n := side(a)
		lo, hi := max(off, 0), off+n
		if hi > lo {
			by[ref] = append(by[ref], iv{lo, hi})
		} else if _, ok := by[ref]; !ok {
			by[ref] = nil
		}
	}
	total := 0
	for _, ivs := range by {
		sort.Slice(ivs, func(i, j int) bool { return ivs[i].lo < ivs[j].lo })
		end := -1
		for _, v := range ivs {
			if v.lo > end {
				total += v.hi - v.lo
				end = v.hi
			} else if v.hi > end {
				total += v.hi - end
				end = v.hi
			}
		}
	}
	return total
}

// fsum adds in order, as Python's sum over a list does.
func fsum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}
