// Package cli is what the two binaries of the repository share on their
// command line: plagd, the product that operators deploy, and plagd-lab, the
// laboratory of measurements (benchmarks, extraction quality) that stays out
// of it.
//
// Both have the same global flags (--config, --database, --data-dir,
// --log-level, --log-format: Globals), load the configuration the same way
// (the file, then the environment, then the flags: Globals.Config), log the
// same way (Logger), and end the same way (Execute): exit code 0 on success,
// 1 on failure with the message on stderr after the program's name, and 2 on
// a usage error: a bad flag, a bad argument, an unknown command, or any error
// a command returns as a UsageError. Scripts rely on these codes; README.md
// documents them.
//
// A binary builds its root with NewRoot, adds its subcommands and hands the
// root to Execute:
//
//	g := &cli.Globals{}
//	root := cli.NewRoot("plagd-lab", "Measurements of plagd", g)
//	root.AddCommand(newBenchCmd(g))
//	os.Exit(cli.Execute(root))
//
// What only one binary needs (plagd's schema check on connecting, its
// one-argument checks) stays in that binary.
package cli
