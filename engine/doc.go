// Package engine makes plagd's runs: one run turns the pending changes of
// the archive into one committed generation of results, all or nothing.
//
// A run (Engine.Run) goes:
//
//  1. prepare: runs that died are marked aborted and their staged texts
//     dropped; the committed generation is read from runs, and the index for
//     it is made current on the master and its nodes (from memory, or from
//     the data directory's files, or not at all: then the run is full);
//  2. plan (plan.go, changes.go): the change log (plagd_changes, filled by
//     triggers on documents) says which documents were added, modified or
//     deleted; the "holes" are unchanged documents whose stored top-k list
//     may have lost an entry and must be recounted;
//  3. compute (package cluster): the master hands the changed documents to
//     the nodes through a TextSource (source.go), which extracts each file in
//     the extraction sandbox, finds the document's flags (disguise.Of: the
//     hidden text extraction left out and the disguises of the text), stages
//     text and flags in plagd_text_stage and returns the text; the nodes chunk, bucket-sort their slice of the index and count
//     shared chunks, and the master returns the rows of every list to
//     rewrite (cluster.Outcome);
//  4. features: near-duplicate simhashes (neardup_*.go), related-documents
//     vectors and lists (related_*.go) and the routed feature index's
//     features (routing_*.go) are brought in step with what the run indexed;
//  5. commit (commit.go): similarities, document texts with their flags and status, the
//     features' tables, the consumed change log and the run's row are written
//     in ONE transaction, checked last against the Fence (the daemon's master
//     lock); only after COMMIT are the nodes' new slices made current, and the
//     index files of the generation are saved (indexstore.go);
//  6. similarity index (simindex.go): the commit also queued every document
//     whose similarity index (report.Index) the run may have changed; right
//     after COMMIT the run computes their indexes from the committed texts
//     and lists, as their reports are made, and stores them
//     (similarity_index), batch by batch. A refresh cut short leaves the
//     rest queued for the next run, which finishes it first.
//
// Every failure before COMMIT leaves the last committed run intact and the
// change log unconsumed, so the next run picks up every pending change. The
// invariant every test checks: after any sequence of changes, an incremental
// run leaves every table equal, row for row, to a full run over the same
// archive, for any number of nodes, in-process or remote.
//
// The engine also answers live checks of texts that are not in the archive
// (query.go, passages.go, routing_index.go: the routed feature index after
// Bhagwat, Eshghi and Mehra), near-duplicate lookups of uploads
// (neardup_index.go) and related documents of a text (related.go).
//
// Data in: documents and plagd_changes (PostgreSQL), the data directory.
// Data out: similarities, document_texts, document_status, simhashes,
// related_vectors/related_lists, routing_features, similarity_index, runs;
// index files.
// The engine has no HTTP, no schedule and no lock of its own: the daemon
// (package daemon) decides when a run starts and under which lock.
package engine
