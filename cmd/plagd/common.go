package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/internal/cli"
	"github.com/plagd/plagd/store"
)

// open loads the configuration and connects to its database, checking the
// schema: the start of every command that works on the archive. The caller
// closes the pool.
func (g *globals) open(ctx context.Context) (config.Config, *store.DB, error) {
	cfg, err := g.Config()
	if err != nil {
		return cfg, nil, err
	}
	db, err := connect(ctx, cfg)
	return cfg, db, err
}

// exactlyOneArg is an Args check whose message names what the one argument is.
func exactlyOneArg(what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != 1 {
			return cli.UsageError{Msg: fmt.Sprintf("plagd %s takes %s, got %d arguments", cmd.Name(), what, len(args))}
		}
		return nil
	}
}

// connect opens a pool and checks that the schema is the one this binary
// expects. The commands run no SQL themselves: they pass the pool to store,
// engine, daemon and auth.
func connect(ctx context.Context, cfg config.Config) (*store.DB, error) {
	pool, err := store.Connect(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	if err := store.CheckSchema(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	return store.NewDB(pool), nil
}

func printf(format string, args ...any) { fmt.Fprintf(os.Stdout, format, args...) }
