package main

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
)

// printCorpusReport prints the corpus mode's tables: the worst files, the
// groups by producer and by script, the failure kinds, the files whose
// outcome differs from the manifest's, and the summary line.
func printCorpusReport(w io.Writer, rows []corpusRow, engines []string, fl corpusFlags, elapsed time.Duration) {
	table := func(title string, header []string, body [][]string) {
		fmt.Fprintln(w, title)
		if fl.markdown {
			fmt.Fprintln(w) // a Markdown table needs a blank line before it
			for _, r := range body {
				for i := range r {
					r[i] = strings.ReplaceAll(r[i], "|", "/")
				}
			}
		}
		printTable(w, fl.markdown, header, body)
	}
	f4 := func(x float64) string { return fmt.Sprintf("%.4f", x) }

	// Per file, worst first: readable files plagd failed, then outcomes the
	// manifest did not expect, then readable files by rising F1, then the rest.
	order := make([]corpusRow, len(rows))
	copy(order, rows)
	rank := func(r corpusRow) int {
		switch {
		case r.Failed:
			return 0
		case r.Unexpect:
			return 1
		case r.Readable:
			return 2
		}
		return 3
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if rank(a) != rank(b) {
			return rank(a) < rank(b)
		}
		if a.Readable && b.Readable && a.F1 != b.F1 {
			return a.F1 < b.F1
		}
		return a.File < b.File
	})
	shown := order
	title := "Every file, worst first"
	if !fl.all && len(order) > fl.worst {
		shown = order[:max(0, fl.worst)]
		title = fmt.Sprintf("The %d worst files of %d (--all lists every one)", len(shown), len(order))
	}
	header := []string{"file", "producer", "script", "expect", "plagd", "words", "reference"}
	header = append(header, engines...)
	header = append(header, "reason")
	var body [][]string
	for _, r := range shown {
		plagd := r.Outcome
		if r.Outcome == "ok" && r.RefWords > 0 {
			plagd = f4(r.F1)
		}
		if r.Unexpect {
			plagd += " (unexpected)"
		}
		ref := "-"
		if r.Reference != "" {
			ref = fmt.Sprintf("%s, %d words", r.Reference, r.RefWords)
		}
		line := []string{r.File, r.Producer, r.Script, strings.Join(r.Expect, "|"), plagd, strconv.Itoa(r.Words), ref}
		for _, e := range engines {
			line = append(line, engineCell(r.Engines[e], r.RefWords > 0))
		}
		line = append(line, shorten(r.Reason, 90))
		body = append(body, line)
	}
	if len(body) == 0 {
		body = append(body, []string{"(none)"})
	}
	table(title+" (F1 of words against the best reference):", header, body)

	group := func(title, by string, key func(corpusRow) string) {
		type agg struct {
			files, readable, failed, unexpected int
			sum, lo                             float64
			esum, elo                           map[string]float64
		}
		groups := map[string]*agg{}
		for _, r := range rows {
			k := key(r)
			g := groups[k]
			if g == nil {
				g = &agg{lo: 1, esum: map[string]float64{}, elo: map[string]float64{}}
				for _, e := range engines {
					g.elo[e] = 1
				}
				groups[k] = g
			}
			g.files++
			if r.Unexpect {
				g.unexpected++
			}
			if r.Outcome != "ok" {
				g.failed++
			}
			if !r.Readable {
				continue
			}
			g.readable++
			f := r.F1
			if r.Outcome != "ok" {
				f = 0 // a readable file plagd fails counts as F1 0
			}
			g.sum += f
			g.lo = min(g.lo, f)
			for _, e := range engines {
				ef := r.Engines[e].F1
				g.esum[e] += ef
				g.elo[e] = min(g.elo[e], ef)
			}
		}
		keys := make([]string, 0, len(groups))
		for k := range groups {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		header := []string{by, "files", "readable", "plagd mean F1", "plagd min F1"}
		for _, e := range engines {
			header = append(header, e+" mean F1", e+" min F1")
		}
		header = append(header, "plagd failed", "unexpected")
		var body [][]string
		for _, k := range keys {
			g := groups[k]
			line := []string{k, strconv.Itoa(g.files), strconv.Itoa(g.readable), "-", "-"}
			if g.readable > 0 {
				line[3], line[4] = f4(g.sum/float64(g.readable)), f4(g.lo)
			}
			for _, e := range engines {
				if g.readable > 0 {
					line = append(line, f4(g.esum[e]/float64(g.readable)), f4(g.elo[e]))
				} else {
					line = append(line, "-", "-")
				}
			}
			line = append(line, strconv.Itoa(g.failed), strconv.Itoa(g.unexpected))
			body = append(body, line)
		}
		table(title, header, body)
	}
	group("Per producer (means over readable files, a failed one counting as F1 0; failed: plagd gave no text):",
		"producer", func(r corpusRow) string { return r.Producer })
	group("Per script:", "script", func(r corpusRow) string { return r.Script })

	// Failure kinds, with how many of each the references could read.
	kinds := map[string][2]int{}
	for _, r := range rows {
		if r.Outcome == "ok" {
			continue
		}
		k := kinds[r.Outcome]
		k[0]++
		if r.Readable {
			k[1]++
		}
		kinds[r.Outcome] = k
	}
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	body = nil
	for _, k := range names {
		body = append(body, []string{k, strconv.Itoa(kinds[k][0]), strconv.Itoa(kinds[k][1])})
	}
	if len(body) == 0 {
		body = append(body, []string{"(none)", "0", "0"})
	}
	table("Failure kinds (plagd):", []string{"kind", "files", "of which readable"}, body)

	// Outcomes the manifest did not expect, and readable files failed.
	body = nil
	for _, r := range order {
		if r.Unexpect {
			body = append(body, []string{r.File, strings.Join(r.Expect, "|"), r.Outcome, shorten(r.Reason, 120)})
		}
	}
	if len(body) > 0 {
		table("Outcome differs from the manifest's:", []string{"file", "expected", "plagd", "reason"}, body)
	}
	body = nil
	for _, r := range order {
		if r.Failed {
			body = append(body, []string{r.File, r.Outcome, fmt.Sprintf("%s, %d words", r.Reference, r.RefWords), shorten(r.Reason, 120)})
		}
	}
	if len(body) > 0 {
		table("Readable files failed (a reference reads >= 20 words, plagd gives no text):",
			[]string{"file", "plagd", "reference", "reason"}, body)
	}

	fmt.Fprintln(w, corpusSummary(rows, elapsed))
}

