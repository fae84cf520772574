package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/plagd/plagd/daemon"
	"github.com/plagd/plagd/internal/cli"
	"github.com/plagd/plagd/migrations"
	"github.com/plagd/plagd/store"
)

func init() { register(newMigrateCmd) }

// newMigrateCmd is `plagd migrate`: bring the database schema up to the
// version this binary needs. It is the one command that runs against an
// unmigrated database, so it connects with store.Connect rather than
// connect(), which insists on the current schema.
func newMigrateCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "migrate",
		Short: "Create or upgrade the database schema",
		Long: fmt.Sprintf(`Apply the schema migrations this plagd carries (up to version %d) that the
database does not have yet, each in its own transaction. Running it again, or
from several hosts at once, is safe: the migrations serialise on a lock and
each one is applied once. A database migrated by a newer plagd is refused.

Run it after installing or upgrading plagd, before starting the daemon.`, migrations.Latest),
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return cli.UsageError{Msg: fmt.Sprintf("plagd migrate takes no arguments, got %q", args)}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := g.Config()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			pool, err := store.Connect(ctx, cfg.DatabaseURL)
			if err != nil {
				return err
			}
			defer pool.Close()

			before, err := migrations.Current(ctx, pool)
			if err != nil {
				return err
			}
			applied, err := migrations.Apply(ctx, pool) // refuses a newer schema with ErrSchemaTooNew
			for _, name := range applied {
				printf("applied %s\n", name)
			}
			if err != nil {
				return err
			}
			if len(applied) == 0 {
				printf("schema is up to date (version %d)\n", migrations.Latest)
				return nil
			}
			printf("schema migrated from version %d to %d\n", before, migrations.Latest)
			if h, err := daemon.MasterHolder(ctx, pool); err == nil && h != nil {
				printf("note: a plagd master is running (%s); restart it with this plagd's binary\n", h.Holder())
			}
			return nil
		},
	}
}
