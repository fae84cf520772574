package main

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/extract"
	"github.com/plagd/plagd/extract/sandbox"
	"github.com/plagd/plagd/ingest"
	"github.com/plagd/plagd/internal/cli"
	"github.com/plagd/plagd/internal/safetext"
)

func init() { register(newIngestCmd) }

// newIngestCmd is `plagd ingest`: load files into the documents table, the
// way archive staff import an archive. It only stores files; the next run
// (cron, or the daemon noticing the change) extracts and indexes them, and
// `plagd status` then lists files whose text could not be extracted.
func newIngestCmd(g *globals) *cobra.Command {
	var (
		kind       string
		exts       []string
		noCheck    bool
		manifest   string
		duplicates string
	)
	cmd := &cobra.Command{
		Use:   "ingest [--kind KIND] [--ext .txt,.pdf] PATH... | ingest --manifest FILE [--duplicates new|replace]",
		Short: "Import files and folders into the document archive",
		Long: fmt.Sprintf(`Store each file as a document, keyed by external_id: a file named on the
command line by its base name ("x.pdf"), a file found in a folder by the
folder's name and its path inside it ("theses/2024/x.pdf").

A file that is already stored with the same content is left alone; one whose
content changed, or that was deleted, is updated and picked up by the next
run. A file byte-identical to a document stored under another external id
(or to a file earlier in the import) is not stored, and listed, unless
--duplicates=new. Unless --no-check is given, each added or changed file is extracted at
once: files whose text cannot be had are listed, and so are files whose
text nearly equals a stored document's (a simhash within neardup.distance
bits: a re-upload, a resubmission with a new title page), before any run. Hidden files and folders are skipped; symbolic links are followed.

Folders are searched for files with the extensions %s unless --ext is given.
Files larger than extract.max_bytes are reported and not stored. A file that
cannot be read is reported and the rest are imported; the command fails only
when nothing could be stored or the database fails.

With --manifest, the files and what the archive should know about them come
from a CSV file (UTF-8, a header row naming the columns %s; only
file is required; file paths are relative to the manifest's folder). Every
row is checked first, and a manifest with any problem (named by row and
column) imports nothing; then each row is stored whole or not at all, with
its title, author, kind, year, external id and restricted flag, and audited
as your user. A file byte-identical to a live document is skipped with a
message unless --duplicates says new (store a second copy) or replace (give
the existing document this row's file and details).`, strings.Join(extract.Extensions(), " "), strings.Join(ingest.ManifestColumns, ",")),
		Example: "  plagd ingest --kind thesis /srv/archive/theses\n  plagd ingest --ext .pdf,.docx essay1.pdf essays/\n  plagd ingest --manifest /srv/import/2024/manifest.csv",
		Args: func(cmd *cobra.Command, args []string) error {
			if manifest != "" {
				if len(args) > 0 {
					return cli.UsageError{Msg: "plagd ingest --manifest takes no other paths: the manifest names the files"}
				}
				return nil
			}
			if len(args) == 0 {
				return cli.UsageError{Msg: "plagd ingest needs at least one file or folder, e.g. plagd ingest ./theses"}
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
			if manifest != "" {
				dup, err := ingest.ParseDuplicates(duplicates)
				if err != nil {
					return cli.UsageError{Msg: "--duplicates: " + err.Error()}
				}
				return ingestManifest(ctx, cfg, db, manifest, dup)
			}

			dup, err := ingest.ParseDuplicates(duplicates)
			if err != nil || dup == ingest.DuplicatesReplace {
				return cli.UsageError{Msg: "--duplicates for files and folders is new (store a file identical to a stored document all the same); " +
					"replace needs --manifest, which says what each replaced document becomes"}
			}
			opt := ingest.Options{
				Duplicates: dup,
				Kind:       kind,
				Roots:      args,
				Exts:       exts,
				MaxBytes:   cfg.Extract.MaxBytes,
				Progress:   os.Stderr,
			}
			if !noCheck {
				check := cfg.ExtractOptions()
				opt.Check = &check
				opt.Extract = sandbox.New(cfg.SandboxConfig(), cli.Logger(cfg))
				defer opt.Extract.Close()
				opt.NearDups = engine.NewNearDups(db.Pool, cfg)
			}
			sum, err := ingest.Files(ctx, db, opt, cli.Logger(cfg))
			printIngestSummary(sum)
			if err != nil {
				return err
			}
			return ingestOutcome(sum, exts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&kind, "kind", "", "document kind stored with each file (thesis, essay, ...)")
	f.StringSliceVar(&exts, "ext", nil, "only files with these extensions, comma-separated (default: all supported formats)")
	f.StringVar(&manifest, "manifest", "", "a CSV manifest naming the files and their details (instead of paths)")
	f.StringVar(&duplicates, "duplicates", "", "a file byte-identical to a stored document: new (store it all the same) or, with --manifest, replace (default: skip it with a message)")
	f.BoolVar(&noCheck, "no-check", false, "do not extract each file now to report unreadable ones and near-duplicates (faster bulk imports)")
	return cmd
}

func printIngestSummary(s ingest.Summary) {
	printf("added %d, updated %d, unchanged %d, failed %d", s.Added, s.Updated, s.Unchanged, s.Failed)
	if len(s.Identical) > 0 {
		printf(", identical to stored documents %d", len(s.Identical))
	}
	if s.Skipped > 0 {
		printf(", skipped %d (other extensions)", s.Skipped)
	}
	printf("; %s\n", formatBytes(s.Bytes))
	if len(s.Formats) > 0 {
		names := make([]string, 0, len(s.Formats))
		for f := range s.Formats {
			names = append(names, f)
		}
		sort.Strings(names)
		printf("formats:")
		for _, f := range names {
			printf(" %s %d", extract.Format(f).Name(), s.Formats[f])
		}
		printf("\n")
	}
	if len(s.Unreadable) > 0 {
		printf("\nstored, but no text can be extracted (the next run marks them failed):\n")
		for _, f := range s.Unreadable {
			printf("  %s: %s\n", shown(f.Path), shown(f.Reason))
		}
	}
	if len(s.NearDuplicates) > 0 {
		printf("\nstored, and nearly the same text as documents already stored (`plagd dups` lists all clusters):\n")
		for _, n := range s.NearDuplicates {
			printf("  %s (#%d) is near:\n", shown(n.Path), n.ID)
			for _, d := range n.Candidates {
				d.Title, d.Author, d.Kind, d.ExternalID = shown(d.Title), shown(d.Author), shown(d.Kind), shown(d.ExternalID)
				printf("    #%-7d %-7s  %s\n", d.ID, plural(d.Distance, "bit"), describeNear(d))
			}
		}
	}
	if len(s.Identical) > 0 {
		printf("\nnot stored, byte for byte a document already stored (--duplicates=new stores them all the same):\n")
		for _, f := range s.Identical {
			if f.Earlier != "" {
				printf("  %s: the same file as %s, earlier in this import\n", shown(f.Path), shown(f.Earlier))
				continue
			}
			d := f.Existing[0]
			printf("  %s: document %d (%s)\n", shown(f.Path), d.ID, shown(firstNonEmpty(d.ExternalID, d.Title, d.Filename)))
		}
	}
	if len(s.Failures) > 0 {
		printf("\nnot stored:\n")
		for _, f := range s.Failures {
			printf("  %s: %s\n", shown(f.Path), shown(f.Reason))
		}
	}
	if s.Added+s.Updated > 0 {
		printf("\nThe next run indexes the new and changed documents; `plagd status` shows its progress.\n")
	}
}

// shown is text that came from a file (a path, a parser's reason, a title)
// as printed on the terminal: one line, no escape sequences or invalid
// bytes, bounded.
func shown(s string) string { return safetext.Line(s, 1000) }

// ingestOutcome turns "nothing stored" into an error; single failed files
// are reported, not fatal.
func ingestOutcome(s ingest.Summary, exts []string) error {
	switch {
	case s.Stored() > 0, len(s.Identical) > 0:
		return nil
	case s.Failed > 0:
		return fmt.Errorf("nothing could be ingested: %d failed (see the list above)", s.Failed)
	case s.Skipped > 0 && len(exts) > 0:
		return fmt.Errorf("no files to ingest: %d files found, none with the extensions %s", s.Skipped, strings.Join(exts, ","))
	case s.Skipped > 0:
		return errors.New("no files to ingest: none of the files found has a supported extension (" +
			strings.Join(extract.Extensions(), " ") + "); use --ext to choose others")
	}
	return errors.New("no files to ingest: the folders are empty (hidden files are skipped)")
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
