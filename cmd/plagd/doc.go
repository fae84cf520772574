// Command plagd is the plagiarism-detection daemon and its command-line
// tools: the one binary operators deploy (bin/plagd, the container image).
// It migrates the schema, ingests documents, runs detection (once, or as the
// daemon with the web interface and API), answers questions about the
// archive (similar, related, dups, check, status), manages users, and serves
// as a cluster node.
//
// Each subcommand lives in its own file and registers itself from its init;
// main.go wires the root command. The global flags, configuration loading,
// logging and exit codes are in internal/cli;
// what only plagd needs (connecting with the schema check, the
// one-argument checks) is in common.go.
package main
