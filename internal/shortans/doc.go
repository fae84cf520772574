// Package shortans generates a short-answer plagiarism corpus and measures
// how well a similarity score separates copied answers from original ones.
//
// The corpus follows P. Clough and M. Stevenson, "Developing a corpus of
// plagiarised short answers" (Language Resources and Evaluation 45(1),
// 2011): students answered five questions in 200-300 words each, using an
// encyclopaedia article as the source, and were told how: "near copy" (cut
// and paste, Cut here), "light revision" (Light: words replaced by
// synonyms, some reordering and omissions, the source's structure kept),
// "heavy revision" (Heavy: paraphrased, sentences split, merged and
// reordered, other words) or "non-plagiarism" (None: written from other
// material on the same subject). Their 95 answers are 19 near copies, 19
// light and 19 heavy revisions and 38 originals; Defaults has the same
// counts.
//
// Here a question is a topic of real English prose (pangen.Topic: a book
// chapter, a manual section). Its source is a run of 300-700 words of the
// topic's consecutive sentences; the copied answers are built from the
// source's sentences with pangen's edits and thesaurus (Edits says which
// edits each grade gets); the original answers are runs of the same
// topic's other sentences. Originals therefore share the source's names,
// terms and stock phrases, as the original students' answers did, and a
// score that counts shared words or short phrases finds chance matches in
// them: the point of the exercise. DropRepeats (package pangen) should have
// removed sentences that occur twice in the prose, or an original could
// contain a sentence of the source.
//
// Measure takes one score per answer (of the answer against its
// question's source: plagd's similarity, the report's coverage, the TF-IDF
// cosine, plain 5-word containment) and gives the ROC AUC of the copied
// grades (Cut, Light, Heavy) against None (AUC: the Mann-Whitney
// statistic), of Heavy alone against None, and the mean score per grade.
// Scores computes the four scores without a database, from plagd's pure
// packages (invindex, report, related), for tests; plagd-lab shortans
// computes them as the product does, through a run on PostgreSQL.
//
// Generation is deterministic (the same topics and Options give the same
// corpus) and the package is pure: texts in, texts and figures out.
package shortans
