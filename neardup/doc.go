// Package neardup finds near-duplicate documents by simhash: a 64-bit
// fingerprint per document whose Hamming distance tracks the cosine
// similarity of the documents' TF-IDF vectors, and two ways of finding every
// stored fingerprint within Hamming distance h of a query.
//
// It implements S. Sood and D. Loguinov, "Probabilistic near-duplicate
// detection using simhash" (CIKM 2011): the simhash keeps
// its per-bit sums W_j (simhash.go), from which a model learned on pairs of
// near-duplicates (flipprob.go) predicts how likely each bit is to have
// flipped; VOSH (vosh.go) turns those probabilities into bit-flip masks in
// decreasing probability, and PSM (psm.go) looks the flipped hashes up in a
// single sorted copy of the collection with a header table. BPHS (bphs.go,
// Manku et al.) is the exact block-permuted-tables method PSM is measured
// against. Brute force (Near) is the reference for both.
//
// Like invindex, the package is pure: slices in, slices out, no files, no
// database, no clock. The daemon owns persistence and decides when to build.
package neardup
