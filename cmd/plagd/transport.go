package main

import (
	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/cluster/remote"
	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/engine"
)

// The engines this command makes (plagd serve, run, check, ...) reach the
// `plagd node` processes of cluster.nodes over gRPC: the engine itself
// knows only cluster's interfaces.
func init() { engine.SetTransport(transport) }

// transport is cluster/remote's connector for the cluster section.
func transport(c config.Cluster) cluster.Connector {
	return remote.NewConnector(remote.ConnectorConfig{TLSCert: c.TLSCert, TLSKey: c.TLSKey, TLSCA: c.TLSCA,
		SecretFile: c.SecretFile, Insecure: c.Insecure, CallTimeout: c.CallTimeout})
}
