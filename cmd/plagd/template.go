package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/plagd/plagd/audit"
	"github.com/plagd/plagd/internal/cli"
	"github.com/plagd/plagd/store"
)

func init() { register(newTemplateCmd) }

// newTemplateCmd is `plagd template`: the templates staff register, text
// that documents carry by design and that is no evidence of copying.
func newTemplateCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "template",
		Short: "Register, list and remove templates: text documents carry by design (prompts, forms)",
		Long: `A template is text that documents carry by design, not by copying: the
assignment prompt atop every essay of a course, a faculty's declaration form.
Registered for one kind of document (documents.kind, --kind) or for all, it is
left out of those documents' text in the index: no similarity comes from it,
and reports grey it as template text with the template's name.

Registering or removing a template is recorded in the audit log (as made by
"cli:<os user>") and makes the next run index every document it applies to again (an incremental run; results stay exactly those of a full run).
Text that many documents share is also left out without registering it (common
text, engine.df_cap); a template covers what is shared by fewer documents than
that, or must never count.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	cmd.AddCommand(newTemplateAddCmd(g), newTemplateListCmd(g), newTemplateRemoveCmd(g))
	return cmd
}

func newTemplateAddCmd(g *globals) *cobra.Command {
	var name, kind string
	cmd := &cobra.Command{
		Use:     "add --name NAME [--kind KIND] FILE|-",
		Short:   "Register a template from a text file (- reads standard input)",
		Example: "  plagd template add --name \"Faculty declaration\" declaration.txt\n  plagd template add --name \"ENG101 prompt\" --kind essay prompt.txt",
		Args:    nArgs(1, 1, "one text file (- for standard input)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			body, err := readTemplateFile(args[0])
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			_, db, err := g.open(ctx)
			if err != nil {
				return err
			}
			defer db.Close()
			var id int64
			var docs int
			actor := audit.CLIActor()
			if _, err := db.Audited(ctx, actor, func(tx store.Querier) error {
				id, docs, err = store.AddTemplate(ctx, tx, store.Template{Name: name, Kind: kind, Body: body, CreatedBy: actor.Name})
				return err
			}); err != nil {
				return err
			}
			scope := "every document"
			if kind != "" {
				scope = "documents of kind " + strconv.Quote(kind)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "template %d registered for %s; the next run indexes %d documents again\n", id, scope, docs)
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "what reports call it, such as \"Faculty declaration\" (required)")
	cmd.Flags().StringVar(&kind, "kind", "", "the kind of document it applies to (documents.kind); empty: every document")
	return cmd
}

// readTemplateFile reads a template's text: a plain-text file, or standard
// input for "-".
func readTemplateFile(path string) (string, error) {
	var r io.Reader = os.Stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return "", err
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, store.MaxTemplateBytes+1))
	if err != nil {
		return "", fmt.Errorf("read template %s: %w", path, err)
	}
	return string(b), nil
}

func newTemplateListCmd(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list [--json]",
		Short: "List the registered templates",
		Args:  nArgs(0, 0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			_, db, err := g.open(ctx)
			if err != nil {
				return err
			}
			defer db.Close()
			ts, err := store.ListTemplates(ctx, db)
			if err != nil {
				return err
			}
			if asJSON {
				return cli.PrintJSON(struct {
					Templates []store.Template `json:"templates"`
				}{append([]store.Template{}, ts...)})
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "ID\tNAME\tKIND\tWORDS\tBY\tREGISTERED")
			for _, t := range ts {
				kind := t.Kind
				if kind == "" {
					kind = "(all)"
				}
				fmt.Fprintf(w, "%d\t%s\t%s\t%d\t%s\t%s\n", t.ID, t.Name, kind, len(strings.Fields(t.Body)), t.CreatedBy, t.CreatedAt.Format("2006-01-02 15:04"))
			}
			return w.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newTemplateRemoveCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "remove ID",
		Short: "Remove a registered template",
		Args:  nArgs(1, 1, "one template id (plagd template list)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || id <= 0 {
				return cli.UsageError{Msg: fmt.Sprintf("%q is not a template id (plagd template list shows them)", args[0])}
			}
			ctx := cmd.Context()
			_, db, err := g.open(ctx)
			if err != nil {
				return err
			}
			defer db.Close()
			var docs int
			if _, err := db.Audited(ctx, audit.CLIActor(), func(tx store.Querier) error {
				docs, err = store.RemoveTemplate(ctx, tx, id)
				return err
			}); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "template %d removed; the next run indexes %d documents again\n", id, docs)
			return nil
		},
	}
}
