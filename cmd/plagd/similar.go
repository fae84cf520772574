package main

import (
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/plagd/plagd/internal/cli"
	"github.com/plagd/plagd/store"
	"github.com/spf13/cobra"
)

func init() { register(newSimilarCmd) }

// newSimilarCmd is `plagd similar DOC`: the similarity list of one document
// as the last committed run left it, for checking results from a shell.
func newSimilarCmd(g *globals) *cobra.Command {
	var asJSON bool
	var pf *passageFlags
	cmd := &cobra.Command{
		Use:   "similar DOC [--json] [--passages [--top N]]",
		Short: "List the documents most similar to one document",
		Long: `DOC is a document id or external_id. Each row is another document sharing
chunks with DOC: the number of shared chunks, the share of DOC's chunks found
in it (DOC→OTHER) and, when OTHER's own list holds DOC, the share of OTHER's
chunks found in DOC (OTHER→DOC).

With --passages, DOC's stored text is aligned with its --top most similar
documents and the matching passages are printed with context, as plagd check
prints them, with the same flags.`,
		Example: "  plagd similar 42\n  plagd similar theses/2024/novak.pdf --json",
		Args:    exactlyOneArg("one document id or external_id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			cfg, db, err := g.open(ctx)
			if err != nil {
				return err
			}
			defer db.Close()
			id, err := store.ResolveDoc(ctx, db, args[0])
			if err != nil {
				return err
			}
			doc, err := store.LoadDocInfo(ctx, db, id)
			if err != nil {
				return err
			}
			if pf.enabled {
				return runSimilarPassages(ctx, cfg, db, doc, pf, asJSON)
			}
			rows, err := store.Similar(ctx, db, id)
			if err != nil {
				return err
			}
			idx, err := store.GetSimilarityIndex(ctx, db, id)
			if err != nil {
				return err
			}
			if asJSON {
				return cli.PrintJSON(struct {
					Document        store.DocInfo          `json:"document"`
					SimilarityIndex *store.SimilarityIndex `json:"similarity_index"`
					Similar         []store.SimilarRow     `json:"similar"`
				}{doc, idx, rows})
			}
			writeSimilar(os.Stdout, doc, idx, rows)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	pf = addPassageFlags(cmd, true, 10)
	return cmd
}

func writeSimilar(w io.Writer, doc store.DocInfo, idx *store.SimilarityIndex, rows []store.SimilarRow) {
	fmt.Fprintf(w, "Document %d", doc.ID)
	if doc.ExternalID != "" {
		fmt.Fprintf(w, "  %s", doc.ExternalID)
	}
	fmt.Fprintln(w)
	if doc.Title != "" {
		fmt.Fprintf(w, "  title:  %s\n", doc.Title)
	}
	fmt.Fprintf(w, "  status: %s", doc.Status)
	if doc.Error != "" && doc.Status == "failed" {
		fmt.Fprintf(w, " (%s)", oneLine(doc.Error, 120))
	}
	fmt.Fprintf(w, "\n  chunks: %d (%d words)\n", doc.Chunks, doc.Words)
	switch {
	case idx != nil:
		fmt.Fprintf(w, "  similarity index: %s of the text in passages from %d source(s)", percent(idx.Value), idx.Sources)
		if idx.Versions > 0 {
			fmt.Fprintf(w, "; %d earlier version(s) or near-duplicate(s) left out", idx.Versions)
		}
		fmt.Fprintln(w)
	case doc.Status == "indexed":
		fmt.Fprintln(w, "  similarity index: being computed after the last run")
	}
	fmt.Fprintln(w)

	if len(rows) == 0 {
		switch doc.Status {
		case "pending":
			fmt.Fprintln(w, "No similar documents yet: the document waits for the next run.")
		case "failed":
			fmt.Fprintln(w, "No similar documents: the document's text could not be extracted.")
		default:
			fmt.Fprintln(w, "No similar documents.")
		}
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	// AlignRight suits the numbers; the text columns come last and are not padded.
	fmt.Fprintln(tw, "ID\tSHARED\tDOC→OTHER\tOTHER→DOC\t  EXTERNAL ID / TITLE")
	for _, r := range rows {
		rev := "–"
		if r.Reverse != nil {
			rev = percent(*r.Reverse)
		}
		name := r.ExternalID
		if r.Title != "" && r.Title != name {
			if name != "" {
				name += "  "
			}
			name += oneLine(r.Title, 60)
		}
		if name == "" {
			name = r.Filename
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t  %s\n", r.OtherID, r.Shared, percent(r.Similarity), rev, name)
	}
	tw.Flush()
}

func percent(f float64) string { return fmt.Sprintf("%.1f %%", f*100) }
