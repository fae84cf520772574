package main

import (
	"os"

	"github.com/plagd/plagd/extract/sandbox"
	"github.com/plagd/plagd/internal/cli"
)

func main() {
	// The engine that bench runs extracts documents in child processes of
	// this binary (extract/sandbox); such a child serves them and exits here.
	sandbox.Main()
	g := &cli.Globals{}
	root := cli.NewRoot("plagd-lab", "Measurements of plagd: speed on generated corpora, text extraction quality, evasion", g)
	root.AddCommand(newBenchCmd(g), newGenCmd(g), newExtractEvalCmd(g), newPanGenCmd(g), newEvasionCmd(g), newShortansCmd(g))
	addProfileFlag(root)
	os.Exit(cli.Execute(root))
}
