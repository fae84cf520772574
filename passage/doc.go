// Package passage finds where exactly two texts share text, and how much of
// a text that covers. Similarity counting (package invindex) says how much
// two documents share; Align says where: the passages, as byte ranges in
// both texts. Coverage turns passages into the figure a report shows first
// ("34 % of the document matches"), and Exclusions leave out of it the
// parts whose copying is legitimate: quotations, block quotes and the
// bibliography.
//
// The package is pure: strings and slices in, slices and numbers out, no
// files, no database, no clock. Its texts come from the caller: the stored
// texts of the archive (the ones the last committed run chunked, so that
// passages agree with what the similarities counted) or the text extracted
// from a file being checked. Its results go to package report, which
// gathers a document's passages from all its sources into a report for
// the web pages, the JSON API and plagd check and similar --passages, and
// to the PAN evaluation (internal/pan), which scores Align against
// annotated corpora.
//
// # Invariants
//
//   - Offsets are byte offsets into the text they refer to (Doc.Text; in a
//     Passage, A offsets into the first text given to Align and B offsets
//     into the second), as half-open ranges [Start, End) on rune
//     boundaries. A passage starts at its first matching word's first byte
//     and ends at its last matching word's last byte. RuneOffsets converts
//     byte offsets to characters for readers that count characters (PAN's
//     XML, most user interfaces).
//   - Align is deterministic: the same texts and options give the same
//     passages in the same order (by AStart, then BStart), whatever the
//     goroutine; a Doc may be aligned with many others concurrently.
//   - Exclusions only ever remove. An excluded range takes its characters
//     out of coverage, from the covered part and from the whole alike; it
//     never adds a match or moves a passage, and turning an exclusion on
//     never adds a character to the covered text (the share may still
//     rise, as the whole shrinks too). Every rule
//     errs on the side of excluding too little: an exclusion hides
//     matching text from the teacher, a missed one only shows a quotation
//     as a match.
//   - Coverage counts characters (runes), each once however many ranges
//     cover it; it lies in [0, 1] and is 0 when nothing is left to cover.
//
// # Alignment
//
// Align works on the same windows the index is built from: every run of N
// words (N = invindex.Params.WindowWords), keyed by chunk ID and
// fingerprint (invindex.Tokenizer.WindowKeys), so that two windows match
// exactly when they would share a chunk in the index. It proceeds in the
// three steps into which M. Potthast, M. Hagen, T. Gollub, M. Tippmann,
// J. Kiesel, P. Rosso, E. Stamatatos and B. Stein, "Overview of the 5th
// International Competition on Plagiarism Detection" (PAN at CLEF 2013),
// divide the text-alignment systems: seeding, extension and filtering;
// the filtering here is a verification of every passage, because a
// highlighted passage is an accusation that must be defensible.
//
//  1. Seeds. Every window of b whose key occurs in a gives one match
//     (i, j): window i of a equals window j of b. a's windows are hashed
//     once per Doc (so aligning one document with many sources indexes it
//     once); keys that Options.Suppress rejects, and keys repeated more
//     than maxKeyRepeat times in a (tables of numbers, rules of dashes),
//     give no seeds.
//     With Options.SentenceDice, matching sentence pairs seed too
//     (sentence.go): two sentences whose content terms (Doc.SetTerms: stems
//     without stop words, from the caller) overlap enough, in a run of
//     such pairs along one diagonal, give a seed per shared term. A
//     reworded copy keeps few identical word pairs but many of its
//     sentences' terms.
//  2. Support. A seed counts only when another seed at least two words
//     further on and at most SupportWords words away in a lies on nearly
//     its diagonal (offsets j-i at most SupportDrift words apart). Copied
//     text, verbatim or reworded, leaves its matches along one diagonal;
//     the chance matches of two texts on one subject (a term, a name, a
//     stock pair of words) fall on unrelated diagonals and are dropped.
//     This is what keeps passages from chaining chance matches between
//     texts on related topics.
//  3. Extension. The supported seeds are clustered by proximity in both
//     texts at once: sorted by their position in a, they are cut wherever
//     more than MaxGapWords words separate consecutive windows; each part
//     is then sorted by its position in b and cut the same way; and so
//     on, alternating, until no part is cut any more. A cluster is
//     therefore a set of seeds that lie close together in a and in b, in
//     any order: text copied with its sentences or words reordered, or
//     with words replaced, still forms one cluster. Clusters whose word
//     ranges overlap or lie within MergeGapWords of each other in both
//     texts are merged.
//  4. Verification. Each cluster is cut into its maximal-scoring stretches
//     (W. L. Ruzzo and M. Tompa, "A Linear Time Algorithm for Finding All
//     Maximal Scoring Subsequences", ISMB 1999): a word in a matching
//     window scores 1, a word between them costs GapPenalty, along a and
//     then along b, alternating until stable, so that a passage starts
//     and ends with a matching word and bridges a gap only when the
//     evidence on each side outweighs it (the local-alignment idea of
//     D. Glinos, "A Hybrid Architecture for Plagiarism Detection", PAN at
//     CLEF 2014, on seeds rather than on every pair of words). Passages
//     shorter than MinWords words in either text, with fewer than
//     MinShared matching windows, or in which less than MinDensity of the
//     words lie in a matching window (in a or in b), are dropped. Each
//     survivor (an anchor) then takes back the unsupported seeds inside
//     its box (both ranges, widened by a few words), until it grows no
//     more: the lone matches of a reworded copy count again where a
//     supported one vouches for the place. Verified pieces closer than
//     MergeGapWords in both texts join when the union stays dense, or
//     when the gap costs less than each piece weighs.
//  5. Overlaps. A passage whose range in a lies mostly (at least half)
//     inside a stronger passage's is dropped (the same text of a matching
//     a second place in b: one place is the evidence); ties go to the one
//     first in a, then in b, so the result does not depend on the order
//     of the seeds. Then pieces of one summary join: consecutive
//     passages in the same order in both texts, at most MergeGapWords
//     apart in one text, while in the other, at least 1.5 times longer,
//     the words skipped between them are no more than the pieces hold (a
//     writer who summarises keeps a sentence here and there and skips the
//     rest; after M. Sanchez-Perez, G. Sidorov and A. Gelbukh's summary
//     handling at PAN 2014). Word ranges become byte offsets:
//     words[i].Start to words[j+N-1].End, so a passage starts at its
//     first matching word and ends at the last, exact to the byte.
//
// The PAN evaluation (internal/pan, docs/QUALITY.md) measures each step:
// on an English corpus of pairs on one topic, support and verification
// raise precision from 0.60 to 0.95 at the same recall.
//
// # Exclusions
//
// ExcludedRanges finds the parts of a text a report leaves out of its
// coverage: quotations (QuoteRanges: the quotation marks of the common
// European languages, with the context rules that tell a closing mark from
// an apostrophe or an inch sign, bounded by a paragraph break and
// MaxQuoteRunes), block quotes (BlockQuoteRanges: lines marked with ">",
// or runs of indented lines where indentation is not the document's
// layout) and the bibliography (BibliographyRange: from a references
// heading in the second half of the text to the next appendix heading or
// the end). Detection works on the plain text plagd stores (package
// extract's output), so it relies on what survives extraction: quotation
// marks, line structure and headings.
//
// # Ranges and coverage
//
// Range is a byte range of a text; UnionRanges and SubtractRanges combine
// ranges in any order into sorted, disjoint ones, and
//
//	Coverage = runes(union(ranges) − union(excluded)) / runes(text − union(excluded))
//
// Doc.Coverage is the same figure with the text's rune count computed once
// per Doc, for a document measured against each of its sources.
package passage
