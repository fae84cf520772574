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
// # The df cap on a delta
//
// A node's committed index is a NodeState: a base slice, the tombstones of
// documents whose base postings are dead, and the delta (documents indexed
// since the base), merged into a new base only once the delta reaches
// 1/compactRatio of it; so a run costs its change, not the archive. A df
// cap (engine.df_cap) leaves out of counting the chunks whose live df, the
// documents posting on the chunk ID in base minus tombstones plus delta,
// exceeds it. Each state therefore carries its over-cap set (NodeState.Over:
// the chunk keys over the cap), derived and never stored: a run hands the
// new state its set, and a state read from files, installed, or counted
// with another cap derives it once from its keys. Counting drops a
// document's over-cap chunks, then counts base and delta uncapped.
//
// A run also reports the flipped documents: unchanged documents posting on
// a key whose counted status changed, whose counts against other unchanged
// documents changed although neither did; the master recounts them, so that
// incremental equals full. The flip rule finds them without a scan of the
// base: a key's df rises only where an added document posts, and falls to
// the cap only on a key that was over it, so only the previous over-cap keys
// and the added documents' keys have their live df computed, and only the
// keys whose status changed are walked for their live, not-added posters.
// A run costs its change plus the over-cap posting lists. The master's disk
// copy (DiskMirror) does the same on the base read from its file.
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
