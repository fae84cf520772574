// Package remote carries cluster's interfaces over gRPC, so that a node
// runs in another process (`plagd node`):
//
//   - Server exposes one cluster.Node (normally a *cluster.LocalNode, behind
//     a cluster.Staged that refuses run calls out of order), a
//     cluster.RoutingShare for the routed feature index, and related joins
//     (cluster.RunRelated on the node's cores);
//   - Client is the master's side of one node process: a cluster.Conn, that
//     is a cluster.Node, a cluster.Querier, a cluster.RelatedJoiner and
//     cluster.RoutingPartitions, each call an RPC (Begin, Chunk, Deliver,
//     Build, Count, Commit, Abort, Snapshot, Install; Query; Related;
//     RoutingSync, RoutingQuery), with the node's errors mapped back to
//     cluster's sentinels (ErrStale, ErrNoRun, ErrRoutingStale);
//   - Connector is a cluster.Connector: it reads the cluster's credentials
//     once, dials Clients and counts their traffic per address. The engine
//     knows only cluster's interfaces; the command wiring (cmd/plagd)
//     registers this connector with engine.SetTransport, and nothing else
//     outside this package and the commands imports it (cluster's
//     TestImports_RemoteOnlyFromCommands).
//
// The wire protocol is cluster/nodepb/node.proto; arrays travel as packed
// little-endian bytes in messages of at most about 1 MiB (codec.go); a
// node's committed state travels in the index file format
// (invindex.WriteSlice, invindex.WriteDelta). The run calls are fenced by
// the run of the last Begin (fence.go): a late call of an abandoned run is
// refused, which the stage check cannot tell from a call of the current run.
// Security is mutual TLS and/or a shared secret (security.go).
package remote
