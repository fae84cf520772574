package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/rs/zerolog"

	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/daemon"
	"github.com/plagd/plagd/store"
)

// usageError marks errors caused by bad arguments (exit code 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func asUsage(err error, target *usageError) bool { return errors.As(err, target) }

// config loads the configuration file and applies environment and flags.
func (g *globals) config() (config.Config, error) {
	cfg, err := config.Load(g.configPath)
	if err != nil {
		return cfg, err
	}
	if g.database != "" {
		cfg.DatabaseURL = g.database
	}
	if g.dataDir != "" {
		cfg.DataDir = g.dataDir
	}
	if g.logLevel != "" {
		cfg.Log.Level = g.logLevel
	}
	if g.logFormat != "" {
		cfg.Log.Format = g.logFormat
	}
	if cfg.DatabaseURL == "" {
		return cfg, errors.New("no database: set --database, PLAGD_DATABASE_URL or DATABASE_URL, or database_url in the config file")
	}
	return cfg, nil
}

// logger builds the zerolog logger the configuration asks for.
func logger(cfg config.Config) zerolog.Logger {
	return daemon.NewLogger(cfg.Log, os.Stderr)
}

// open loads the configuration and connects to its database, checking the
// schema: the start of every command that works on the archive. The caller
// closes the pool.
func (g *globals) open(ctx context.Context) (config.Config, *store.DB, error) {
	cfg, err := g.config()
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
			return usageError{fmt.Sprintf("plagd %s takes %s, got %d arguments", cmd.Name(), what, len(args))}
		}
		return nil
	}
}

// connect opens a pool and checks that the schema is the one this binary
// expects. The commands run no SQL themselves: they pass the pool to store,
// engine, daemon and auth.
func connect(ctx context.Context, cfg config.Config) (*store.DB, error) {
	pool, err := daemon.Connect(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	if err := daemon.CheckSchema(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	return store.NewDB(pool), nil
}

func printf(format string, args ...any) { fmt.Fprintf(os.Stdout, format, args...) }

// printJSON writes v to stdout as indented JSON (the --json output of every command).
func printJSON(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
