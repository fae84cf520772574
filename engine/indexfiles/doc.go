// Package indexfiles keeps the index in the data directory between runs
// and across restarts: one directory per committed generation (the
// document table and each node's delta), and base slices shared by the
// generations built on them. The files are derived data: PostgreSQL is the
// truth, and any file that is missing, of another format, of other
// parameters, of another database or damaged (every file is checksummed)
// is refused, which makes the engine's next run full. The file formats are
// package invindex's (invindex/doc.go); this package decides names,
// atomic writes (temporary file, fsync, rename, directory fsync), which
// files a generation uses, and pruning of the ones no generation needs.
package indexfiles
