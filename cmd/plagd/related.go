package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/extract"
	"github.com/plagd/plagd/extract/sandbox"
	"github.com/plagd/plagd/internal/cli"
	"github.com/plagd/plagd/store"
)

func init() { register(newRelatedCmd) }

// newRelatedCmd is `plagd related`: documents about the same topic, for a
// stored document (its list as the last run left it) or for files not
// stored (a batch joined with the archive).
func newRelatedCmd(g *globals) *cobra.Command {
	var (
		k      int
		files  bool
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "related DOC [-k N] [--json] | related --files FILE... [-k N] [--json]",
		Short: "List the documents most related to a document by topic",
		Long: `Related documents share vocabulary, not necessarily text: the cosine of their
TF-IDF vectors (stemmed words, stop words removed; 1 means the same words in
the same proportions). Runs keep the top related.k (20) per document.

DOC is a document id or external_id. With --files, each FILE (any format
plagd extracts) is compared with the whole archive without being stored, as
one batch: Alewiwi et al.'s R-S join, by related.method (zolip or exact).`,
		Example: "  plagd related 42 -k 5\n  plagd related --files proposal1.pdf proposal2.docx --json",
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case files && len(args) == 0:
				return cli.UsageError{Msg: "plagd related --files needs at least one file"}
			case !files && len(args) != 1:
				return cli.UsageError{Msg: "plagd related needs one document id or external_id (or --files FILE...)"}
			case k < 1 || k > 100:
				return cli.UsageError{Msg: fmt.Sprintf("-k must be 1 to 100, got %d", k)}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			cfg, db, err := g.open(ctx)
			if err != nil {
				return err
			}
			defer db.Close()
			if files {
				return relatedFiles(ctx, cfg, db, args, k, asJSON)
			}
			return relatedDocument(ctx, db, args[0], k, asJSON)
		},
	}
	f := cmd.Flags()
	f.IntVarP(&k, "k", "k", 10, "how many related documents (at most related.k are stored per document)")
	f.BoolVar(&files, "files", false, "the arguments are files to compare with the archive, not stored documents")
	f.BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	return cmd
}

func writeRelated(w io.Writer, rows []engine.RelatedDoc) {
	if len(rows) == 0 {
		fmt.Fprintln(w, "  no related document")
		return
	}
	for _, d := range rows {
		nd := engine.NearDuplicate{Title: d.Title, Author: d.Author, Year: d.Year, Kind: d.Kind, ExternalID: d.ExternalID}
		fmt.Fprintf(w, "  %5.1f%%  #%-7d %s\n", 100*d.Cosine, d.ID, describeNear(nd))
	}
}

// relatedFiles compares files with the archive, without storing them.
func relatedFiles(ctx context.Context, cfg config.Config, db *store.DB, paths []string, k int, asJSON bool) error {
	xp := sandbox.New(cfg.SandboxConfig(), cli.ResultLogger(cfg))
	defer xp.Close()
	texts := make([]string, len(paths))
	for i, f := range paths {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if texts[i], err = xp.Text(ctx, b, filepath.Base(f), extract.ContentType(f), cfg.ExtractOptions()); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	lists, st, err := engine.RelatedTexts(ctx, db.Pool, cfg, texts, k)
	if err != nil {
		return err
	}
	if asJSON {
		type fileResult struct {
			File    string              `json:"file"`
			Related []engine.RelatedDoc `json:"related"`
		}
		res := make([]fileResult, len(paths))
		for i := range paths {
			res[i] = fileResult{paths[i], lists[i]}
		}
		return cli.PrintJSON(struct {
			Stats engine.RelatedStats `json:"stats"`
			Files []fileResult        `json:"files"`
		}{st, res})
	}
	for i, f := range paths {
		fmt.Printf("%s\n", f)
		writeRelated(os.Stdout, lists[i])
		fmt.Println()
	}
	fmt.Printf("(%s join of %d files with %d documents; %d pairs compared)\n", st.Method, st.Queries, st.Archive, st.Compared)
	return nil
}

// relatedDocument lists the stored related documents of one document.
func relatedDocument(ctx context.Context, db *store.DB, ref string, k int, asJSON bool) error {
	id, err := store.ResolveDoc(ctx, db, ref)
	if err != nil {
		return err
	}
	doc, err := store.LoadDocInfo(ctx, db, id)
	if err != nil {
		return err
	}
	rows, err := engine.Related(ctx, db.Pool, id, k)
	if err != nil {
		return err
	}
	if asJSON {
		return cli.PrintJSON(struct {
			Document store.DocInfo       `json:"document"`
			Related  []engine.RelatedDoc `json:"related"`
		}{doc, rows})
	}
	fmt.Printf("Document %d", doc.ID)
	if doc.Title != "" {
		fmt.Printf("  %q", doc.Title)
	}
	fmt.Printf("  (%s)\n", doc.Status)
	if len(rows) == 0 && doc.Status != "indexed" {
		fmt.Println("  no related documents yet: the next run computes them")
		return nil
	}
	writeRelated(os.Stdout, rows)
	return nil
}
