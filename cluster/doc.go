// Package cluster runs plagd's similarity computation as a master and K nodes,
// the shape of J. Kasprzak, M. Brandejs and J. Brandejsová, "Distributed
// aspects of the system for discovering similar documents" (ITA 2009),
// section 3.
//
// Every node owns one contiguous range of the chunk-ID space and the slice of
// the inverted index for that range. A run goes:
//
//  1. the master assigns internal document IDs (dense, recycled) and tells every
//     node which documents leave the index (deleted, modified, failed);
//  2. it dispatches the changed documents' texts in batches to free nodes, which
//     chunk them; each chunk list is cut by range and delivered to the owning
//     node (the shuffle);
//  3. every node builds its new slice by merging the old one, minus the removed
//     documents, with the delivered postings (bucket sort);
//  4. for each document whose similarity list must be recomputed, every node
//     counts shared chunks in its range; the master sums the partial counts,
//     applies min_shared, and keeps the top-k;
//  5. the master returns the rows to write; the daemon commits them in one
//     PostgreSQL transaction, and only then are the nodes' new slices made current.
//
// The master speaks to nodes only through the Node interface. LocalNode runs in
// the same process; a network transport implements the same interface, so that
// the algorithm never changes with the topology and results are identical for
// every K.
package cluster
