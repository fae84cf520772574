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
// The master speaks to nodes only through cluster's interfaces, so that the
// algorithm never changes with the topology and results are identical for
// every K:
//
//   - Node is a node's role in a run. Its call order (Begin; Chunk and
//     Deliver; Build; Count; Commit or Abort) is checked in one place,
//     Staged, which the Master puts in front of every node and
//     cluster/remote's Server in front of the node it serves; the
//     implementations rely on it. LocalNode runs in this process; Mirrored
//     pairs a remote node with the master's copy of its slice (in memory,
//     or on disk with DiskMirror);
//   - Querier counts a text that is not in the archive against a node's
//     committed slice, and CountingQuerier does so into the caller's counter
//     for a slice in this process; Master.Query asks every node through
//     them;
//   - RelatedJoiner answers a related-documents join job (RunRelated,
//     LocalJoiner in this process);
//   - RoutingPartitions holds partitions of the routed feature index of live
//     checks (RoutingShare in this process);
//   - Conn is the master's connection to a node process (Node, Querier,
//     Worker = RelatedJoiner and RoutingPartitions), and Connector dials
//     them. cluster/remote implements Conn and Connector over gRPC; the
//     engine receives its Connector from the command wiring and imports no
//     transport.
package cluster
