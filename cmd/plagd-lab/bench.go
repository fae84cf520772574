package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/internal/bench"
	"github.com/plagd/plagd/internal/cli"
	"github.com/plagd/plagd/internal/synth"
)

// newBenchCmd is `plagd-lab bench`: the performance figures of docs/PERFORMANCE.md.
func newBenchCmd(g *cli.Globals) *cobra.Command {
	var opt bench.Options
	var asJSON bool
	var corpus synthFlags
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure chunking, index build, full and incremental runs on a generated corpus",
		Long: `Generates a synthetic archive (Zipf words, essays and theses, planted copies;
deterministic in --seed; --realistic adds what real archives have: faculty
declarations, assignment prompts, stock phrases and more copying) and measures: chunking MB/s (one goroutine and all
cores), index build postings/s (one node and --nodes nodes), and, against
PostgreSQL, loading (reported apart), a full run, an incremental run after
--changes modified/added/deleted documents, peak memory per posting and a
COPY probe into similarities.

The database must be migrated and EMPTY (plagd migrate on a fresh database);
--force truncates documents and all of plagd's tables first. Use a throwaway
database: the bench leaves its corpus there. --skip-db needs no database.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var cfg config.Config
			var err error
			if opt.SkipDB {
				cfg, err = config.Load(g.ConfigPath)
			} else {
				cfg, err = g.Config()
			}
			if err != nil {
				return err
			}
			if g.LogLevel == "" {
				cfg.Log.Level = "warn" // the engine's per-run info lines would drown the progress
			}
			opt.Config = cfg
			opt.Log = cli.Logger(cfg).With().Str("component", "bench").Logger()
			opt.Synth = corpus.options()
			var w io.Writer = os.Stdout
			if asJSON {
				w = os.Stderr // progress and table; stdout carries the JSON alone
			}
			rep, err := bench.Run(cmd.Context(), opt, w)
			if err != nil {
				return err
			}
			if asJSON {
				return cli.PrintJSON(rep)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&opt.Docs, "docs", 10_000, "documents in the generated archive")
	f.IntVar(&opt.WordsPerDoc, "words-per-doc", 1000, "mean document length in words")
	f.IntVar(&opt.Nodes, "nodes", 0, "in-process nodes (0: engine.nodes, i.e. the number of CPUs)")
	f.Uint64Var(&opt.Seed, "seed", 1, "corpus seed (printed with every report)")
	f.IntVar(&opt.Changes, "changes", 1000, "documents modified, added and deleted before the incremental run (0: no incremental run)")
	f.IntVar(&opt.Checks, "checks", 0, "teacher's checks timed after the runs: essays not in the archive, counted and aligned as the daemon's check does (p50, p99)")
	f.StringVar(&opt.IncrProfile, "incr-cpuprofile", "", "write a CPU profile of the incremental run alone to this file (go tool pprof)")
	f.StringVar(&opt.FullMemProfile, "full-memprofile", "", "write a heap profile of the full run, taken near its peak, to this file (go tool pprof)")
	f.BoolVar(&opt.MemTrace, "mem-trace", false, "print the heap and resident memory every 2 s of each run, with the time (read beside the log, at --log-level info)")
	f.IntVar(&opt.SimTextRuns, "sim-text", 0, "also time sim_text -p -S (Debian's similarity-tester) on this many of the checked essays against the same archive")
	f.IntVar(&opt.CopyRows, "copy-rows", 2_000_000, "rows of the COPY probe into similarities (0: skip)")
	f.IntVar(&opt.SampleMB, "sample-mb", 64, "MB of text chunked by the single-goroutine measurement")
	corpus.register(f)
	f.BoolVar(&opt.SkipDB, "skip-db", false, "measure chunking and build only, without PostgreSQL")
	f.BoolVar(&opt.SkipBuild, "skip-build", false, "leave out the chunking and build measurements (they hold the whole corpus's chunks and an index in memory: skip them at 1M documents)")
	f.BoolVar(&opt.Force, "force", false, "truncate a non-empty documents table (and all plagd tables) first")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON on stdout (progress goes to stderr)")
	return cmd
}

// newGenCmd is `plagd-lab gen`: the bench's corpus as .txt files, for ingest demos.
func newGenCmd(_ *cli.Globals) *cobra.Command {
	var docs, words int
	var seed uint64
	var out string
	var corpus synthFlags
	cmd := &cobra.Command{
		Use:   "gen --out DIR",
		Short: "Write a generated corpus as .txt files (for plagd ingest)",
		Long: `Writes --docs synthetic documents as DIR/synth-NNNNNNNN.txt, the same corpus
plagd-lab bench generates for the same --seed and --words-per-doc. Planted copies
are listed in DIR/copies.tsv (document, sources).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return cli.UsageError{Msg: "plagd-lab gen needs --out DIR"}
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return err
			}
			opt := corpus.options()
			opt.Seed, opt.MeanWords = seed, words
			gen := synth.New(opt)
			truth, err := os.Create(filepath.Join(out, "copies.tsv"))
			if err != nil {
				return err
			}
			defer truth.Close()
			fmt.Fprintf(truth, "# plagd-lab gen %s\n# document\tnear_duplicate\tcopied_from\n", gen.Options())
			var bytes int64
			err = gen.Each(cmd.Context(), 0, docs, 0, func(i int, d synth.Doc) error {
				bytes += int64(len(d.Text))
				if len(d.CopiedFrom) > 0 {
					fmt.Fprintf(truth, "%s\t%t\t", d.ExternalID, d.NearDup)
					for k, s := range d.CopiedFrom {
						if k > 0 {
							fmt.Fprint(truth, ",")
						}
						fmt.Fprintf(truth, "synth-%08d", s)
					}
					fmt.Fprintln(truth)
				}
				return os.WriteFile(filepath.Join(out, d.ExternalID+".txt"), []byte(d.Text), 0o644)
			})
			if err != nil {
				return err
			}
			fmt.Printf("wrote %d documents (%.1f MB) to %s, seed %d; planted copies in copies.tsv\n", docs, float64(bytes)/1e6, out, seed)
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&docs, "docs", 1000, "documents to write")
	f.IntVar(&words, "words-per-doc", 1000, "mean document length in words")
	f.Uint64Var(&seed, "seed", 1, "corpus seed")
	corpus.register(f)
	f.StringVar(&out, "out", "", "output directory")
	return cmd
}

