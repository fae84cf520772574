package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/daemon"
	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/ingest"
	"github.com/plagd/plagd/internal/cli"
	"github.com/plagd/plagd/internal/pan"
	"github.com/plagd/plagd/invindex"
	"github.com/plagd/plagd/store"
)

func init() { register(newEvalCmd) }

// newEvalCmd is `plagd eval`, the parent of the evaluations on public corpora.
func newEvalCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Measure detection quality on a public corpus (eval pan)",
		Args:  cobra.NoArgs,
		RunE:  func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	cmd.AddCommand(newEvalPanCmd(g))
	return cmd
}

// evalReport is what `plagd eval pan --json` prints.
type evalReport struct {
	Corpus     string                   `json:"corpus"`
	Layout     string                   `json:"layout"`
	Suspicious int                      `json:"suspicious_documents"`
	Sources    int                      `json:"source_documents"`
	Cases      int                      `json:"cases"`
	Detections int                      `json:"detections"`
	Out        string                   `json:"out"`
	Top        int                      `json:"top"`
	AllSources bool                     `json:"all_sources,omitempty"`
	Settings   pan.AlignSettings        `json:"settings"`
	Scores     map[string]pan.Scores    `json:"scores"`    // "all" and per obfuscation type
	Retrieval  map[string]pan.Retrieval `json:"retrieval"` // idem
	Run        engine.RunReport         `json:"run"`
	Timings    map[string]string        `json:"timings"`
	Scorer     string                   `json:"scorer"`
}

