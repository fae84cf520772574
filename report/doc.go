// Package report builds and filters similarity reports: for one document,
// where its text matches each of its sources (the passages), how much of
// the document and of each source that covers, and how much of the
// document all sources cover together, the figure a teacher sees first.
//
// A report is built once and filtered many times. Build aligns the
// document with every source (package passage) and keeps every passage:
// with zero Options.Exclusions that is the raw report. Report.Filter then
// gives the report as a teacher's choices show it (quotations, block
// quotes or the bibliography excluded, a minimum similarity, sources left
// out) without aligning again: a filter change costs a pass over ranges,
// not over texts, because a report keeps what Filter needs of each text,
// found once when it was built.
//
// Build aligns on the index's windows, as the similarities were counted,
// and on sentence pairs (passage.Options.SentenceDice, on at
// DefaultSentenceDice): a reworded copy keeps few identical 5-word runs
// but most of its sentences' content terms, which related.WordTerms finds
// in the text's language. Common text and registered templates seed
// neither way.
//
// # Where the data comes from and goes
//
// The package reads nothing itself: no database, no files, no index. The
// caller gives Build the document's text and its sources in rank order,
// each with its text, header and similarity figures. In plagd these come
// from package daemon: Passages reads a stored document, its similarity
// list and the stored texts (the ones the last committed run chunked, so
// that passages agree with what the similarities counted) from
// PostgreSQL; CheckText counts a file that is not in the archive against
// the committed index. The reports go to the web interface (the report
// and side-by-side pages, which cache raw reports and filter them per
// request), to the JSON API, whose bodies embed Report and SourceReport
// (their field names and JSON tags are the API's and the templates': the
// schemas of /api/openapi.json name them), and to plagd check and
// plagd similar --passages.
//
// # Invariants
//
//   - Offsets are byte offsets: a passage's A offsets and Report.Excluded
//     refer to Report.Text, its B offsets to its SourceReport.Text.
//   - Filtering a raw report equals building with the same exclusions:
//     raw.Filter(Filter{Exclusions: ex}) is, field for field, what Build
//     gives with Options{Align: a, Exclusions: ex} for the alignment
//     options a the raw report was built with. The web interface's report
//     cache relies on it.
//   - Filter only ever removes: sources below the minimum or left out,
//     passages lying wholly inside the document's excluded text; the
//     coverage figures are recomputed from what remains. The sources that
//     stay keep their rank order, and the report Filter is called on is
//     not modified.
//   - Build is deterministic whatever the number of workers: each source's
//     passages depend on the two texts and the options only.
package report
