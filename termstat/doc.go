// Package termstat holds the document frequencies behind the TF-IDF weights
// of neardup (the features of a simhash) and related (the terms of a topic
// vector): in how many documents each term occurs, and the inverse document
// frequency that follows.
//
// A term is a 64-bit hash; each package hashes its own words (neardup the
// tokenizer's words, related the stems). A document is given as its distinct
// terms with their counts, sorted by term (Count).
//
// DocFreq is the live count, kept document by document (Add, Remove) or by
// a Delta of a batch. Table is a frozen DocFreq: the terms seen in at least
// two documents as sorted arrays (12 bytes a term instead of a map's ~40),
// with the binary encoding the daemon stores in PostgreSQL
// (neardup_models.df and related_models.df). Stored models are decoded
// years later: never change the encoding without migrating them (a test
// pins its bytes).
//
// Like neardup and related, the package is pure: no files, no database, no
// clock.
package termstat
