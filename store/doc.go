// Package store is plagd's archive in PostgreSQL as the rest of the program
// reads and edits it outside a run's commit: documents (create, update,
// delete, list), their similarity lists and headers, runs, and the rules for
// what a stored field may hold (fields.go: one clean bounded line for a
// failure reason, a file name that keeps its extension, a text that can be
// staged and stored).
//
// Writes here only ever touch documents; the triggers on documents fill the
// change log (plagd_changes) that the next run consumes. Everything a run
// computes is written by package engine in the run's one transaction.
package store
