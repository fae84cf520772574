// Package store is plagd's archive in PostgreSQL as the rest of the program
// reads and edits it outside a run's commit. The web server and the command
// line run no SQL themselves: they call this package (and engine, which
// owns the runs and the index's queries, and auth, audit and migrations,
// which keep their own tables), and hold the pool as a *DB so that their
// imports show it (neither imports pgx).
//
// # What it offers
//
//   - Connections (connect.go): Connect opens the pool and checks the server
//     answers, with advice when it does not; CheckSchema says whether the
//     database is migrated to this binary's schema.
//   - Documents (documents.go): create, update, soft-delete, read and list
//     a document (Document, with its processing status), its stored text
//     (DocumentText), the current headers of a report's documents
//     (Headers), the lock a change of the restricted flag takes
//     (LockRestricted). Files from `plagd ingest` are upserted by external
//     id in batches (files.go, StoreFiles): an unchanged file writes
//     nothing.
//   - Header (header.go): the six fields every list and report shows of a
//     document (external id, title, author, kind, year, restricted), with
//     the API's JSON names, embedded by the types that carry them all.
//   - Similarity lists and document lookups (similar.go): a document's
//     list in the engine's order, a document found by id or external id.
//   - Runs and the status summary (runs.go, status.go): pages of runs,
//     whether one is going on, the last committed one, and LoadStatus
//     (counts, backlog, failed documents) from one read-only snapshot.
//   - Field rules (fields.go): what a stored field may hold: one clean
//     bounded line for a title or a failure reason, a file name that keeps
//     its extension, a text that can be staged and stored.
//   - DB (db.go): the pool as the SQL-free packages hold it, and Audited,
//     a transaction recorded in the audit log as a user's.
//
// # Invariants
//
//   - Writes here only ever touch the documents table; its triggers fill
//     the change log (plagd_changes) that the next run consumes, and the
//     audit triggers record who restricted or deleted what when the
//     transaction is bound to a user (DB.Audited). Everything a run computes
//     (document_status, document_texts, similarities, related, simhashes)
//     is written by package engine in the run's one transaction.
//   - "Pending" has one definition (status.go, changedEntry): a document
//     with an insert, update or delete entry in the change log. The 'lost'
//     entries of a hard delete name documents whose own text is unchanged
//     and are not pending; engine.PendingChanges, the status page, the runs
//     API, the document lists and report headers all count so.
//   - Every text field written is valid UTF-8 without NUL, and the one-line
//     fields are bounded and free of control characters (fields.go), so no
//     client or file name can fail an insert or carry escapes to a page, a
//     log or a terminal. Text read back for terminals and pages (failed
//     documents' reasons) is cleaned the same way.
//
// # Data in and out
//
// In: document fields and content from the web server and the API
// (DocumentInput, DocumentPatch, through package ingest for new content),
// files from `plagd ingest` (FileInput). Out: Document, DocInfo,
// SimilarRow, RunInfo, Status, Header: plain values, JSON-tagged as the
// API and `--json` print them.
//
// # Tables
//
// Written: documents only. Read: documents, document_status,
// document_texts, similarities, plagd_changes, runs.
package store
