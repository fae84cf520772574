// Package related finds, for every document, the k documents most similar to
// it by topic: top-k cosine similarity of TF-IDF vectors, for the whole
// archive (self join) and for a batch of query documents against the archive
// (R-S join).
//
// It implements M. Alewiwi, C. Orencik and E. Savaş, "Efficient top-k
// similarity document search utilizing distributed file systems and cosine
// similarity" (Cluster Computing, 2016; ZOLIP, Z-order prefix filtering):
// near-duplicate detection on the λ-bit Z-order prefix key (NDD, zolip.go),
// common important terms from the l-th iteration projection with threshold σ
// (CIT) and the join phase (JP) that merges both into the top k. The phases
// are map → shuffle by key → reduce steps over partitions (Shuffle, runner.go), run by
// a Runner: a pool of goroutines here, node processes in a cluster later.
// Exact (exact.go, an inverted-index cosine join) is the ground truth, and
// PrefixJoin (prefix.go) is the prefix-filtering baseline in the spirit of
// Vernica et al., the method the paper compares ZOLIP with. ExactSelf
// (exact_self.go) is Exact for a self join computing each pair once (half
// the postings), ExactOf joins some documents of a self join's Set with
// all of it, and ExactScan (exact_scan.go) gives ExactOf's result by
// reading every archive document against an index of those few, with no
// index of the archive: an incremental run's joins. A Dict (dict.go)
// numbers terms for good, so that the archive's vectors stay converted
// from one run to the next and only a run's batch is converted.
//
// Text analysis (analyze.go) turns words into terms: stop words removed per
// language, stemmed where a stemmer exists (Snowball for English and six other
// languages, a light affix stripper for Indonesian). DocFreq and Model
// (tfidf.go) turn terms into unit TF-IDF vectors with IDF frozen per model
// version, like neardup's simhash model.
//
// Like invindex and neardup, the package is pure: slices in, slices out, no
// files, no database, no clock. The daemon owns persistence, decides when to
// rebuild the model, and times the phases itself.
package related
