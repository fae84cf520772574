// Command plagd is the plagiarism-detection daemon and its command-line tools.
// Each subcommand lives in its own file; this file wires the root command,
// global flags, configuration and logging.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/plagd/plagd/extract/sandbox"
)

// Exit codes, documented in README.md.
const (
	exitOK      = 0
	exitFailure = 1 // the command failed; the message says why
	exitUsage   = 2 // bad flags or arguments
)

// globals are the flags every subcommand shares.
type globals struct {
	configPath string
	database   string
	dataDir    string
	logLevel   string
	logFormat  string
}

func main() {
	// A plagd started by an extraction pool serves documents and exits here.
	sandbox.Main()
	g := &globals{}
	root := &cobra.Command{
		Use:           "plagd",
		Short:         "Incremental plagiarism detection over a PostgreSQL document archive",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	pf := root.PersistentFlags()
	pf.StringVarP(&g.configPath, "config", "c", os.Getenv("PLAGD_CONFIG"), "configuration file (YAML, see configs/plagd.yaml); env PLAGD_CONFIG")
	pf.StringVar(&g.database, "database", "", "PostgreSQL URL (overrides PLAGD_DATABASE_URL and DATABASE_URL)")
	pf.StringVar(&g.dataDir, "data-dir", "", "index directory (overrides data_dir)")
	pf.StringVar(&g.logLevel, "log-level", "", "debug, info, warn or error")
	pf.StringVar(&g.logFormat, "log-format", "", "json, console or auto")

	for _, add := range subcommands {
		root.AddCommand(add(g))
	}
	markUsageErrors(root)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "plagd:", err)
		var ue usageError
		if asUsage(err, &ue) {
			os.Exit(exitUsage)
		}
		os.Exit(exitFailure)
	}
}

// subcommands is filled by each subcommand file's init, so that adding a
// command touches only its own file.
var subcommands []func(*globals) *cobra.Command

func register(f func(*globals) *cobra.Command) { subcommands = append(subcommands, f) }

// markUsageErrors makes bad flags, bad arguments and unknown commands exit
// with code 2, as scripts expect, instead of the generic failure code.
func markUsageErrors(root *cobra.Command) {
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{fmt.Sprintf("%v (see '%s --help')", err, c.CommandPath())}
	})
	root.Args = func(c *cobra.Command, args []string) error {
		if len(args) > 0 {
			return usageError{fmt.Sprintf("unknown command %q (see 'plagd --help')", args[0])}
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
					var u usageError
					if asUsage(err, &u) {
						return err
					}
					return usageError{fmt.Sprintf("%v (see '%s --help')", err, c.CommandPath())}
				}
				return nil
			}
		}
		wrapArgs(c.Commands())
	}
}
