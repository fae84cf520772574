// Command plagd-lab is plagd's laboratory: the measurements behind the
// figures of docs/PERFORMANCE.md and docs/EXTRACTION.md, kept out of the
// product binary so that what operators deploy carries no benchmarks,
// synthetic corpora or scorers (cmd/plagd's deps test holds it to that).
// Developers run it from a checkout, usually as bin/plagd-lab after
// `make build`; the container image does not ship it.
//
//   - bench: generates a synthetic archive (internal/synth) and measures
//     chunking, index build, loading, full and incremental runs, memory and
//     PostgreSQL writes (internal/bench). Needs a migrated, empty, throwaway
//     database (`plagd migrate`), or none with --skip-db; --skip-build
//     leaves out the in-memory chunking and build figures, which hold the
//     whole corpus's chunks at once (for 1M documents). `make bench` runs it.
//   - gen: writes the same generated corpus as .txt files with the list of
//     planted copies, for `plagd ingest` demos.
//   - extract-eval: extraction quality, word and bigram F1 of plagd's text
//     against the true text (internal/wordscore), on the fixtures of
//     extract/testdata or, with --corpus, on a folder of real-world PDFs,
//     next to pdftotext and mutool (extracteval*.go).
//   - pan-gen: an English corpus in the PAN text-alignment layout from prose
//     files on the machine (internal/pangen), for `plagd eval pan`
//     (docs/QUALITY.md).
//   - shortans: a short-answer corpus (internal/shortans) stored and run
//     through the engine, and the ROC AUC with which plagd's similarity,
//     the report's coverage and the related cosine separate copied answers
//     from original ones, next to naive 5-word containment
//     (docs/QUALITY.md, "Short answers").
//
// It is the same engine as plagd, with the same global flags, configuration
// and exit codes (internal/cli): a bench measures exactly what plagd runs.
// Detection quality on a labelled corpus is not here but in the product,
// `plagd eval pan`, as operators use it to validate a deployment.
package main