// newEvalPanCmd is `plagd eval pan CORPUS --out DIR`.
func newEvalPanCmd(g *globals) *cobra.Command {
	var (
		out     string
		top     int
		asJSON  bool
		allSrc  bool
		withRel = true
		set     = pan.DefaultAlignSettings()
	)
	cmd := &cobra.Command{
		Use:   "pan CORPUS_DIR --out DETECTIONS_DIR [--top 100] [--json]",
		Short: "Run plagd over a PAN corpus, write PAN detections and score them",
		Long: `Evaluates plagd on a corpus in the format of the PAN plagiarism detection
competitions: PAN 2009-2011 external detection (suspicious-documents/ with a
truth XML beside each document, source-documents/) or PAN 2013-2015 text
alignment (susp/, src/, section folders with "pairs" files and one truth XML
per pair).

It ingests both folders into the configured database, runs the engine once
(a full run, with a throw-away index directory), and then, for each
suspicious document, aligns it with its --top most similar source documents
and its related documents (--related: the documents on the same subject,
which find reworded sources that share no chunk; external detection) or
with the pairs the corpus lists (text alignment).
The detections are written to DETECTIONS_DIR in PAN XML (one file per
suspicious document, or per pair), and scored in Go with the official PAN
measures: plagdet, precision, recall and granularity, macro- and
micro-averaged, and document-level source retrieval (recall@10, recall@100),
overall and per obfuscation type.

The database must be migrated and hold no documents but this corpus's (use
a scratch database): the corpus stays in it afterwards, so a second eval
re-uses it. DETECTIONS_DIR may not hold XML files other than earlier
detections of this command, which are replaced. Offsets are characters of
the corpus files as stored (see docs/QUALITY.md); the official scorer gives
the same figures:

  python3 pan-measures.py -p CORPUS/suspicious-documents -d DETECTIONS_DIR`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cli.UsageError{Msg: fmt.Sprintf("want one CORPUS_DIR, got %d arguments (see 'plagd eval pan --help')", len(args))}
			}
			if out == "" {
				return cli.UsageError{Msg: "--out DETECTIONS_DIR is required (see 'plagd eval pan --help')"}
			}
			if top < 1 {
				return cli.UsageError{Msg: "--top must be at least 1"}
			}
			if err := set.Validate(); err != nil {
				return cli.UsageError{Msg: err.Error()}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runEvalPan(cmd.Context(), g, args[0], out, top, allSrc, withRel, set, asJSON)
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", "", "folder for the detection XML files (created if missing)")
	f.IntVar(&top, "top", 100, "source documents aligned per suspicious document, from its similarity list")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	f.BoolVar(&withRel, "related", withRel, "also align with each suspicious document's related documents (related.k of them), not only the --top by shared chunks")
	f.BoolVar(&allSrc, "all-sources", false, "align with every source document, not only the retrieved ones (separates alignment from retrieval losses)")
	f.StringVar(&set.Aligner, "aligner", set.Aligner, "passage aligner: invindex (the engine's) or seed (internal/pan stand-in, for comparison)")
	f.IntVar(&set.Window, "window", set.Window, "words per alignment seed window")
	f.IntVar(&set.MaxOcc, "max-occ", set.MaxOcc, "ignore seed windows occurring more often than this in either document")
	f.IntVar(&set.GapWords, "gap", set.GapWords, "largest gap in words between seeds of one passage")
	f.IntVar(&set.MergeGapWords, "merge-gap", set.MergeGapWords, "merge passages at most this many words apart in both documents")
	f.IntVar(&set.MinWords, "min-words", set.MinWords, "drop passages shorter than this many words")
	f.IntVar(&set.MinShared, "min-shared", set.MinShared, "drop passages with fewer matching seed windows")
	f.Float64Var(&set.GapPenalty, "gap-penalty", set.GapPenalty, "cost of an unmatched word against 1 per matched word when passages are cut to their dense stretches (0: the aligner's default; negative: no cut)")
	f.Float64Var(&set.MinDensity, "min-density", set.MinDensity, "drop passages in which a smaller share of words, in either document, matches (0: the aligner's default; negative: none)")
	f.IntVar(&set.SupportWords, "support-words", set.SupportWords, "a seed needs another within this many words on nearly its diagonal (0: the aligner's default; negative: every seed counts)")
	f.IntVar(&set.SupportDrift, "support-drift", set.SupportDrift, "largest difference of diagonals (words) between a seed and its support (0: the aligner's default)")
	f.Float64Var(&set.SentenceDice, "sentence-dice", set.SentenceDice, "also seed from sentence pairs whose stemmed content words overlap with at least this Dice coefficient (0: windows only)")
	return cmd
}

func runEvalPan(ctx context.Context, g *globals, dir, out string, top int, allSrc, withRelated bool, set pan.AlignSettings, asJSON bool) error {
	t0 := time.Now()
	timings := map[string]string{}
	corpus, err := pan.Open(dir)
	if err != nil {
		return err
	}
	if err := prepareOut(corpus, out); err != nil {
		return err
	}
	cfg, err := g.Config()
	if err != nil {
		return err
	}
	db, err := connect(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	suspPrefix, srcPrefix := idPrefix(corpus.SuspDir), idPrefix(corpus.SrcDir)
	rep, err := indexCorpus(ctx, cfg, db, corpus, suspPrefix, srcPrefix, timings)
	if err != nil {
		return err
	}

	ranked, err := rankedSources(ctx, db, store.SimilarExternalIDs, corpus, suspPrefix, srcPrefix)
	if err != nil {
		return err
	}
	var related map[string][]string
	if withRelated {
		if related, err = rankedSources(ctx, db, store.RelatedExternalIDs, corpus, suspPrefix, srcPrefix); err != nil {
			return err
		}
	}

	t := time.Now()
	candidates := withRelatedSources(ranked, related, top)
	if allSrc {
		candidates = map[string][]string{}
		for _, d := range corpus.Susp {
			for _, s := range corpus.Src {
				candidates[d.Name] = append(candidates[d.Name], s.Name)
			}
		}
		top = len(corpus.Src)
	}
	dets, files, err := alignCorpus(ctx, corpus, candidates, top, set, cfg.Params())
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := pan.WriteDetections(filepath.Join(out, f.name), f.ref, f.dets); err != nil {
			return err
		}
	}
	timings["align"] = time.Since(t).Round(time.Millisecond).String()
	timings["total"] = time.Since(t0).Round(time.Millisecond).String()

	r := evalReport{
		Corpus: dir, Layout: corpus.Layout, Suspicious: len(corpus.Susp), Sources: len(corpus.Src),
		Cases: len(pan.Dedup(corpus.Cases)), Detections: len(pan.Dedup(dets)), Out: out, Top: top, AllSources: allSrc, Settings: set,
		Scores: pan.ByKind(corpus.Cases, dets),
		Retrieval: pan.RetrievalByKind(corpus.Cases, func(s string) []string { return ranked[s] },
			func(s string) []string { return candidates[s] }),
		Run: rep, Timings: timings,
	}
	if corpus.TruthDir != "" {
		r.Scorer = fmt.Sprintf("python3 pan-measures.py -p %s -d %s", corpus.TruthDir, out)
	}
	if asJSON {
		return cli.PrintJSON(r)
	}
	printEvalReport(r)
	return nil
}

// idPrefix is the external_id prefix Ingest gives the files of folder dir.
func idPrefix(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	return filepath.Base(abs)
}

// prepareOut creates out, refusing one that holds XML files this command
// did not write (the truth, say), and removes the detections of an earlier run.
func prepareOut(c *pan.Corpus, out string) error {
	absOut, _ := filepath.Abs(out)
	absCorpus, _ := filepath.Abs(c.Dir)
	if rel, err := filepath.Rel(absCorpus, absOut); err == nil && !strings.HasPrefix(rel, "..") {
		return cli.UsageError{Msg: fmt.Sprintf("--out %s is inside the corpus; choose a folder outside it", out)}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(out, "*.xml"))
	sub, _ := filepath.Glob(filepath.Join(out, "*", "*.xml"))
	old = append(old, sub...)
	for _, f := range old {
		if !pan.Written(f) {
			return fmt.Errorf("%s holds %s, which plagd did not write; the scorer would read it too: choose an empty folder", out, f)
		}
	}
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	return nil
}

// withRelatedSources is each suspicious document's first top sources by
// shared chunks, followed by its related documents not among them.
func withRelatedSources(ranked, related map[string][]string, top int) map[string][]string {
	out := make(map[string][]string, len(ranked))
	for d, srcs := range ranked {
		out[d] = srcs[:min(top, len(srcs))]
	}
	for d, srcs := range related {
		for _, s := range srcs {
			if !slices.Contains(out[d], s) {
				out[d] = append(slices.Clip(out[d]), s)
			}
		}
	}
	return out
}

// rankedSources reads the similarity or related-documents lists (read) of
// the suspicious documents and keeps the source documents, best first (the
// engine's order). Other suspicious documents are not candidates.
func rankedSources(ctx context.Context, db *store.DB, read func(context.Context, store.Querier, string, string) ([][2]string, error),
	c *pan.Corpus, suspPrefix, srcPrefix string) (map[string][]string, error) {
	suspByID, srcByID := map[string]string{}, map[string]string{}
	for _, d := range c.Susp {
		suspByID[suspPrefix+"/"+d.Rel] = d.Name
	}
	for _, d := range c.Src {
		srcByID[srcPrefix+"/"+d.Rel] = d.Name
	}
	pairs, err := read(ctx, db, suspPrefix+"/", srcPrefix+"/")
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, p := range pairs {
		if sa, ok := suspByID[p[0]]; ok {
			if sb, ok := srcByID[p[1]]; ok {
				out[sa] = append(out[sa], sb)
			}
		}
	}
	return out, nil
}

type detFile struct {
	name, ref string
	dets      []pan.Annotation
}

// alignCorpus aligns every suspicious document with its candidate sources,
// in parallel, and returns all detections and the files to write: one per
// suspicious document (external detection, every document, empty or not)
// or one per listed pair (text alignment).
func alignCorpus(ctx context.Context, c *pan.Corpus, ranked map[string][]string, top int,
	set pan.AlignSettings, params invindex.Params) ([]pan.Annotation, []detFile, error) {
	type job struct {
		susp pan.Doc
		srcs []pan.Doc
	}
	var jobs []job
	if c.Layout == pan.TextAlignment {
		by := map[string][]pan.Doc{}
		for _, p := range c.Pairs {
			d, _ := c.SrcDoc(p.Src)
			by[p.Susp] = append(by[p.Susp], d)
		}
		for _, d := range c.Susp {
			if len(by[d.Name]) > 0 {
				jobs = append(jobs, job{d, by[d.Name]})
			}
		}
	} else {
		for _, d := range c.Susp {
			j := job{susp: d}
			for i, s := range ranked[d.Name] {
				if i == top {
					break
				}
				sd, _ := c.SrcDoc(s)
				j.srcs = append(j.srcs, sd)
			}
			jobs = append(jobs, j)
		}
	}
	cache := pan.NewCache(set, params)
	files := make([][]detFile, len(jobs))
	eg, ctx := errgroup.WithContext(ctx)
	eg.SetLimit(runtime.GOMAXPROCS(0))
	for i, j := range jobs {
		eg.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			a, err := cache.Get(j.susp.Name, j.susp.Path)
			if err != nil {
				return err
			}
			defer cache.Forget(j.susp.Path)
			var all []pan.Annotation
			for _, s := range j.srcs {
				b, err := cache.Get(s.Name, s.Path)
				if err != nil {
					return err
				}
				ds := set.Align(a, b)
				if c.Layout == pan.TextAlignment {
					files[i] = append(files[i], detFile{pan.PairFileName(j.susp.Name, s.Name), j.susp.Name, ds})
				}
				all = append(all, ds...)
			}
			if c.Layout == pan.External {
				files[i] = []detFile{{strings.TrimSuffix(j.susp.Name, filepath.Ext(j.susp.Name)) + ".xml", j.susp.Name, all}}
			}
			return nil
		})
	}
	if err := eg.Wait(); err != nil {
		return nil, nil, err
	}
	var dets []pan.Annotation
	var out []detFile
	for _, fs := range files {
		for _, f := range fs {
			dets = append(dets, f.dets...)
			out = append(out, f)
		}
	}
	return dets, out, nil
}

