// Package routing is a content-routed feature index for live checks: a
// query document consults only the few index partitions its content points
// to, instead of every partition of the archive.
//
// It implements D. Bhagwat, K. Eshghi and P. Mehra, "Content-based document
// routing and index partitioning for scalable similarity-based searches in a
// large corpus" (KDD 2007): routing by bottom-m features. A
// document's features are the characteristic fingerprints of its TTTD
// content-defined chunks (tttd.go, features.go): per chunk, the minimum hash
// over its overlapping 20-byte q-grams. Because boundaries depend on local
// content only, an edit changes the chunks around it and leaves the rest, so
// similar documents share most features. A document goes to the partitions
// {h mod K : h in the m smallest features} (route.go); by Broder's theorem
// two documents with Jaccard similarity s share their minimum feature with
// probability s, so they meet in at least one partition with probability of
// at least 1-(1-s)^m. Each partition is an inverted map feature -> documents
// (index.go); Routed (routed.go) ingests into and queries only the routed
// partitions and merges the answers ranked by the Jaccard similarity of the
// feature sets.
//
// Like neardup and invindex, the package is pure: bytes and slices in,
// slices out, no files, no network, no clock. Placing partitions on cluster
// nodes and keeping them in step with incremental runs is the caller's job.
package routing
