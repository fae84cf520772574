package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/plagd/plagd/archive"
	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/daemon"
	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/internal/cli"
	"github.com/plagd/plagd/internal/pangen"
	"github.com/plagd/plagd/internal/shortans"
	"github.com/plagd/plagd/report"
	"github.com/plagd/plagd/store"
)

// shortansReport is what `plagd-lab shortans --json` prints.
type shortansReport struct {
	Seed      uint64                      `json:"seed"`
	Questions []string                    `json:"questions"` // the topics
	Answers   map[string]int              `json:"answers"`   // per grade
	InProcess map[string]shortans.Figures `json:"in_process"`
	Database  map[string]shortans.Figures `json:"database,omitempty"`
	DFCap     int                         `json:"df_cap,omitempty"` // the run's
	Run       *engine.RunReport           `json:"run,omitempty"`
}

// newShortansCmd is `plagd-lab shortans`: the short-answer corpus and how
// well plagd's scores separate copied answers from original ones.
func newShortansCmd(g *cli.Globals) *cobra.Command {
	var (
		topicWords int
		inProcess  bool
		asJSON     bool
		dfCap      int
		opt        = shortans.Defaults()
	)
	cmd := &cobra.Command{
		Use:   "shortans [--seed N] [--in-process] PROSE_PATH...",
		Short: "Short-answer corpus: ROC AUC of plagd's scores, copied against original answers",
		Long: `Generates a short-answer corpus after Clough and Stevenson (internal/shortans:
by default 5 questions, each a 300-700-word source passage of one topic of the
prose under PROSE_PATH, and 95 answers of 200-300 words: 19 cut, 19 light and
19 heavy revisions of the source, 38 original answers from the topic's other
prose) and scores every answer against its question's source:

  similarity  plagd's similarity (shared chunks over the answer's chunks)
  coverage    the report's coverage of the answer by passages of the source
  cosine      the related documents' TF-IDF cosine
  naive5      plain 5-word containment, the baseline

For each it prints the ROC AUC of the copied answers (cut, light, heavy)
against the original ones, of heavy alone against them, and the mean per grade:
first computed in process (no cap on common chunks), then, unless
--in-process, as plagd computes them: the sources and answers are stored in
the configured database, which must hold no documents (a fresh, migrated
one), one full run indexes them (related.k 100, so that every answer's list
holds its source; the index goes to a temporary folder), and the figures are
read back as the product shows them: the similarity rows, the report with
common text left out (as a teacher sees it; "coverage+common" counts it), the
related lists. PROSE_PATH as for pan-gen; for docs/QUALITY.md:

  plagd-lab shortans "$(go env GOROOT)/doc"`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cli.UsageError{Msg: "want at least one PROSE_PATH"}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			topics, err := readTopics(args, topicWords)
			if err != nil {
				return err
			}
			c, err := shortans.Generate(pangen.DropRepeats(shortans.SplitTopics(topics, topicWords)), opt)
			if err != nil {
				return err
			}
			answers := c.Answers()
			r := shortansReport{Seed: opt.Seed, Answers: map[string]int{}, InProcess: map[string]shortans.Figures{}}
			for _, q := range c.Questions {
				r.Questions = append(r.Questions, q.Topic)
			}
			for _, a := range answers {
				r.Answers[a.Grade]++
			}
			// The index parameters a run over this archive resolves
			// (extra_window_words, auto or set) apply in process too.
			var cfg config.Config
			if inProcess {
				cfg, err = config.Load(g.ConfigPath)
			} else {
				cfg, err = g.Config()
			}
			if err != nil {
				return err
			}
			scores := shortans.Scores(ctx, c, shortans.ScoreOptions{Params: cfg.Engine.ParamsFor(len(answers) + len(c.Questions))})
			for n, s := range scores {
				r.InProcess[n] = shortans.Measure(answers, s)
			}
			if !inProcess {
				if g.LogLevel == "" {
					cfg.Log.Level = "warn"
				}
				if dfCap != 0 {
					cfg.Engine.DFCap = dfCap
				}
				cfg.Related.K = 100
				db, err := shortansScores(ctx, cfg, c, scores[shortans.Naive5])
				if err != nil {
					return err
				}
				r.Database, r.DFCap, r.Run = map[string]shortans.Figures{}, db.dfCap, &db.run
				for n, s := range db.scores {
					r.Database[n] = shortans.Measure(answers, s)
				}
			}
			if asJSON {
				return cli.PrintJSON(r)
			}
			printShortans(r)
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&topicWords, "topic-words", 2400, "topics of at least this many words: consecutive files of a folder are grouped, long ones split")
	f.Uint64Var(&opt.Seed, "seed", opt.Seed, "random seed")
	f.IntVar(&opt.Questions, "questions", opt.Questions, "questions (one topic each)")
	f.IntVar(&opt.Cut, "cut", opt.Cut, "near copies")
	f.IntVar(&opt.Light, "light", opt.Light, "light revisions")
	f.IntVar(&opt.Heavy, "heavy", opt.Heavy, "heavy revisions")
	f.IntVar(&opt.None, "none", opt.None, "original answers")
	f.BoolVar(&inProcess, "in-process", false, "only the figures computed in process, without a database")
	f.IntVar(&dfCap, "df-cap", 0, "engine.df_cap for the run (0: the configuration's; -1: no cap)")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

// shortansDB are the scores as a run over the stored corpus gives them.
type shortansDB struct {
	scores map[string][]float64
	dfCap  int
	run    engine.RunReport
}

// shortansScores stores c in the empty database of cfg, runs the engine
// once and reads every answer's scores against its source back; naive5
// (computed from the texts alone) is passed through.
func shortansScores(ctx context.Context, cfg config.Config, c *shortans.Corpus, naive5 []float64) (shortansDB, error) {
	out := shortansDB{scores: map[string][]float64{}}
	pool, err := store.Connect(ctx, cfg.DatabaseURL)
	if err != nil {
		return out, err
	}
	defer pool.Close()
	if err := store.CheckSchema(ctx, pool); err != nil {
		return out, err
	}
	if n, example, err := store.CountOutside(ctx, pool); err != nil {
		return out, err
	} else if n > 0 {
		return out, fmt.Errorf("the database holds %d documents (e.g. %q): use a fresh, migrated database", n, example)
	}
	lock, err := daemon.AcquireMaster(ctx, pool, false)
	if err != nil {
		return out, err
	}
	defer lock.Release()

	srcIDs := make([]int64, len(c.Questions))
	var ansIDs []int64
	for qi, q := range c.Questions {
		ext := fmt.Sprintf("shortans/q%d/source", qi+1)
		id, err := store.CreateDocument(ctx, pool, store.DocumentInput{Header: archive.Header{ExternalID: ext}, Text: q.Source})
		if err != nil {
			return out, err
		}
		srcIDs[qi] = id
	}
	for i, a := range c.Answers() {
		ext := fmt.Sprintf("shortans/q%d/a%02d-%s", a.Question+1, i+1, a.Grade)
		id, err := store.CreateDocument(ctx, pool, store.DocumentInput{Header: archive.Header{ExternalID: ext}, Text: a.Text})
		if err != nil {
			return out, err
		}
		ansIDs = append(ansIDs, id)
	}

	tmp, err := os.MkdirTemp("", "plagd-shortans-index-")
	if err != nil {
		return out, err
	}
	defer os.RemoveAll(tmp)
	cfg.DataDir = tmp
	eng := engine.NewEngine(cfg, pool, cli.Logger(cfg))
	out.run, err = eng.Run(ctx, true)
	eng.WaitSaved()
	if err != nil {
		return out, err
	}
	out.dfCap = cfg.Engine.DFCapFor(len(ansIDs) + len(srcIDs))
	ct, err := eng.CommonText(ctx)
	if err != nil {
		return out, err
	}

	answers := c.Answers()
	for _, n := range []string{shortans.Similarity, shortans.Coverage, "coverage+common", shortans.Cosine} {
		out.scores[n] = make([]float64, len(answers))
	}
	out.scores[shortans.Naive5] = naive5
	for i, a := range answers {
		id, src := ansIDs[i], srcIDs[a.Question]
		sim, err := store.Similar(ctx, pool, id)
		if err != nil {
			return out, err
		}
		for _, s := range sim {
			if s.OtherID == src {
				out.scores[shortans.Similarity][i] = s.Similarity
			}
		}
		rel, err := engine.Related(ctx, pool, id, 100)
		if err != nil {
			return out, err
		}
		for _, d := range rel {
			if d.ID == src {
				out.scores[shortans.Cosine][i] = d.Cosine
			}
		}
		for _, countCommon := range []bool{false, true} {
			opt := report.Options{CountCommon: countCommon}
			ct.Apply(&opt)
			rep, err := engine.Passages(ctx, pool, cfg, id, 0, opt)
			if err != nil {
				return out, err
			}
			name := shortans.Coverage
			if countCommon {
				name = "coverage+common"
			}
			for _, s := range rep.Sources {
				if s.ID == src {
					out.scores[name][i] = s.CoverageA
				}
			}
		}
	}
	return out, nil
}

func printShortans(r shortansReport) {
	fmt.Printf("shortans seed %d: %d questions (%s); answers", r.Seed, len(r.Questions), strings.Join(r.Questions, ", "))
	for _, g := range shortans.Grades {
		fmt.Printf(" %s %d", g, r.Answers[g])
	}
	fmt.Printf("\n\n%-22s %6s %7s %7s %7s %7s %7s\n", "score", "AUC", "heavy", "cut", "light", "heavy", "none")
	table := func(title string, figs map[string]shortans.Figures, names []string) {
		fmt.Println(title)
		for _, n := range names {
			f, ok := figs[n]
			if !ok {
				continue
			}
			fmt.Printf("  %-20s %6.3f %7.3f %7.3f %7.3f %7.3f %7.3f\n", n, f.AUC, f.HeavyAUC,
				f.Mean[shortans.Cut], f.Mean[shortans.Light], f.Mean[shortans.Heavy], f.Mean[shortans.None])
		}
	}
	table("in process (every chunk counts):", r.InProcess, shortans.ScoreNames)
	if r.Database != nil {
		table(fmt.Sprintf("database, one full run (df cap %d):", r.DFCap), r.Database,
			[]string{shortans.Similarity, shortans.Coverage, "coverage+common", shortans.Cosine, shortans.Naive5})
	}
}
