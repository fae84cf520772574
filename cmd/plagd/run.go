package main

import (
	"context"
	"sort"

	"github.com/spf13/cobra"

	"github.com/plagd/plagd/daemon"
	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/internal/cli"
)

func init() { register(newRunCmd) }

// newRunCmd is `plagd run [--full]`: one run now, under the master lock.
func newRunCmd(g *globals) *cobra.Command {
	var full, wait, asJSON bool
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run one incremental (or --full) recomputation now and commit it",
		Long: `Consumes the pending changes, updates the index and writes the similarities
in one transaction. Exits 0 when the run committed. A full run recomputes
everything from the documents table; an incremental run turns full by itself
when the index in the data directory is missing, stale or damaged.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			cfg, db, err := g.open(ctx)
			if err != nil {
				return err
			}
			defer db.Close()
			log := cli.Logger(cfg)
			lock, err := daemon.AcquireMaster(ctx, db.Pool, wait || cfg.Schedule.LockWait)
			if err != nil {
				return err
			}
			defer lock.Release()
			eng := engine.NewEngine(cfg, db.Pool, log)
			defer eng.Close()
			eng.SetFence(lock) // the run commits only while the lock is held
			ctx, cancel := context.WithCancelCause(ctx)
			defer cancel(nil)
			go func() {
				select {
				case <-lock.Lost():
					cancel(daemon.ErrLockLost)
				case <-ctx.Done():
				}
			}()
			rep, err := eng.Run(ctx, full)
			if err != nil {
				return err
			}
			if asJSON {
				return cli.PrintJSON(rep)
			}
			if rep.Kind == "none" {
				printf("nothing to do: no pending changes; run %d is current\n", rep.ID)
				return nil
			}
			printf("run %d (%s) committed in %s\n", rep.ID, rep.Kind, rep.Duration.Round(1e6))
			if rep.Reason != "" {
				printf("  full because: %s\n", rep.Reason)
			}
			printf("  changed %d, indexed %d, failed %d, deleted %d, lists recomputed %d\n",
				rep.Changed, rep.Indexed, rep.Failed, rep.Deleted, rep.Recomputed)
			printf("  index: %d postings, %.1f MiB; similarity rows written: %d\n",
				rep.Postings, float64(rep.IndexBytes)/(1<<20), rep.RowsWritten)
			if rep.BytesToNodes+rep.BytesFromNodes > 0 {
				printf("  nodes: %d; bytes to nodes %d, from nodes %d\n", rep.Nodes, rep.BytesToNodes, rep.BytesFromNodes)
			}
			phases := make([]string, 0, len(rep.Phases))
			for p := range rep.Phases {
				phases = append(phases, p)
			}
			sort.Strings(phases)
			for _, p := range phases {
				printf("  %-8s %s\n", p, rep.Phases[p].Round(1e6))
			}
			if rep.Failed > 0 {
				printf("  %d documents failed: see `plagd status`\n", rep.Failed)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&full, "full", false, "recompute everything instead of only the changes")
	cmd.Flags().BoolVar(&wait, "wait", false, "wait for another master (e.g. the daemon) to release the lock instead of failing")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the run report as JSON")
	return cmd
}
