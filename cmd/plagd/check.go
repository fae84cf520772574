package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/disguise"
	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/extract"
	"github.com/plagd/plagd/extract/sandbox"
	"github.com/plagd/plagd/internal/cli"
	"github.com/plagd/plagd/passage"
	"github.com/plagd/plagd/report"
	"github.com/plagd/plagd/store"
)

func init() { register(newCheckCmd) }

// passageFlags are the flags of the commands that print passages.
type passageFlags struct {
	enabled                              bool // similar --passages
	top                                  int
	noQuotes, noBibliography, noBlockQts bool
	countCommon                          bool
	minWords, maxGap                     int
}

// addPassageFlags adds the passage flags to cmd; withSwitch adds
// --passages too (plagd similar), whose listing is otherwise unchanged.
func addPassageFlags(cmd *cobra.Command, withSwitch bool, defaultTop int) *passageFlags {
	pf := &passageFlags{}
	f := cmd.Flags()
	if withSwitch {
		f.BoolVar(&pf.enabled, "passages", false, "align DOC with its sources and print the matching passages")
	}
	f.IntVar(&pf.top, "top", defaultTop, "align with this many sources at most (the most similar ones)")
	f.BoolVar(&pf.noQuotes, "no-quotes", false, "count text in quotation marks as matching text too")
	f.BoolVar(&pf.noBibliography, "no-bibliography", false, "count the bibliography as matching text too")
	f.BoolVar(&pf.noBlockQts, "no-block-quotes", false, "count marked block quotes as matching text too")
	f.BoolVar(&pf.countCommon, "count-common", false, "count common text (in more documents than engine.df_cap: declarations, prompts, stock phrases) as matching text too")
	f.IntVar(&pf.minWords, "min-words", passage.DefaultMinWords, "shortest passage reported, in words")
	f.IntVar(&pf.maxGap, "max-gap", passage.DefaultMaxGapWords, "longest gap inside a passage, in words")
	return pf
}

func (pf *passageFlags) options() report.Options {
	return report.Options{
		Align: passage.Options{MinWords: nonZero(pf.minWords), MaxGapWords: nonZero(pf.maxGap)},
		Exclusions: passage.Exclusions{
			Quotes: !pf.noQuotes, Bibliography: !pf.noBibliography, BlockQuotes: !pf.noBlockQts,
			Common: !pf.countCommon,
		},
		CountCommon: pf.countCommon,
	}
}

