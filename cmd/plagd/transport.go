package main

import (
	"github.com/plagd/plagd/cluster/remote"
	"github.com/plagd/plagd/engine"
)

// The engines this command makes (plagd serve, run, check, ...) reach the
// `plagd node` processes of cluster.nodes over gRPC.
func init() { engine.SetTransport(remote.ForCluster) }
