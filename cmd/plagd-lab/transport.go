package main

import (
	"github.com/plagd/plagd/cluster/remote"
	"github.com/plagd/plagd/engine"
)

// The engine that bench runs reaches the `plagd node` processes of
// cluster.nodes over gRPC, as plagd's does: a bench of a cluster is
// `PLAGD_CLUSTER_NODES=host:port,... plagd-lab bench ...` (docs/SCALING.md).
func init() { engine.SetTransport(remote.ForCluster) }
