// Package pangen generates English evaluation corpora in the PAN
// text-alignment layout (PAN 2013-2015: susp/, src/, one folder per
// section with a "pairs" file and one truth XML per pair), from real
// English prose the caller supplies, grouped into topics.
//
// Why topics. A text-alignment corpus whose source and suspicious
// documents are about unrelated things only tests whether an aligner finds
// copies; it cannot show the false passages that matter in practice, where
// a student writes about the same subject as the source: the same names,
// the same technical terms and stock phrases, chance matches of two and
// three words all over both texts. Here every pair's two documents are drawn
// from the same topic (one book chapter or manual section), so their own,
// uncopied sentences share the topic's vocabulary as real texts do. Within
// a pair no sentence is used twice, so the only text the two documents share
// on purpose is the annotated cases; what else they share is chance.
//
// Cases follow the PAN 2013 text-alignment corpus (M. Potthast, M. Hagen,
// T. Gollub, M. Tippmann, J. Kiesel, P. Rosso, E. Stamatatos, B. Stein,
// "Overview of the 5th International Competition on Plagiarism Detection",
// CLEF 2013): a run of consecutive source sentences, 50 to 1,500 words,
// inserted into the suspicious document between its own sentences, either
// verbatim ("none"), with random word edits ("random": deletions,
// insertions and replacements by words of the topic, swaps of neighbours),
// with words replaced by synonyms from a small embedded thesaurus
// ("synonym"), or with its sentences in another order ("reorder"). Pairs
// without any case ("no-plagiarism") measure false alarms alone.
//
// Generation is deterministic: the same topics and Options give the same
// corpus, byte for byte. The package is pure: texts in, documents and
// annotations out; writing the files is the caller's (plagd-lab pan-gen).
package pangen
