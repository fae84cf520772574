package engine

import (
	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/cluster/remote"
	"github.com/plagd/plagd/config"
)

// The tests' engines reach their node servers as plagd's do (cmd/plagd
// registers the same transport).
func init() {
	SetTransport(func(c config.Cluster) cluster.Connector {
		return remote.NewConnector(remote.ConnectorConfig{TLSCert: c.TLSCert, TLSKey: c.TLSKey, TLSCA: c.TLSCA,
			SecretFile: c.SecretFile, Insecure: c.Insecure, CallTimeout: c.CallTimeout})
	})
}
