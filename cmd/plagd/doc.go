// Command plagd is the plagiarism-detection daemon and its command-line
// tools: the one binary operators deploy (bin/plagd, the container image).
// It migrates the schema, ingests documents, runs detection (once, or as the
// daemon with the web interface and API), answers questions about the
// archive (similar, related, dups, check, status), manages users, and serves
// as a cluster node.
//
// Each subcommand lives in its own file and registers itself from its init;
// main.go wires the root command. The global flags, configuration loading,
// logging and exit codes are shared with plagd-lab through internal/cli;
// what only plagd needs (connecting with the schema check, the
// one-argument checks) is in common.go.
//
// The laboratory is not here: measuring speed (bench, gen) and extraction
// quality (extract-eval) is cmd/plagd-lab's job, so that the product does
// not carry the synthetic corpora, the benchmarks and the scorers. A test
// (deps_test.go) fails when plagd links one of those packages again.
//
// One evaluation stays: `plagd eval pan CORPUS --out DIR` runs detection on
// a labelled PAN corpus and scores it. It is an operator's way to check that
// a deployment detects what it should on a corpus with known answers, and the
// external acceptance check builds this package (./cmd/plagd) and calls
// exactly that command, so it must not move to plagd-lab.
package main
