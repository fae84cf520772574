package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/plagd/plagd/daemon"
	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/internal/synth"
	"github.com/plagd/plagd/store"
)

// Report is everything one bench measured.
type Report struct {
	Machine   Machine        `json:"machine"`
	Docs      int            `json:"docs"`
	WordsPer  int            `json:"words_per_doc"`
	Seed      uint64         `json:"seed"`
	Corpus    string         `json:"corpus"` // synth options, to regenerate the input
	Chunk     ChunkFigures   `json:"chunking"`
	Build     []BuildFigures `json:"build"`
	Load      *LoadFigures   `json:"load,omitempty"`
	Full      *RunFigures    `json:"full_run,omitempty"`
	Change    *ChangeFigures `json:"change,omitempty"`
	Incr      *RunFigures    `json:"incremental_run,omitempty"`
	Checks    *CheckFigures  `json:"checks,omitempty"`
	Copy      []CopyFigures  `json:"copy_probe,omitempty"`
	Started   time.Time      `json:"started"`
	Seconds   float64        `json:"seconds"`
	LoadAtEnd string         `json:"loadavg_at_end"`
}

// RunFigures is one Engine.Run with its memory peak.
type RunFigures struct {
	Report        engine.RunReport   `json:"report"`
	Phases        map[string]float64 `json:"phases_seconds"`
	Seconds       float64            `json:"seconds"`
	CommitRowsPS  float64            `json:"commit_rows_per_s"` // rows written / commit phase
	Mem           MemFigures         `json:"mem"`
	RSSPerPosting float64            `json:"peak_rss_bytes_per_posting"`
}

// Run measures and writes progress and the final table to w.
func Run(ctx context.Context, opt Options, w io.Writer) (Report, error) {
	opt = opt.withDefaults()
	start := time.Now()
	rep := Report{Machine: machine(), Docs: opt.Docs, WordsPer: opt.WordsPerDoc, Seed: opt.Seed, Started: start}
	g := synth.New(opt.synthOptions())
	rep.Corpus = g.Options().String()
	fmt.Fprintf(w, "plagd-lab bench: %d documents, ~%d words each, seed %d\n", opt.Docs, opt.WordsPerDoc, opt.Seed)
	fmt.Fprintf(w, "  corpus: %s\n", rep.Corpus)
	fmt.Fprintf(w, "  machine: %s, %d CPUs, GOMAXPROCS %d, %.1f GiB, %s, load %s\n", rep.Machine.CPU, rep.Machine.NumCPU,
		rep.Machine.GOMAXPROCS, float64(rep.Machine.MemTotal)/(1<<30), rep.Machine.Go, rep.Machine.LoadAvg)

	nodes := opt.Nodes
	if nodes <= 0 {
		nodes = opt.Config.NodeCount()
	}
	if !opt.SkipBuild {
		if err := measureCPU(ctx, g, opt, nodes, &rep, w); err != nil {
			return rep, err
		}
	}
	if !opt.SkipDB {
		if err := runDB(ctx, opt, g, nodes, &rep, w); err != nil {
			return rep, err
		}
	}
	rep.Seconds = time.Since(start).Seconds()
	rep.LoadAtEnd = loadAvg()
	printTable(w, &rep)
	return rep, nil
}

// measureCPU chunks the corpus and builds its index in memory, without
// PostgreSQL: chunking MB/s and build postings/s at one node and at nodes.
func measureCPU(ctx context.Context, g *synth.Generator, opt Options, nodes int, rep *Report, w io.Writer) error {
	p := opt.Config.Params()
	fmt.Fprintln(w, "== chunking (generation not timed)")
	cf, docs, err := chunkCorpus(ctx, g, opt, p, w)
	if err != nil {
		return err
	}
	rep.Chunk = cf
	fmt.Fprintf(w, "  1 goroutine: %.1f MB/s over %.0f MB; %d goroutines: %.1f MB/s (%.1f MB/s per core)\n",
		cf.SingleMBps, float64(cf.SingleBytes)/1e6, cf.ParallelCores, cf.ParallelMBps, cf.PerCoreMBps)

	fmt.Fprintln(w, "== index build (BuildSlice)")
	counts := []int{1, runtime.GOMAXPROCS(0), nodes}
	slices.Sort(counts)
	for _, k := range slices.Compact(counts) {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		b := measureBuild(docs, p, k)
		rep.Build = append(rep.Build, b)
		fmt.Fprintf(w, "  %d node(s): %.1fM postings in %.2fs, %.1fM postings/s (%.1fM/s per core), index %.1f B/posting, peak RSS %.1f B/posting\n",
			k, float64(b.Postings)/1e6, b.Seconds, b.MPostingsPS, b.PerCoreMPS, b.IndexBPerPost, b.RSSPerPosting)
	}
	return nil
}

