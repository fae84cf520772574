package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/plagd/plagd/extract/sandbox"
	"github.com/plagd/plagd/internal/cli"
)

// globals are the flags every subcommand shares (internal/cli), with the
// helpers of plagd's own commands.
type globals struct{ cli.Globals }

func main() {
	// A plagd started by an extraction pool serves documents and exits here.
	sandbox.Main()
	g := &globals{}
	root := cli.NewRoot("plagd", "Incremental plagiarism detection over a PostgreSQL document archive", &g.Globals)
	for _, add := range subcommands {
		root.AddCommand(add(g))
	}
	os.Exit(cli.Execute(root))
}

// subcommands is filled by each subcommand file's init, so that adding a
// command touches only its own file.
var subcommands []func(*globals) *cobra.Command

func register(f func(*globals) *cobra.Command) { subcommands = append(subcommands, f) }
