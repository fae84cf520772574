// Package ingest is the one way a document enters plagd's archive or gets
// new content: `plagd ingest` (files and folders, Files), the JSON API's
// create and update, and the web pages' upload and edit forms (one
// document, Documents), and manifests: a CSV naming files with their
// title, author, kind, year, external id and restricted flag
// (ParseManifest, Documents.ImportManifest), from the upload page, the API
// or `plagd ingest --manifest`. Integrators who write the documents table
// themselves bypass it by design (docs/integration.md): the next run reads
// what they wrote.
//
// # What happens to new content
//
//  1. It is read once, as the next run will read it (readText: the
//     process's extraction pool, where a hostile file costs a child
//     process, with the configured extract options). A file whose text
//     cannot be had is stored all the same, with a warning (one document)
//     or listed as unreadable (Files): the run marks it failed, and a fixed
//     file stored again clears the failure.
//  2. It is stored through package store: CreateDocument or UpdateDocument
//     in the caller's transaction (Tx: the web server's is audited as the
//     acting user), or StoreFiles, one transaction per batch of files
//     upserted by external id (an unchanged file writes nothing). The text
//     read in step 1 is kept with it, with the document's flags
//     (disguise.Of: hidden text extraction left out, disguises of the text)
//     (store.KeepExtracted, table
//     plagd_extracted, keyed by the bytes' digest and store.Reader), and
//     the run that indexes the document takes it instead of reading the
//     file again, as long as the bytes and the reader are the same.
//  3. Its text is compared with the archive and its simhash recorded
//     (engine.NearDups.CheckAndRecord), so that near-duplicates are
//     reported at once, before any run, and the next upload is compared
//     with this one. A failed comparison never fails the store.
//
// # Invariants
//
//   - Content is extracted at most once per entry, and never inside the
//     database transaction (a slow or hostile file holds no lock).
//   - The near-duplicate hash is recorded only after the document is
//     committed, and only for content that was read; an update that also
//     deletes the document records nothing.
//   - Files refuses, rather than alters, a path that cannot be an external
//     id as it is (store.ExternalIDProblem), and two files that would share
//     an id; a file over extract.max_bytes is not read.
//   - A file byte-identical to a live document's is not stored again
//     unless the caller says so (Documents.CreateOrReplace: ask, new or
//     replace; store.IdenticalDocuments finds it).
//   - A manifest is imported whole or not at all while any row or file has
//     a problem (ManifestErrors, each naming its row and column); after the
//     checks each row is one transaction.
//   - Messages (warnings, failure reasons, paths) are clean bounded lines
//     (store.ReasonField, store.PathShown): they reach terminals, logs,
//     pages and JSON.
//
// # Data in and out
//
// In: store.DocumentInput and store.DocumentPatch (Documents), paths with
// Options (Files), a manifest's CSV and its files (ManifestFiles). Out:
// Result (the document's id, a warning, the near-duplicates found),
// ManifestOutcome per row, and Summary (counts, failures, unreadable files,
// near-duplicates, formats).
//
// # Tables
//
// Written through store: documents (whose triggers fill plagd_changes and
// the audit log); through engine.NearDups: simhashes. Nothing else.
package ingest