func printEvalReport(r evalReport) {
	printf("plagd eval pan %s (%s): %d suspicious, %d source documents, %d cases, %d detections in %s\n",
		r.Corpus, r.Layout, r.Suspicious, r.Sources, r.Cases, r.Detections, r.Out)
	cand := fmt.Sprintf("top=%d", r.Top)
	if r.AllSources {
		cand = "all-sources"
	}
	printf("settings: %s %s\n\n", cand, r.Settings)
	printf("%-20s %5s %6s %7s %6s %7s %7s %7s %6s %7s %7s %7s\n", "obfuscation", "cases", "r@10", "r@100", "cand", "plagdet", "prec", "recall", "gran", "µplag", "µprec", "µrec")
	kinds := pan.Kinds(r.Scores)
	for _, k := range kinds {
		s, rt := r.Scores[k], r.Retrieval[k]
		printf("%-20s %5d %6.3f %7.3f %6.3f %7.3f %7.3f %7.3f %6.3f %7.3f %7.3f %7.3f\n", k, s.Cases, rt.At10, rt.At100, rt.AlignedShare,
			s.Plagdet, s.Precision, s.Recall, s.Granularity, s.MicroPlagdet, s.MicroPrecision, s.MicroRecall)
	}
	if m := r.Retrieval[pan.Overall].Missed; len(m) > 0 {
		printf("\nsources not in the top 100 (%d): %s\n", len(m), strings.Join(m, ", "))
	}
	printf("cand: share of sources aligned (the top %d by shared chunks and the related documents)\n", r.Top)
	keys := make([]string, 0, len(r.Timings))
	for k := range r.Timings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var ts []string
	for _, k := range keys {
		ts = append(ts, k+" "+r.Timings[k])
	}
	printf("\ntimings: %s\n", strings.Join(ts, ", "))
	if r.Scorer != "" {
		printf("official scorer: %s\n", r.Scorer)
	}
}

