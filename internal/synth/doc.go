// Package synth generates a synthetic document archive for benchmarks:
// Zipf-distributed words, sentences and paragraphs, archive-like document
// lengths, and planted plagiarism (copied passages, verbatim or lightly
// edited, near-duplicates, and optional template text).
//
// Generation is pure and random-access: Doc(i) depends only on the Options
// and i, so documents are generated in parallel, streamed, or regenerated
// later (the bench's incremental run modifies documents it never kept)
// without ever holding the corpus. A document copies from earlier documents
// by regenerating just the sentences it copies: every sentence k of document
// j has its own random stream, and a document's own sentences always appear
// in its text (copied passages are inserted between them, never over them),
// so a copy is found in its source by construction.
package synth
