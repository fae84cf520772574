package passage

import "slices"

// Verification (step 4 of Align): a cluster of seeds is evidence only where
// its matching words lie densely, in both texts. Chaining seeds by proximity
// alone lets a passage grow across text that shares nothing but chance
// word pairs with the other document, which is common between two texts on
// one subject; a teacher shown such a passage cannot defend it.
//
// Each cluster is scored along a: every word covered by a matching window
// scores +1, every word between covered stretches costs GapPenalty. Its
// maximal-scoring segments (W. L. Ruzzo and M. Tompa, "A Linear Time
// Algorithm for Finding All Maximal Scoring Subsequences", ISMB 1999) are
// the stretches whose evidence outweighs their gaps: a gap is bridged only
// when the matched words on both sides of it, each, outweigh its cost, and
// every segment starts and ends with a matching word. The seeds of each
// segment are then scored the same way along b, and so on, alternating,
// until no segment changes, as clustering does. This is the local-alignment
// idea of Smith-Waterman over words, as D. Glinos uses it ("A Hybrid
// Architecture for Plagiarism Detection", PAN at CLEF 2014), applied to the
// seeds rather than to every word pair, so that it costs what the seeds
// cost and survives reordering within a passage (each text is scored in its
// own order).

// segment is a run [lo, hi) of the seeds sorted along one text, and the
// words it covers there.
type segment struct{ lo, hi int }

// denseSegments returns the maximal-scoring segments of seeds ss (sorted by
// pos) whose windows cover n words each: matched words score 1, words between
// them cost penalty.
func denseSegments(ss []seed, pos func(seed) int32, n int, penalty float64) []segment {
	// Elements: the covered stretches along this text, in order, each with
	// the seeds [lo, hi) that cover it, and the gap before it.
	type stretch struct {
		lo, hi     int
		start, end int32 // words [start, end)
		gap        int32 // uncovered words before start (0 for the first)
	}
	var st []stretch
	for i, s := range ss {
		p := pos(s)
		if k := len(st) - 1; k >= 0 && p <= st[k].end {
			st[k].end = max(st[k].end, p+int32(n))
			st[k].hi = i + 1
			continue
		}
		gap := int32(0)
		if k := len(st) - 1; k >= 0 {
			gap = p - st[k].end
		}
		st = append(st, stretch{lo: i, hi: i + 1, start: p, end: p + int32(n), gap: gap})
	}
	// Ruzzo-Tompa over the scores: -penalty*gap then +covered, per stretch.
	type seg struct {
		first, last int     // stretches
		l, r        float64 // cumulative score before first, after last
	}
	var segs []seg
	cum := 0.0
	for i, x := range st {
		cum -= penalty * float64(x.gap)
		k := seg{first: i, last: i, l: cum, r: cum + float64(x.end-x.start)}
		cum = k.r
		for {
			j := len(segs) - 1
			for j >= 0 && segs[j].l >= k.l {
				j--
			}
			if j < 0 || segs[j].r >= k.r {
				segs = append(segs, k)
				break
			}
			k.first, k.l = segs[j].first, segs[j].l
			segs = segs[:j]
		}
	}
	out := make([]segment, len(segs))
	for i, g := range segs {
		out[i] = segment{st[g.first].lo, st[g.last].hi}
	}
	return out
}

// verify splits a cluster's seeds into the dense stretches of both texts
// (alternating between a and b until stable) and returns them as passages.
func verify(seeds []seed, n int, penalty float64) []wpass {
	type part struct {
		ss     []seed
		byB    bool
		stable int // dimensions in a row in which the part was not cut
	}
	stack := []part{{seeds, false, 0}}
	var out []wpass
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		pos := posA
		if p.byB {
			pos = posB
			slices.SortFunc(p.ss, cmpByB)
		} else {
			slices.SortFunc(p.ss, cmpByA)
		}
		segs := denseSegments(p.ss, pos, n, penalty)
		if len(segs) == 1 && segs[0].lo == 0 && segs[0].hi == len(p.ss) {
			if p.stable+1 >= 2 {
				out = append(out, newWPass(p.ss, n))
			} else {
				stack = append(stack, part{p.ss, !p.byB, p.stable + 1})
			}
			continue
		}
		for _, g := range segs {
			stack = append(stack, part{p.ss[g.lo:g.hi], !p.byB, 0})
		}
	}
	return out
}

func posA(s seed) int32 { return s.A }
func posB(s seed) int32 { return s.B }

// matchedWords counts the words that the windows of ss cover along one
// text (ss sorted by that text's position).
func matchedWords(ss []seed, pos func(seed) int32, n int) int {
	total := 0
	end := int32(-1 << 30)
	for _, s := range ss {
		p := pos(s)
		total += int(max(0, p+int32(n)-max(p, end)))
		end = max(end, p+int32(n))
	}
	return total
}

// supported keeps the seeds that another, independent seed supports: one
// that lies within reach words of it in a, at least two words further on
// (so that a chance match of three words, two overlapping windows of two,
// does not support itself), and
// lies on nearly the same diagonal (its offset B-A differs by at most drift
// words). Copied text, verbatim or reworded, leaves its matches along one
// diagonal, drifting only by the words inserted and deleted; the chance
// matches of two texts on one subject (a technical term, a name, a stock
// pair of words) fall on diagonals unrelated to each other. A seed with no
// support is a lone coincidence and seeds nothing. ss is sorted by A on
// return.
func supported(ss []seed, n, reach, drift int) []seed {
	slices.SortFunc(ss, cmpByA)
	keep := make([]bool, len(ss))
	apart := int32(min(n, 2))
	for i, s := range ss {
		d := s.B - s.A
		for j := i + 1; j < len(ss) && int(ss[j].A-s.A) <= reach+n; j++ {
			t := ss[j]
			if t.A-s.A < apart {
				continue
			}
			if dd := t.B - t.A - d; dd >= -int32(drift) && dd <= int32(drift) {
				keep[i], keep[j] = true, true
			}
		}
	}
	out := ss[:0]
	for i, s := range ss {
		if keep[i] {
			out = append(out, s)
		}
	}
	return out
}