// synthFlags choose the generated corpus: the clean one, or --realistic,
// with --template (and for the realistic one --prompts and --stock)
// overriding its shares.
type synthFlags struct {
	realistic         bool
	template, prompts float64
	stock             float64
}

func (c *synthFlags) register(f *pflag.FlagSet) {
	f.BoolVar(&c.realistic, "realistic", false, "a corpus shaped like a real archive: declarations, assignment prompts, stock phrases, 30 % copiers (synth.Realistic)")
	f.Float64Var(&c.template, "template", -1, "share of documents carrying a faculty declaration (template text; -1: the corpus's own, 0 for the clean one, 0.5 realistic)")
	f.Float64Var(&c.prompts, "prompts", -1, "share of essays opening with their course's assignment prompt (-1: the corpus's own)")
	f.Float64Var(&c.stock, "stock", -1, "share of sentences opening with a stock phrase (-1: the corpus's own)")
}

func (c *synthFlags) options() synth.Options {
	o := synth.Defaults()
	if c.realistic {
		o = synth.Realistic()
	}
	for _, s := range []struct {
		flag float64
		dst  *float64
	}{{c.template, &o.TemplateShare}, {c.prompts, &o.PromptShare}, {c.stock, &o.StockRate}} {
		if s.flag >= 0 {
			*s.dst = s.flag
		}
	}
	return o
}