// nonZero maps a flag's 0 to passage.Options' "none" (-1): 0 there means the default.
func nonZero(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

func (pf *passageFlags) excludedNote() string {
	var ex []string
	if !pf.noQuotes {
		ex = append(ex, "quotations")
	}
	if !pf.noBlockQts {
		ex = append(ex, "block quotes")
	}
	if !pf.noBibliography {
		ex = append(ex, "bibliography")
	}
	if !pf.countCommon {
		ex = append(ex, "common text")
	}
	if len(ex) == 0 {
		return "nothing excluded"
	}
	return strings.Join(ex, ", ") + " excluded"
}

// newCheckCmd is `plagd check FILE`: "check this file now", against the
// committed index, without storing anything.
func newCheckCmd(g *globals) *cobra.Command {
	var asJSON bool
	var pf *passageFlags
	cmd := &cobra.Command{
		Use:   "check FILE [--json] [--top N] [--no-quotes] [--no-bibliography]",
		Short: "Check a file against the archive without storing it",
		Long: `Extracts the text of FILE (any format plagd ingests; "-" reads plain text
from standard input), counts its chunks against the index of the last
committed run, aligns it with the most similar documents and prints how much
of it matches, the sources ranked by shared chunks with the similarity both
ways, and each matching passage with a little context (»matched text«).

Nothing is stored. The index is read from the data directory, so run the
command where the daemon keeps it (data_dir); without a committed run it
fails. Text in quotation marks, marked block quotes and the bibliography are
left out of the coverage figures unless --no-quotes, --no-block-quotes or
--no-bibliography say otherwise. With --json, offsets are byte offsets into
the texts; the text output counts characters.`,
		Example: "  plagd check essay.docx\n  plagd check --top 5 --no-quotes thesis.pdf\n  pdftotext x.pdf - | plagd check -",
		Args:    exactlyOneArg("one file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := g.Config()
			if err != nil {
				return err
			}
			read, err := readCheckFile(cmd.Context(), args[0], cfg)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			db, err := connect(ctx, cfg)
			if err != nil {
				return err
			}
			defer db.Close()
			e := engine.NewEngine(cfg, db.Pool, cli.ResultLogger(cfg))
			rep, err := e.CheckText(ctx, read.Text, pf.top, pf.options())
			if err != nil {
				return err
			}
			// The text's own flags and those of what its file hides, as a
			// run stores them for a document (disguise.Of).
			rep.Flags = disguise.Merge(read.Flags, rep.Flags)
			if asJSON {
				return cli.PrintJSON(struct {
					File   string        `json:"file"`
					Report report.Report `json:"report"`
				}{args[0], rep})
			}
			return writeReport(os.Stdout, "File "+args[0], rep, pf)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of text")
	pf = addPassageFlags(cmd, false, 10)
	return cmd
}

// readCheckFile extracts the text of path ("-": standard input, plain text)
// and the flags of what the file hides, in an extraction process
// (extract.isolate), so that a hostile file fails with a reason instead of
// killing the command.
func readCheckFile(ctx context.Context, path string, cfg config.Config) (extract.Result, error) {
	var content []byte
	var err error
	name := path
	if path == "-" {
		content, err = io.ReadAll(os.Stdin)
		name = ""
	} else {
		content, err = os.ReadFile(path)
	}
	if err != nil {
		return extract.Result{}, err
	}
	ctype := ""
	if path == "-" {
		ctype = "text/plain; charset=utf-8"
	}
	xp := sandbox.New(cfg.SandboxConfig(), cli.ResultLogger(cfg))
	defer xp.Close()
	read, err := xp.Read(ctx, content, filepath.Base(name), ctype, cfg.ExtractOptions())
	if err != nil {
		return extract.Result{}, fmt.Errorf("%s: %w", path, err)
	}
	return read, nil
}

// runSimilarPassages is `plagd similar DOC --passages`.
func runSimilarPassages(ctx context.Context, cfg config.Config, db *store.DB, doc store.DocInfo, pf *passageFlags, asJSON bool) error {
	opt := pf.options()
	// Show common text, and leave it out as the similarities do, if the
	// index is at hand.
	ct, err := engine.NewEngine(cfg, db.Pool, cli.ResultLogger(cfg)).CommonText(ctx)
	if err != nil {
		fmt.Fprintf(os.Stderr, "plagd: common text is not known (the index cannot be loaded): %v\n", err)
	}
	ct.Apply(&opt)
	rep, err := engine.Passages(ctx, db.Pool, cfg, doc.ID, pf.top, opt)
	if err != nil {
		return err
	}
	if asJSON {
		return cli.PrintJSON(struct {
			Document store.DocInfo `json:"document"`
			Report   report.Report `json:"report"`
		}{doc, rep})
	}
	title := fmt.Sprintf("Document %d", doc.ID)
	if doc.ExternalID != "" {
		title += "  " + doc.ExternalID
	}
	return writeReport(os.Stdout, title, rep, pf)
}

// contextChars is how much text is shown on each side of a passage.
const contextChars = 40

// writeReport prints a passage report: overall coverage, the sources, and
// each source's passages with context.
func writeReport(w io.Writer, title string, rep report.Report, pf *passageFlags) error {
	fmt.Fprintln(w, title)
	fmt.Fprintf(w, "  %d chunks, %d characters\n", rep.Chunks, utf8.RuneCountInString(rep.Text))
	fmt.Fprintf(w, "  matching text: %s of the document (%s)\n", percent(rep.Coverage), pf.excludedNote())
	writeFlags(w, rep.Text, rep.Flags)
	fmt.Fprintln(w)
	if len(rep.Sources) == 0 {
		fmt.Fprintln(w, "No similar documents.")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "ID\tSHARED\tDOC→SRC\tSRC→DOC\tPASSAGES\tDOC COVERED\tSRC COVERED\t  EXTERNAL ID / TITLE")
	for _, s := range rep.Sources {
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%d\t%s\t%s\t  %s\n", s.ID, s.Shared, percent(s.Similarity), percent(s.Reverse),
			len(s.Passages), percent(s.CoverageA), percent(s.CoverageB), sourceName(s))
	}
	tw.Flush()
	for _, s := range rep.Sources {
		if len(s.Passages) == 0 {
			continue
		}
		fmt.Fprintf(w, "\nSource %d  %s: %s\n", s.ID, sourceName(s), plural(len(s.Passages), "passage"))
		for i, p := range s.Passages {
			offs := []int{p.AStart, p.AEnd}
			passage.RuneOffsets(rep.Text, offs)
			soffs := []int{p.BStart, p.BEnd}
			passage.RuneOffsets(s.Text, soffs)
			fmt.Fprintf(w, "  [%d] document %d–%d (%d words) ↔ source %d–%d (%d words), %d shared windows\n",
				i+1, offs[0], offs[1], p.AWords, soffs[0], soffs[1], p.BWords, p.Shared)
			fmt.Fprintf(w, "      document: %s\n", excerpt(rep.Text, p.AStart, p.AEnd))
			fmt.Fprintf(w, "      source:   %s\n", excerpt(s.Text, p.BStart, p.BEnd))
		}
	}
	return nil
}

func sourceName(s report.SourceReport) string {
	name := s.ExternalID
	if s.Title != "" && s.Title != name {
		if name != "" {
			name += "  "
		}
		name += oneLine(s.Title, 60)
	}
	return name
}

// excerpt shows text[start:end] highlighted as »…« with contextChars of
// context on each side, on one line; a long passage is shortened in the
// middle.
func excerpt(text string, start, end int) string {
	before := text[:start]
	for n := 0; n < contextChars && before != ""; n++ {
		_, size := utf8.DecodeLastRuneInString(before)
		before = before[:len(before)-size]
	}
	after := text[end:]
	cut := 0
	for n := 0; n < contextChars && cut < len(after); n++ {
		_, size := utf8.DecodeRuneInString(after[cut:])
		cut += size
	}
	pre, post := text[len(before):start], after[:cut]
	if len(before) > 0 {
		pre = "…" + pre
	}
	if cut < len(after) {
		post += "…"
	}
	match := flat(text[start:end])
	if r := []rune(match); len(r) > 240 {
		match = string(r[:110]) + " … " + string(r[len(r)-110:])
	}
	return flat(pre) + "»" + match + "«" + flat(post)
}

// flat puts text on one line: runs of white space become one space, and a
// space at either end is kept (it separates the highlight from its context).
func flat(s string) string {
	f := strings.Join(strings.Fields(s), " ")
	if f == "" {
		if s != "" {
			return " "
		}
		return ""
	}
	if r, _ := utf8.DecodeRuneInString(s); isSpace(r) {
		f = " " + f
	}
	if r, _ := utf8.DecodeLastRuneInString(s); isSpace(r) {
		f += " "
	}
	return f
}

func isSpace(r rune) bool { return strings.ContainsRune(" \t\n\r\f\v\u00a0", r) }