// indexCorpus stores the corpus's files in the empty database db and indexes
// them with one full run, under the master lock, with the index in a
// throw-away folder: the evaluation leaves nothing behind but the rows.
func indexCorpus(ctx context.Context, cfg config.Config, db *store.DB, corpus *pan.Corpus, suspPrefix, srcPrefix string,
	timings map[string]string) (engine.RunReport, error) {
	log := cli.Logger(cfg)
	if suspPrefix == srcPrefix {
		return engine.RunReport{}, fmt.Errorf("%s and %s have the same folder name; plagd keys documents by it", corpus.SuspDir, corpus.SrcDir)
	}
	foreign, example, err := store.CountOutside(ctx, db, suspPrefix+"/", srcPrefix+"/")
	if err != nil {
		return engine.RunReport{}, fmt.Errorf("check the database: %w", err)
	}
	if foreign > 0 {
		return engine.RunReport{}, fmt.Errorf("the database holds %d documents that are not from this corpus (e.g. %q): they would compete in the rankings; use an empty, migrated database (plagd --database URL migrate)", foreign, example)
	}
	lock, err := daemon.AcquireMaster(ctx, db.Pool, false)
	if err != nil {
		return engine.RunReport{}, err
	}
	defer lock.Release()

	t := time.Now()
	sum, err := ingest.Files(ctx, db, ingest.Options{Roots: []string{corpus.SuspDir, corpus.SrcDir},
		Exts: []string{".txt"}, MaxBytes: cfg.Extract.MaxBytes}, log)
	if err != nil {
		return engine.RunReport{}, err
	}
	if sum.Failed > 0 {
		return engine.RunReport{}, fmt.Errorf("%d corpus files could not be stored, e.g. %s: %s", sum.Failed, sum.Failures[0].Path, sum.Failures[0].Reason)
	}
	timings["ingest"] = time.Since(t).Round(time.Millisecond).String()

	// The index goes to a throw-away folder: the evaluation leaves nothing
	// behind but the database rows.
	tmp, err := os.MkdirTemp("", "plagd-eval-index-")
	if err != nil {
		return engine.RunReport{}, err
	}
	defer os.RemoveAll(tmp)
	cfg.DataDir = tmp
	t = time.Now()
	eng := engine.NewEngine(cfg, db.Pool, log)
	rep, err := eng.Run(ctx, true)
	eng.WaitSaved()
	if err != nil {
		return rep, err
	}
	timings["run"] = time.Since(t).Round(time.Millisecond).String()
	return rep, nil
}
