package pan

import "sort"

// Overall is the name under which the figures over all cases are reported.
const Overall = "all"

// ByKind evaluates the detections per obfuscation type (Kind): for type k,
// the cases of type k against the detections that overlap at least one of
// them. Detections that overlap no case at all (false alarms) therefore count
// only in the overall figures, which are under Overall.
func ByKind(cases, dets []Annotation) map[string]Scores {
	cases, dets = Dedup(cases), Dedup(dets)
	out := map[string]Scores{Overall: Evaluate(cases, dets)}
	kinds := map[string][]Annotation{}
	for _, c := range cases {
		kinds[Kind(c)] = append(kinds[Kind(c)], c)
	}
	di := index(dets)
	for k, cs := range kinds {
		var ds []Annotation
		seen := map[key]bool{}
		for _, c := range cs {
			for _, d := range di[c.This] {
				if isOverlapping(c, d) && !seen[d.key()] {
					seen[d.key()] = true
					ds = append(ds, d)
				}
			}
		}
		out[k] = Evaluate(cs, ds)
	}
	return out
}

// Retrieval is document-level source retrieval: of the true (suspicious,
// source) pairs, how many have the source among the first 10 and the first
// 100 candidates of the suspicious document.
type Retrieval struct {
	Pairs    int     `json:"pairs"`
	Found10  int     `json:"found_at_10"`
	Found100 int     `json:"found_at_100"`
	At10     float64 `json:"recall_at_10"`
	At100    float64 `json:"recall_at_100"`
	// Missed lists the pairs whose source is not in the first 100 ("susp ← src").
	Missed []string `json:"missed,omitempty"`
	// Aligned counts the pairs whose source was aligned with the
	// suspicious document (the candidates: the first sources of the
	// ranking and the related documents); AlignedShare is its share.
	Aligned      int     `json:"aligned"`
	AlignedShare float64 `json:"aligned_share"`
}

// RetrievalByKind measures retrieval for the external cases, overall (under
// Overall) and per obfuscation type (a pair with cases of two types counts
// for both). ranked gives a suspicious document's candidate sources, best
// first; aligned gives the sources it was aligned with (nil: none counted).
func RetrievalByKind(cases []Annotation, ranked, aligned func(susp string) []string) map[string]Retrieval {
	type pair struct{ susp, src string }
	kinds := map[string]map[pair]bool{Overall: {}}
	for _, c := range cases {
		if !c.External {
			continue
		}
		p := pair{c.This, c.Src}
		kinds[Overall][p] = true
		if kinds[Kind(c)] == nil {
			kinds[Kind(c)] = map[pair]bool{}
		}
		kinds[Kind(c)][p] = true
	}
	rank := map[pair]int{}
	cand := map[pair]bool{}
	done := map[string]bool{}
	for p := range kinds[Overall] {
		if done[p.susp] {
			continue
		}
		done[p.susp] = true
		for i, s := range ranked(p.susp) {
			if _, ok := rank[pair{p.susp, s}]; !ok {
				rank[pair{p.susp, s}] = i + 1
			}
		}
		if aligned != nil {
			for _, s := range aligned(p.susp) {
				cand[pair{p.susp, s}] = true
			}
		}
	}
	out := map[string]Retrieval{}
	for k, ps := range kinds {
		var r Retrieval
		for p := range ps {
			r.Pairs++
			if cand[p] {
				r.Aligned++
			}
			n, ok := rank[p]
			if ok && n <= 10 {
				r.Found10++
			}
			if ok && n <= 100 {
				r.Found100++
			} else {
				r.Missed = append(r.Missed, p.susp+" ← "+p.src)
			}
		}
		if r.Pairs > 0 {
			r.At10, r.At100 = float64(r.Found10)/float64(r.Pairs), float64(r.Found100)/float64(r.Pairs)
			r.AlignedShare = float64(r.Aligned) / float64(r.Pairs)
		}
		sort.Strings(r.Missed)
		out[k] = r
	}
	return out
}

// Kinds lists the keys of a per-type map with Overall first, the rest sorted.
func Kinds[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		if k != Overall {
			ks = append(ks, k)
		}
	}
	sort.Strings(ks)
	if _, ok := m[Overall]; ok {
		ks = append([]string{Overall}, ks...)
	}
	return ks
}
