package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/daemon"
)

// Exit codes, documented in README.md.
const (
	ExitOK      = 0
	ExitFailure = 1 // the command failed; the message says why
	ExitUsage   = 2 // bad flags or arguments
)

// Globals are the flags every subcommand shares.
type Globals struct {
	ConfigPath string
	Database   string
	DataDir    string
	LogLevel   string
	LogFormat  string
}

// NewRoot is the root command of a binary named name, with the global flags
// bound to g. It prints its help when run without a subcommand.
func NewRoot(name, short string, g *Globals) *cobra.Command {
	root := &cobra.Command{
		Use:           name,
		Short:         short,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	pf := root.PersistentFlags()
	pf.StringVarP(&g.ConfigPath, "config", "c", os.Getenv("PLAGD_CONFIG"), "configuration file (YAML, see configs/plagd.yaml); env PLAGD_CONFIG")
	pf.StringVar(&g.Database, "database", "", "PostgreSQL URL (overrides PLAGD_DATABASE_URL and DATABASE_URL)")
	pf.StringVar(&g.DataDir, "data-dir", "", "index directory (overrides data_dir)")
	pf.StringVar(&g.LogLevel, "log-level", "", "debug, info, warn or error")
	pf.StringVar(&g.LogFormat, "log-format", "", "json, console or auto")
	return root
}

// Config loads the configuration file and applies environment and flags. It
// fails when no database is named anywhere.
func (g *Globals) Config() (config.Config, error) {
	cfg, err := config.Load(g.ConfigPath)
	if err != nil {
		return cfg, err
	}
	if g.Database != "" {
		cfg.DatabaseURL = g.Database
	}
	if g.DataDir != "" {
		cfg.DataDir = g.DataDir
	}
	if g.LogLevel != "" {
		cfg.Log.Level = g.LogLevel
	}
	if g.LogFormat != "" {
		cfg.Log.Format = g.LogFormat
	}
	if cfg.DatabaseURL == "" {
		return cfg, errors.New("no database: set --database, PLAGD_DATABASE_URL or DATABASE_URL, or database_url in the config file")
	}
	return cfg, nil
}

// Logger builds the zerolog logger the configuration asks for, on stderr.
func Logger(cfg config.Config) zerolog.Logger {
	return daemon.NewLogger(cfg.Log, os.Stderr)
}

// ResultLogger is Logger for commands whose output is their result (plagd
// check, similar, related): the info lines of the work behind it ("index
// loaded") would land in the middle of that output, so it logs warnings
// and errors only, unless log.level asks for debug or trace.
func ResultLogger(cfg config.Config) zerolog.Logger {
	l := Logger(cfg)
	if l.GetLevel() == zerolog.InfoLevel {
		l = l.Level(zerolog.WarnLevel)
	}
	return l
}

// UsageError marks errors caused by bad arguments: Execute exits with
// ExitUsage instead of ExitFailure.
type UsageError struct{ Msg string }

func (e UsageError) Error() string { return e.Msg }

// IsUsage says whether err is, or wraps, a UsageError.
func IsUsage(err error) bool {
	var u UsageError
	return errors.As(err, &u)
}

// PrintJSON writes v to stdout as indented JSON (the --json output of every command).
func PrintJSON(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// DefaultGCPercent is the Go collector's target (GOGC) plagd and
// plagd-lab run with when the environment does not set GOGC: the heap may
// grow by half of what the last collection kept, not by all of it. A run's
// heap is mostly large pointer-free slices (the index, chunk lists,
// vectors), cheap to collect often: on the realistic 100k archive the full
// run's peak RSS fell from 57.5 to 45.6 B/posting at the same run time
// (docs/PERFORMANCE.md, "Memory of a run"). GOMEMLIMIT applies as usual.
const DefaultGCPercent = 50

// tuneGC sets DefaultGCPercent unless GOGC is set.
func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(DefaultGCPercent)
	}
}

// Execute runs root with a context that SIGINT and SIGTERM cancel, prints
// an error on stderr after the program's name, and returns the exit code.
// The Go collector runs at DefaultGCPercent unless GOGC says otherwise.
func Execute(root *cobra.Command) int {
	tuneGC()
	markUsageErrors(root)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", root.Name(), err)
		if IsUsage(err) {
			return ExitUsage
		}
		return ExitFailure
	}
	return ExitOK
}

// markUsageErrors makes bad flags, bad arguments and unknown commands exit
// with code 2, as scripts expect, instead of the generic failure code.
func markUsageErrors(root *cobra.Command) {
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return UsageError{fmt.Sprintf("%v (see '%s --help')", err, c.CommandPath())}
	})
	root.Args = func(c *cobra.Command, args []string) error {
		if len(args) > 0 {
			return UsageError{fmt.Sprintf("unknown command %q (see '%s --help')", args[0], root.Name())}
		}
		return nil
	}
	root.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	wrapArgs(root.Commands())
}

// wrapArgs marks argument errors of cmds and their subcommands as usage errors.
func wrapArgs(cmds []*cobra.Command) {
	for _, c := range cmds {
		if check := c.Args; check != nil {
			c.Args = func(c *cobra.Command, args []string) error {
				if err := check(c, args); err != nil {
					if IsUsage(err) {
						return err
					}
					return UsageError{fmt.Sprintf("%v (see '%s --help')", err, c.CommandPath())}
				}
				return nil
			}
		}
		wrapArgs(c.Commands())
	}
}