// corpusSummary is the one line the targets are read from.
func corpusSummary(rows []corpusRow, elapsed time.Duration) string {
	var n, below85, below80, failed int
	var sum float64
	for _, r := range rows {
		if r.Failed {
			failed++
		}
		if r.RefWords < scoredWords {
			continue
		}
		f := r.F1
		if r.Outcome != "ok" {
			f = 0
		}
		n++
		sum += f
		if f < 0.85 {
			below85++
		}
		if f < 0.80 {
			below80++
		}
	}
	mean := "-"
	if n > 0 {
		mean = fmt.Sprintf("%.4f", sum/float64(n))
	}
	return fmt.Sprintf("Summary: %d files; mean word F1 %s over the %d files whose best reference reads >= %d words, %d below 0.85, %d below 0.80; %d readable files failed; total time %s",
		len(rows), mean, n, scoredWords, below85, below80, failed, elapsed.Round(100*time.Millisecond))
}

// engineCell is an engine's F1 against the best reference, or its outcome.
func engineCell(r engineResult, scored bool) string {
	switch {
	case r.Outcome == "":
		return ""
	case r.Outcome == "error":
		return "error"
	case r.Outcome != "ok" || !scored:
		return r.Outcome
	}
	return fmt.Sprintf("%.4f", r.F1)
}

// shorten keeps a reason to one table cell.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
