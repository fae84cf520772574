package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/internal/cli"
	"github.com/spf13/cobra"
)

func init() { register(newDupsCmd) }

// newDupsCmd is `plagd dups`: the near-duplicate clusters of the whole
// archive, for staff clearing out re-uploads and resubmissions.
func newDupsCmd(g *globals) *cobra.Command {
	var (
		asJSON  bool
		exact   bool
		h       int
		minSize int
	)
	cmd := &cobra.Command{
		Use:   "dups [--distance H] [--min-size N] [--exact] [--json]",
		Short: "List clusters of near-duplicate documents",
		Long: `Compare the simhash of every document with all others and list the groups
of near-duplicates: documents whose 64-bit simhashes differ in at most H bits
(neardup.distance, 3 by default): re-uploads, resubmissions with a new title
page, lightly edited copies. A chain of near-duplicates is one group; its
diameter says how far apart its two most different members are.

Documents are hashed by runs and at upload; a document not yet through a run
and uploaded with plagd ingest or the web pages is included (marked pending).
Each document makes neardup.budget index lookups, most likely bit flips
first (PSM with VOSH, docs/NEARDUP.md); --exact makes all of them.`,
		Example: "  plagd dups\n  plagd dups --distance 5 --min-size 3 --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if h < 0 || h > 10 {
				return cli.UsageError{Msg: fmt.Sprintf("--distance must be 1 to 10 bits, got %d", h)}
			}
			ctx := cmd.Context()
			cfg, db, err := g.open(ctx)
			if err != nil {
				return err
			}
			defer db.Close()
			rep, err := engine.Clusters(ctx, db.Pool, cfg, engine.DupsOptions{Distance: h, Exact: exact, MinSize: minSize})
			if err != nil {
				return err
			}
			if asJSON {
				return cli.PrintJSON(rep)
			}
			writeDups(os.Stdout, rep)
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&h, "distance", 0, "most differing bits of two near-duplicates (default: neardup.distance)")
	f.IntVar(&minSize, "min-size", 2, "list only clusters of at least this many documents")
	f.BoolVar(&exact, "exact", false, "try every bit flip instead of neardup.budget per document")
	f.BoolVar(&asJSON, "json", false, "print JSON instead of text")
	return cmd
}

func writeDups(w io.Writer, rep engine.DupsReport) {
	docs := 0
	for _, c := range rep.Clusters {
		docs += len(c.Documents)
	}
	if rep.Model == 0 && rep.Documents == 0 {
		fmt.Fprintln(w, "No document has a simhash yet: run `plagd run` first (uploads are hashed at once, runs hash the rest).")
		return
	}
	fmt.Fprintf(w, "%s of near-duplicates (at most %d bits apart) among %d documents; %d documents in them.\n",
		plural(len(rep.Clusters), "cluster"), rep.Distance, rep.Documents, docs)
	for i, c := range rep.Clusters {
		fmt.Fprintf(w, "\ncluster %d: %d documents, at most %d bits apart\n", i+1, len(c.Documents), c.Diameter)
		for _, d := range c.Documents {
			fmt.Fprintf(w, "  #%-7d %-7s  %s\n", d.ID, plural(d.Distance, "bit"), describeNear(d))
		}
	}
	fmt.Fprintf(w, "\n(%d pairs, %d index lookups, %s)\n", rep.Pairs, rep.Lookups, rep.Took)
}

// describeNear is a document of a near-duplicate listing in one line.
func describeNear(d engine.NearDuplicate) string {
	var b strings.Builder
	title := d.Title
	if title == "" {
		title = "(untitled)"
	}
	fmt.Fprintf(&b, "%q", title)
	var meta []string
	if d.Author != "" {
		meta = append(meta, d.Author)
	}
	if d.Year != 0 {
		meta = append(meta, fmt.Sprint(d.Year))
	}
	if d.Kind != "" {
		meta = append(meta, d.Kind)
	}
	if len(meta) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(meta, ", "))
	}
	if d.ExternalID != "" {
		fmt.Fprintf(&b, " [%s]", d.ExternalID)
	}
	if d.Pending {
		b.WriteString(" pending")
	}
	return b.String()
}
