package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/plagd/plagd/internal/cli"
	"github.com/plagd/plagd/store"
	"github.com/spf13/cobra"
)

func init() { register(newStatusCmd) }

// newStatusCmd is `plagd status`: the operator's first look. It reads the
// database only, so it works from any host and while a run is going on.
func newStatusCmd(g *globals) *cobra.Command {
	var (
		asJSON bool
		runs   int
		failed int
	)
	cmd := &cobra.Command{
		Use:   "status [--json] [--runs N] [--failed N]",
		Short: "Show recent runs, pending changes and failed documents",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return cli.UsageError{Msg: fmt.Sprintf("plagd status takes no arguments, got %q", args)}
			}
			if runs < 0 || failed < 0 {
				return cli.UsageError{Msg: "--runs and --failed must be 0 or more"}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			_, db, err := g.open(ctx)
			if err != nil {
				return err
			}
			defer db.Close()
			st, err := store.LoadStatus(ctx, db, runs, failed)
			if err != nil {
				return err
			}
			if asJSON {
				return cli.PrintJSON(st)
			}
			writeStatus(os.Stdout, st, time.Now())
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&asJSON, "json", false, "print JSON instead of tables")
	f.IntVar(&runs, "runs", 10, "number of recent runs to show")
	f.IntVar(&failed, "failed", 20, "number of failed documents to list")
	return cmd
}

// heldBackReason says which open transaction holds changes back and what
// to do about it.
func heldBackReason(h *store.HeldBack, now time.Time) string {
	if h.PID == 0 {
		return "a transaction that was open a moment ago; the next run takes them"
	}
	who := fmt.Sprintf("pid %d", h.PID)
	if h.Database != "" || h.User != "" {
		who += fmt.Sprintf(", database %s, user %s", h.Database, h.User)
	}
	if h.State != "" {
		who += ", " + h.State
	}
	return fmt.Sprintf("runs take only changes older than every open transaction on the server, and one (%s) has been open since %s (%s ago); commit or end it (SELECT pg_terminate_backend(%d)) and the next run takes them",
		who, formatTime(h.Since), roundAgo(now.Sub(h.Since)), h.PID)
}

// writeStatus prints st for people; now makes "ago" testable.
func writeStatus(w io.Writer, st store.Status, now time.Time) {
	d := st.Documents
	fmt.Fprintf(w, "Documents:  %d: %d indexed, %d failed, %d pending", d.Total, d.Indexed, d.Failed, d.Pending)
	if d.Deleted > 0 {
		fmt.Fprintf(w, " (and %d deleted)", d.Deleted)
	}
	fmt.Fprintln(w)
	writeFlagSummary(w, st.Flagged)
	if st.Pending == 0 {
		fmt.Fprintln(w, "Change log: empty, the index is up to date")
	} else {
		fmt.Fprintf(w, "Change log: %s waiting for the next run", plural(st.Pending, "document"))
		if st.OldestPending != nil {
			fmt.Fprintf(w, ", oldest change %s (%s ago)", formatTime(*st.OldestPending), roundAgo(now.Sub(*st.OldestPending)))
		}
		fmt.Fprintln(w)
		if h := st.HeldBack; h != nil {
			fmt.Fprintf(w, "            %s held back: %s\n", plural(h.Documents, "document"), heldBackReason(h, now))
		}
	}
	if st.IndexQueued > 0 {
		fmt.Fprintf(w, "Similarity indexes: %s waiting to be computed (the daemon's next run stores them)\n", plural(st.IndexQueued, "document"))
	}

	fmt.Fprintln(w)
	if len(st.Runs) == 0 {
		fmt.Fprintln(w, "Runs: none yet")
	} else {
		fmt.Fprintln(w, "Recent runs:")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tKIND\tSTATUS\tSTARTED\tDURATION\tCHANGED\tINDEXED\tDELETED\tFAILED\tRECOMPUTED\tROWS\tERROR")
		for _, r := range st.Runs {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n",
				r.ID, r.Kind, r.Status, formatTime(r.Started), formatDuration(r), r.DocsChanged, r.DocsIndexed,
				r.DocsDeleted, r.DocsFailed, r.DocsRecomputed, r.RowsWritten, oneLine(r.Error, 80))
		}
		tw.Flush()
	}

	if len(st.Failed) > 0 {
		fmt.Fprintln(w)
		more := ""
		if d.Failed > len(st.Failed) {
			more = fmt.Sprintf(", first %d of %d; --failed N shows more", len(st.Failed), d.Failed)
		}
		fmt.Fprintf(w, "Failed documents (fix or replace the file, then ingest it again%s):\n", more)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tEXTERNAL ID\tFILE\tREASON")
		for _, f := range st.Failed {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", f.ID, f.ExternalID, f.Filename, oneLine(f.Error, 120))
		}
		tw.Flush()
	}
}

func formatTime(t time.Time) string { return t.Local().Format("2006-01-02 15:04:05") }

func roundAgo(d time.Duration) time.Duration {
	if d < time.Minute {
		return d.Round(time.Second)
	}
	return d.Round(time.Minute)
}

// oneLine keeps a table row on one line: newlines and tabs would break the
// columns, and long messages are cut (--json has them whole).
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// formatDuration keeps the column short: tenths of a second are enough.
func formatDuration(r store.RunInfo) string {
	switch {
	case r.Finished == nil && r.Status != "running":
		return "?"
	case r.Duration < time.Second:
		return r.Duration.Round(time.Millisecond).String()
	}
	return r.Duration.Round(100 * time.Millisecond).String()
}
