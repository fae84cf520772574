package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/invindex"
)

// remoteNodes are the `plagd node` processes of cluster.nodes, seen from the
// master. Before every run the engine pings them all; the run uses those that
// answer, in configuration order, each owning an equal part of the chunk-ID
// space. Every remote node is paired with the master's copy of its slice
// (cluster.Mirrored; with df_cap 0 the copy is on disk, cluster.DiskMirror:
// base files in data_dir/slices, deltas in memory), from which the master persists the index, answers
// queries and reloads nodes; when the set of usable nodes changes, a new
// master is built over them and the committed index re-split and installed
// from that copy. A node that fails during a run fails the run; the next run
// goes on with the nodes that answer.
type remoteNodes struct {
	cfg  config.Cluster
	log  zerolog.Logger
	conn cluster.Connector // nil: no transport registered (SetTransport)

	mu      sync.Mutex
	clients map[string]cluster.Conn
	up      []string // the nodes of the engine's current master; nil before the first run
}

// Transport makes the cluster.Connector through which an engine reaches
// the `plagd node` processes of cfg.Nodes. The engine has no transport of
// its own: the command wiring registers one (cmd/plagd registers
// cluster/remote's gRPC connector) with SetTransport.
type Transport func(cfg config.Cluster) cluster.Connector

var transport struct {
	mu sync.Mutex
	t  Transport
}

// SetTransport registers the transport of the engines made afterwards with
// cluster.nodes.
func SetTransport(t Transport) {
	transport.mu.Lock()
	transport.t = t
	transport.mu.Unlock()
}

// errNoTransport: cluster.nodes is set but no transport was registered.
var errNoTransport = errors.New("cluster.nodes is set but this program registered no cluster transport (engine.SetTransport; the plagd command registers cluster/remote's)")

// pingTimeout bounds each step of the check of a node before a run: a ping
// on its existing connection, then, if that fails, a fresh dial. A node
// whose old connection died thus costs up to twice this before a run (the
// checks of all nodes run in parallel); one that is simply down, once.
const pingTimeout = 5 * time.Second

func newRemoteNodes(cfg config.Cluster, log zerolog.Logger) *remoteNodes {
	r := &remoteNodes{cfg: cfg, log: log, clients: map[string]cluster.Conn{}}
	transport.mu.Lock()
	t := transport.t
	transport.mu.Unlock()
	if t != nil {
		r.conn = t(cfg)
	}
	return r
}

// traffic is the total of bytes sent to and received from all nodes so far.
func (r *remoteNodes) traffic() (sent, received int64) {
	if r.conn == nil {
		return 0, 0
	}
	return r.conn.Traffic()
}

func (r *remoteNodes) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for a, c := range r.clients {
		c.Close()
		delete(r.clients, a)
	}
}

// ping checks every configured node concurrently, dialling those without a
// connection, and returns the addresses that answered, in configuration
// order, with their clients; the others' errors name them. A node that does
// not answer loses its connection, so that a node restarted at the same
// address is dialled afresh rather than waited for through gRPC's backoff.
func (r *remoteNodes) ping(ctx context.Context) ([]string, map[string]cluster.Conn, []error) {
	if r.conn == nil {
		return nil, nil, []error{errNoTransport}
	}
	if err := r.conn.Prepare(); err != nil {
		return nil, nil, []error{err}
	}
	type result struct {
		c   cluster.Conn
		err error
	}
	res := make([]result, len(r.cfg.Nodes))
	var wg sync.WaitGroup
	for i, addr := range r.cfg.Nodes {
		r.mu.Lock()
		c := r.clients[addr]
		r.mu.Unlock()
		wg.Go(func() {
			if c != nil {
				if err := c.Ping(ctx); err == nil {
					res[i] = result{c: c}
					return
				}
				c.Close()
			}
			c, err := r.conn.Dial(ctx, addr, pingTimeout)
			res[i] = result{c: c, err: err}
		})
	}
	wg.Wait()
	var up []string
	clients := map[string]cluster.Conn{}
	var errs []error
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, addr := range r.cfg.Nodes {
		if res[i].err != nil {
			delete(r.clients, addr)
			errs = append(errs, res[i].err)
			continue
		}
		r.clients[addr] = res[i].c
		clients[addr] = res[i].c
		up = append(up, addr)
	}
	return up, clients, errs
}

// useNodes makes the engine's master run on the nodes that answer now. When
// they are not the nodes of the current master, it builds a new master over
// them and installs the committed index from the master's copy (re-split to
// the new ranges); the nodes receive their slices at the run's Begin.
func (e *Engine) useNodes(ctx context.Context, log zerolog.Logger) error {
	r := e.remote
	up, clients, errs := r.ping(ctx)
	if len(up) == 0 {
		msgs := make([]string, len(errs))
		for i, err := range errs {
			msgs[i] = err.Error()
		}
		return fmt.Errorf("no cluster node answered (%d configured): %s", len(r.cfg.Nodes), strings.Join(msgs, "; "))
	}
	for _, err := range errs {
		log.Warn().Err(err).Msg("cluster node unusable; the run goes on without it")
	}
	old := e.cur()
	if slices.Equal(up, r.up) {
		// Same nodes: keep the master and its copy; a re-dialled node gets its
		// new connection (its slice is checked at Begin).
		for i, n := range old.Nodes() {
			n.(*cluster.Mirrored).SetRemote(clients[up[i]])
		}
		return nil
	}
	bounds := invindex.SplitRange(e.cfg.Params().SpaceSize(), len(up))
	nodes := make([]cluster.Node, len(up))
	for i, addr := range up {
		if e.files != nil {
			nodes[i] = cluster.NewDiskMirrored(clients[addr], cluster.NewDiskMirror(e.files, bounds[i], bounds[i+1]), r.log)
		} else {
			nodes[i] = cluster.NewMirrored(clients[addr], cluster.NewLocalNode(bounds[i], bounds[i+1]), r.log)
		}
	}
	m := cluster.NewMaster(nodes, e.masterLog())
	if gen := old.Generation(); gen > 0 && e.files != nil {
		// From the disk copy: the states' bases are files; a re-split reads
		// them one range at a time and writes the new ranges' base files
		// (generation gen). A background save must not prune meanwhile.
		states := make([]*cluster.DiskState, len(old.Nodes()))
		for i, n := range old.Nodes() {
			var g int64
			var ok bool
			if d, isDisk := n.(cluster.DiskStater); isDisk {
				states[i], g, ok = d.DiskState()
			}
			if !ok || g != gen {
				return fmt.Errorf("the master's copy of node %d holds generation %d, not %d", i, g, gen)
			}
		}
		e.saveMu.Lock()
		err := m.InstallDisk(old.Docs(), e.files, states, gen)
		e.saveMu.Unlock()
		if err != nil {
			return fmt.Errorf("re-split the index over %d nodes: %w", len(up), err)
		}
	} else if gen > 0 {
		states := make([]*cluster.NodeState, len(old.Nodes()))
		for i, n := range old.Nodes() {
			var g int64
			if states[i], g = n.Snapshot(); g != gen {
				return fmt.Errorf("the master's copy of node %d holds generation %d, not %d", i, g, gen)
			}
		}
		if err := m.Install(old.Docs(), states, gen); err != nil {
			return fmt.Errorf("re-split the index over %d nodes: %w", len(up), err)
		}
	}
	log.Info().Strs("nodes", up).Strs("before", r.up).Int64("generation", old.Generation()).
		Msg("cluster nodes changed; their slices are installed from the master's copy")
	e.master.Store(m)
	r.up = up
	return nil
}
