package remote

import (
	"context"
	"sync"
	"time"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/config"
)

// ConnectorConfig is what a Connector needs: the cluster's credential files
// (read by LoadSecurity at the first Prepare) and the call timeout.
type ConnectorConfig struct {
	TLSCert, TLSKey, TLSCA, SecretFile string
	Insecure                           bool
	// CallTimeout bounds every call (Options.Timeout).
	CallTimeout time.Duration
}

// Connector is a cluster.Connector over gRPC: it dials `plagd node`
// processes as Clients and counts their traffic per address, across
// re-dials. It is safe for concurrent use.
type Connector struct {
	cfg ConnectorConfig

	mu      sync.Mutex
	sec     *Security // read at the first Prepare
	traffic map[string]*Traffic
}

// ForCluster is the connector of a configuration's cluster section: the
// transport a command registers with engine.SetTransport, so that its
// engines reach the `plagd node` processes of cluster.nodes over gRPC
// (the engine itself knows only cluster's interfaces).
func ForCluster(c config.Cluster) cluster.Connector {
	return NewConnector(ConnectorConfig{TLSCert: c.TLSCert, TLSKey: c.TLSKey, TLSCA: c.TLSCA,
		SecretFile: c.SecretFile, Insecure: c.Insecure, CallTimeout: c.CallTimeout})
}

// NewConnector returns a connector; nothing is read or dialled yet.
func NewConnector(cfg ConnectorConfig) *Connector {
	return &Connector{cfg: cfg, traffic: map[string]*Traffic{}}
}

var _ cluster.Connector = (*Connector)(nil)

// Prepare implements cluster.Connector: it reads the credentials once.
func (c *Connector) Prepare() error {
	_, err := c.security()
	return err
}

func (c *Connector) security() (Security, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sec == nil {
		sec, err := LoadSecurity(c.cfg.TLSCert, c.cfg.TLSKey, c.cfg.TLSCA, c.cfg.SecretFile, c.cfg.Insecure)
		if err != nil {
			return sec, err
		}
		c.sec = &sec
	}
	return *c.sec, nil
}

// Dial implements cluster.Connector: a Client whose first call (and every
// Ping) is bounded by pingTimeout, every other call by the call timeout.
func (c *Connector) Dial(ctx context.Context, addr string, pingTimeout time.Duration) (cluster.Conn, error) {
	sec, err := c.security()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	t := c.traffic[addr]
	if t == nil {
		t = new(Traffic)
		c.traffic[addr] = t
	}
	c.mu.Unlock()
	cl, err := Dial(ctx, addr, sec, Options{Timeout: c.cfg.CallTimeout, DialTimeout: pingTimeout, Traffic: t})
	if err != nil {
		return nil, err
	}
	return cl, nil
}

// Traffic implements cluster.Connector.
func (c *Connector) Traffic() (sent, received int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.traffic {
		sent += t.Sent()
		received += t.Received()
	}
	return sent, received
}

var _ cluster.Conn = (*Client)(nil)