// runDB loads the archive, runs full and incremental, and probes COPY.
func runDB(ctx context.Context, opt Options, g *synth.Generator, nodes int, rep *Report, w io.Writer) error {
	cfg := opt.Config
	cfg.Engine.Nodes = nodes
	dir, err := os.MkdirTemp("", "plagd-bench-index-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cfg.DataDir = dir

	pool, err := store.Connect(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := store.CheckSchema(ctx, pool); err != nil {
		return fmt.Errorf("%w (run plagd migrate on the bench database first)", err)
	}
	lock, err := daemon.AcquireMaster(ctx, pool, false)
	if err != nil {
		return err
	}
	defer lock.Release()
	if err := checkEmpty(ctx, pool, opt.Force); err != nil {
		return err
	}

	fmt.Fprintln(w, "== load (not part of any run)")
	lf, err := load(ctx, pool, g, opt.Docs, w)
	if err != nil {
		return err
	}
	rep.Load = &lf

	eng := engine.NewEngine(cfg, pool, opt.Log)
	fmt.Fprintf(w, "== full run (%d nodes)\n", nodes)
	full, err := measureRun(ctx, eng, true, opt.FullMemProfile, memTrace(opt, w))
	if err != nil {
		return fmt.Errorf("full run: %w", err)
	}
	rep.Full = full
	printRun(w, full)

	if opt.Changes > 0 {
		fmt.Fprintf(w, "== change %d documents\n", opt.Changes)
		cf, err := applyChanges(ctx, pool, g, opt.Docs, opt.Changes, opt.Seed)
		if err != nil {
			return err
		}
		rep.Change = &cf
		fmt.Fprintf(w, "  %d modified, %d added, %d soft-deleted, %d hard-deleted in %.2fs\n",
			cf.Modified, cf.Added, cf.SoftDeleted, cf.HardDeleted, cf.Seconds)
		fmt.Fprintln(w, "== incremental run")
		stop, err := StartProfile(opt.IncrProfile)
		if err != nil {
			return err
		}
		incr, err := measureRun(ctx, eng, false, "", memTrace(opt, w))
		if serr := stop(); err == nil && serr != nil {
			err = serr
		}
		if err != nil {
			return fmt.Errorf("incremental run: %w", err)
		}
		rep.Incr = incr
		printRun(w, incr)
	}
	if opt.Checks > 0 {
		fmt.Fprintln(w, "== teacher's checks (essays not in the archive, through Engine.CheckText)")
		if rep.Checks, err = measureChecks(ctx, eng, pool, g, opt.Docs, opt.Checks, opt.SimTextRuns, w); err != nil {
			return err
		}
	}
	lock.Release()

	if opt.CopyRows > 0 {
		fmt.Fprintln(w, "== COPY probe (empties similarities)")
		cp, err := copyProbe(ctx, pool, opt.CopyRows, w)
		if err != nil {
			return err
		}
		rep.Copy = cp
	}
	return nil
}

// measureRun times one run and its memory; memProfile, when set, is the
// file for a heap profile taken near the run's peak, and trace, when not
// nil, gets the memory every two seconds.
func measureRun(ctx context.Context, eng *engine.Engine, full bool, memProfile string, trace io.Writer) (*RunFigures, error) {
	mp := startMem(memProfile != "", trace)
	t := time.Now()
	rr, err := eng.Run(ctx, full)
	el := time.Since(t)
	mem := mp.end()
	if err != nil {
		return nil, err
	}
	if memProfile != "" {
		if err := mp.writeProfile(memProfile); err != nil {
			return nil, err
		}
	}
	f := &RunFigures{Report: rr, Seconds: el.Seconds(), Mem: mem, Phases: map[string]float64{}}
	for k, v := range rr.Phases {
		f.Phases[k] = v.Seconds()
	}
	if c := rr.Phases["commit"]; c > 0 {
		f.CommitRowsPS = float64(rr.RowsWritten) / c.Seconds()
	}
	f.RSSPerPosting = float64(mem.PeakRSS) / float64(max(rr.Postings, 1))
	return f, nil
}

func printRun(w io.Writer, f *RunFigures) {
	r := f.Report
	fmt.Fprintf(w, "  %s run %d: committed in %.2fs, %.2fs with the index save; changed %d, indexed %d, deleted %d, recomputed %d, failed %d\n",
		r.Kind, r.ID, r.Duration.Seconds(), f.Seconds, r.Changed, r.Indexed, r.Deleted, r.Recomputed, r.Failed)
	if r.Reason != "" {
		fmt.Fprintf(w, "  full because: %s\n", r.Reason)
	}
	fmt.Fprintf(w, "  %.1fM postings, index %.1f MiB, %d rows written (%.0f rows/s over the commit phase)\n",
		float64(r.Postings)/1e6, float64(r.IndexBytes)/(1<<20), r.RowsWritten, f.CommitRowsPS)
	for _, ph := range sortedKeys(f.Phases) {
		fmt.Fprintf(w, "    %-8s %7.2fs\n", ph, f.Phases[ph])
	}
	fmt.Fprintf(w, "  peak RSS %.0f MiB (%.1f B/posting), peak Go heap %.0f MiB\n",
		float64(f.Mem.PeakRSS)/(1<<20), f.RSSPerPosting, float64(f.Mem.PeakHeap)/(1<<20))
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// StartProfile starts a CPU profile into path ("": none) and returns the
// function that stops it and closes the file (plagd-lab's --cpuprofile of a
// whole command, and Options.IncrProfile of the incremental run alone).
func StartProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("CPU profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("CPU profile: %w", err)
	}
	return func() error { pprof.StopCPUProfile(); return f.Close() }, nil
}

// memTrace is where the runs' memory is traced: w with Options.MemTrace,
// nowhere without.
func memTrace(opt Options, w io.Writer) io.Writer {
	if opt.MemTrace {
		return w
	}
	return nil
}
