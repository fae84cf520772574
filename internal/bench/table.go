package bench

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// Targets of issue 2 (2-core machine), printed next to each figure.
const (
	targetChunkMBps   = 100 // MB/s per core
	targetBuildMPS    = 30  // M postings/s per core
	targetFullSeconds = 60  // 100k documents, ~100M postings
	targetIncrSeconds = 5   // 1,000 changes in the 100k archive
	targetRowsPS      = 300e3
	targetBPerPosting = 16
)

func verdict(ok bool) string {
	if ok {
		return "ok"
	}
	return "MISSED"
}

// printTable writes the summary, one line per figure, with its target.
func printTable(w io.Writer, r *Report) {
	postings, text := r.Chunk.Postings, r.Chunk.TextBytes
	if text == 0 && r.Load != nil { // --skip-build: the figures of the load and the full run
		text = r.Load.TextBytes
	}
	if postings == 0 && r.Full != nil {
		postings = int64(r.Full.Report.Postings)
	}
	fmt.Fprintf(w, "\n== summary: %d documents, %d words/doc, seed %d, %.1fM postings, %.0f MB of text; %s, %d CPUs; load %s → %s\n",
		r.Docs, r.WordsPer, r.Seed, float64(postings)/1e6, float64(text)/1e6,
		r.Machine.CPU, r.Machine.NumCPU, r.Machine.LoadAvg, r.LoadAtEnd)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "figure\tresult\ttarget\t")
	row := func(name, result, target string) { fmt.Fprintf(tw, "%s\t%s\t%s\t\n", name, result, target) }
	if c := r.Chunk; c.TextBytes > 0 {
		row("chunking, 1 goroutine", fmt.Sprintf("%.1f MB/s", c.SingleMBps),
			fmt.Sprintf(">= %d MB/s/core %s", targetChunkMBps, verdict(c.SingleMBps >= targetChunkMBps)))
		row(fmt.Sprintf("chunking, %d goroutines", c.ParallelCores), fmt.Sprintf("%.1f MB/s (%.1f/core)", c.ParallelMBps, c.PerCoreMBps),
			fmt.Sprintf(">= %d MB/s/core %s", targetChunkMBps, verdict(c.PerCoreMBps >= targetChunkMBps)))
	}
	for _, b := range r.Build {
		row(fmt.Sprintf("build, %d node(s)", b.Nodes), fmt.Sprintf("%.1fM postings/s (%.1fM/core)", b.MPostingsPS, b.PerCoreMPS),
			fmt.Sprintf(">= %dM/s/core %s", targetBuildMPS, verdict(b.PerCoreMPS >= targetBuildMPS)))
		row(fmt.Sprintf("build peak RSS, %d node(s)", b.Nodes), fmt.Sprintf("%.1f B/posting (index %.1f)", b.RSSPerPosting, b.IndexBPerPost),
			fmt.Sprintf("<= %d B/posting %s", targetBPerPosting, verdict(b.RSSPerPosting <= targetBPerPosting)))
	}
	if r.Load != nil {
		row("load (COPY documents)", fmt.Sprintf("%.1fs, %.1f MB/s (+ vacuum %.1fs)", r.Load.CopySeconds, r.Load.CopyMBps, r.Load.VacuumSeconds), "not a run")
	}
	if f := r.Full; f != nil {
		scaled := ""
		if r.Docs != 100_000 {
			scaled = " (target is for 100k docs)"
		}
		c := f.Report.Duration.Seconds()
		row("full run, committed", fmt.Sprintf("%.1fs (%.1fs with index save)", c, f.Seconds),
			fmt.Sprintf("<= %ds%s %s", targetFullSeconds, scaled, verdict(c <= targetFullSeconds)))
		row("full run commit phase (rows+texts)", fmt.Sprintf("%d rows, %.0f rows/s", f.Report.RowsWritten, f.CommitRowsPS),
			fmt.Sprintf(">= %.0fk rows/s %s", targetRowsPS/1e3, verdict(f.CommitRowsPS >= targetRowsPS)))
		row("full run peak RSS", fmt.Sprintf("%.1f B/posting", f.RSSPerPosting),
			fmt.Sprintf("<= %d B/posting %s", targetBPerPosting, verdict(f.RSSPerPosting <= targetBPerPosting)))
	}
	if f := r.Incr; f != nil {
		c := f.Report.Duration.Seconds()
		row(fmt.Sprintf("incremental run, %d changes, committed", f.Report.Changed), fmt.Sprintf("%.2fs (%.2fs with index save)", c, f.Seconds),
			fmt.Sprintf("<= %ds %s", targetIncrSeconds, verdict(c <= targetIncrSeconds)))
	}
	for _, cp := range r.Copy {
		row("COPY probe: "+cp.Table, fmt.Sprintf("%.0f rows/s (%d rows)", cp.RowsPerSecond, cp.Rows),
			fmt.Sprintf(">= %.0fk rows/s %s", targetRowsPS/1e3, verdict(cp.RowsPerSecond >= targetRowsPS)))
	}
	tw.Flush()
	for _, f := range []*RunFigures{r.Full, r.Incr} {
		if f == nil {
			continue
		}
		fmt.Fprintf(w, "%s run phases:", f.Report.Kind)
		for _, ph := range sortedKeys(f.Phases) {
			fmt.Fprintf(w, " %s %.2fs", ph, f.Phases[ph])
		}
		fmt.Fprintln(w)
	}
}
