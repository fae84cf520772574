package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/plagd/plagd/extract"
	"github.com/plagd/plagd/internal/cli"
	"github.com/plagd/plagd/internal/pan"
	"github.com/plagd/plagd/internal/pangen"
)

// newPanGenCmd is `plagd-lab pan-gen`: an English PAN text-alignment corpus
// (internal/pangen) from prose files on the machine.
func newPanGenCmd(_ *cli.Globals) *cobra.Command {
	var (
		out        string
		topicWords int
		opt        = pangen.Defaults()
	)
	cmd := &cobra.Command{
		Use:   "pan-gen --out DIR PROSE_PATH...",
		Short: "Generate an English PAN text-alignment corpus from prose files",
		Long: `Reads English prose (.txt, .md and .html files, or folders of them, in sorted
order), splits it into sentences, groups consecutive files of one folder into
topics of at least --topic-words words, and writes a PAN 2013-2015
text-alignment corpus to DIR (susp/, src/, section folders with a pairs file
and one truth XML per pair) that plagd eval pan and the official scorer
read. Each pair's documents come from one topic, so that they share its
vocabulary as real texts on one subject do (internal/pangen). The same inputs
and flags give the same corpus.

For docs/QUALITY.md:

  plagd-lab pan-gen --out /tmp/pan-en /root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/share/doc/rust/html/book`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 || out == "" {
				return cli.UsageError{Msg: "want --out DIR and at least one PROSE_PATH"}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			topics, err := readTopics(args, topicWords)
			if err != nil {
				return err
			}
			c, err := pangen.Generate(pangen.DropRepeats(topics), opt)
			if err != nil {
				return err
			}
			if err := writePanCorpus(out, c); err != nil {
				return err
			}
			cases := map[string]int{}
			for _, p := range c.Pairs {
				cases[p.Section] += max(1, len(p.Cases))
			}
			fmt.Printf("%d topics, %d pairs, %d suspicious and %d source documents in %s\n", len(topics), len(c.Pairs), len(c.Susp), len(c.Src), out)
			for _, s := range pan.Kinds(cases) {
				fmt.Printf("  %-24s %d\n", s, cases[s])
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", "", "corpus folder to write (must not exist or be empty)")
	f.IntVar(&topicWords, "topic-words", 12000, "group consecutive files of a folder into topics of at least this many words")
	f.Uint64Var(&opt.Seed, "seed", opt.Seed, "random seed")
	f.IntVar(&opt.Verbatim, "verbatim", opt.Verbatim, "verbatim cases")
	f.IntVar(&opt.Random, "random", opt.Random, "cases with random word edits")
	f.IntVar(&opt.Synonym, "synonym", opt.Synonym, "cases with synonym replacement")
	f.IntVar(&opt.Reorder, "reorder", opt.Reorder, "cases with reordered sentences")
	f.IntVar(&opt.NoPlagiarism, "no-plagiarism", opt.NoPlagiarism, "pairs without plagiarism")
	f.IntVar(&opt.MinCaseWords, "min-case-words", opt.MinCaseWords, "shortest case in words")
	f.IntVar(&opt.MaxCaseWords, "max-case-words", opt.MaxCaseWords, "longest case in words")
	return cmd
}

// readTopics reads the prose files under paths and groups them into topics.
func readTopics(paths []string, minWords int) ([]pangen.Topic, error) {
	var files []string
	for _, p := range paths {
		err := filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			switch strings.ToLower(filepath.Ext(path)) {
			case ".txt", ".md", ".html", ".htm":
				if !d.IsDir() {
					files = append(files, path)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(files)
	seen := map[string]bool{}
	var topics []pangen.Topic
	var cur pangen.Topic
	words := 0
	flush := func() {
		if len(cur.Sentences) > 0 {
			topics = append(topics, cur)
		}
		cur, words = pangen.Topic{}, 0
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		text, err := extract.Text(b, f, "", extract.Options{})
		if err != nil {
			continue // not prose we can read: skip
		}
		if cur.Name != "" && filepath.Dir(cur.Name) != filepath.Dir(f) {
			flush()
		}
		if cur.Name == "" {
			cur.Name = f
		}
		ss := pangen.Sentences(text, seen)
		cur.Sentences = append(cur.Sentences, ss...)
		for _, s := range ss {
			words += len(strings.Fields(s))
		}
		if words >= minWords {
			flush()
		}
	}
	flush()
	return topics, nil
}

func writePanCorpus(dir string, c *pangen.Corpus) error {
	if es, err := os.ReadDir(dir); err == nil && len(es) > 0 {
		return fmt.Errorf("%s is not empty", dir)
	}
	for _, sub := range []string{"susp", "src"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return err
		}
	}
	for _, d := range c.Susp {
		if err := os.WriteFile(filepath.Join(dir, "susp", d.Name), []byte(d.Text), 0o644); err != nil {
			return err
		}
	}
	for _, d := range c.Src {
		if err := os.WriteFile(filepath.Join(dir, "src", d.Name), []byte(d.Text), 0o644); err != nil {
			return err
		}
	}
	pairs := map[string]*strings.Builder{}
	for _, p := range c.Pairs {
		sec := filepath.Join(dir, p.Section)
		if pairs[p.Section] == nil {
			if err := os.MkdirAll(sec, 0o755); err != nil {
				return err
			}
			pairs[p.Section] = &strings.Builder{}
		}
		fmt.Fprintf(pairs[p.Section], "%s %s\n", p.Susp, p.Src)
		if err := pan.WriteTruth(filepath.Join(sec, pan.PairFileName(p.Susp, p.Src)), p.Susp, p.Cases); err != nil {
			return err
		}
	}
	for s, b := range pairs {
		if err := os.WriteFile(filepath.Join(dir, s, "pairs"), []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}
