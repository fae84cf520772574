package main

import (
	"github.com/spf13/cobra"

	"github.com/plagd/plagd/internal/bench"
)

// addProfileFlag gives every command --cpuprofile FILE: a CPU profile of
// the whole command (go tool pprof -top FILE), so that a bench's phases
// can be taken apart without a rebuild.
func addProfileFlag(root *cobra.Command) {
	var path string
	stop := func() error { return nil }
	root.PersistentFlags().StringVar(&path, "cpuprofile", "", "write a CPU profile of the command to this file (go tool pprof)")
	root.PersistentPreRunE = chainPre(root.PersistentPreRunE, func(*cobra.Command, []string) error {
		var err error
		stop, err = bench.StartProfile(path)
		return err
	})
	root.PersistentPostRunE = func(*cobra.Command, []string) error { return stop() }
}

// chainPre runs first, then next.
func chainPre(first, next func(*cobra.Command, []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if first != nil {
			if err := first(cmd, args); err != nil {
				return err
			}
		}
		return next(cmd, args)
	}
}
