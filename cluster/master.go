package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"github.com/plagd/plagd/invindex"
)

// ErrNeedFull means an incremental run cannot be computed exactly from the
// state at hand (for example an unchanged document's stored text is missing);
// the caller runs in full instead.
var ErrNeedFull = errors.New("incremental run impossible, a full run is needed")

// Master coordinates runs over a fixed set of nodes. It owns the committed
// document table (internal ID ↔ documents.id and chunk counts) and the
// generation number tying the nodes' slices to the committed run.
type Master struct {
	nodes []Node // the nodes behind Staged wrappers: every run call goes through these
	raw   []Node // the nodes as given (Nodes)
	log   zerolog.Logger

	mu   sync.Mutex
	docs *invindex.DocTable // committed
	gen  int64

	pending *invindex.DocTable // set by Run, made current by Commit
}

// NewMaster returns a master over nodes, whose ranges must tile the chunk-ID
// space in order. Its index is empty (generation 0) until Install or a full run.
// The master calls the nodes through Staged wrappers, so that every node
// sees a run's calls in order.
func NewMaster(nodes []Node, log zerolog.Logger) *Master {
	staged := make([]Node, len(nodes))
	for i, n := range nodes {
		staged[i] = Stage(n)
	}
	return &Master{nodes: staged, raw: nodes, log: log, docs: invindex.NewDocTable()}
}

// NewLocalNodes returns k in-process nodes splitting the space of p in equal ranges.
func NewLocalNodes(p invindex.Params, k int) []Node {
	bounds := invindex.SplitRange(p.SpaceSize(), k)
	nodes := make([]Node, k)
	for i := range nodes {
		nodes[i] = NewLocalNode(bounds[i], bounds[i+1])
	}
	return nodes
}

// Generation is the committed index generation (0: no index).
func (m *Master) Generation() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.gen
}

// Docs returns the committed document table (read-only).
func (m *Master) Docs() *invindex.DocTable {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.docs
}

// Nodes returns the master's nodes as given to NewMaster, in range order.
// Their run calls are the master's: use them for queries, snapshots and
// their own methods.
func (m *Master) Nodes() []Node { return m.raw }

// Install replaces the committed state with a loaded index. The states may
// have any range boundaries covering the space: when they differ from the
// nodes' ranges (the node count changed), they are compacted and re-split.
func (m *Master) Install(docs *invindex.DocTable, states []*NodeState, gen int64) error {
	bounds := m.bounds()
	if !sameBounds(states, bounds) {
		bases := make([]*invindex.Slice, len(states))
		for i, st := range states {
			bases[i] = st.compact(gen).Base
		}
		parts := invindex.Reslice(bases, bounds)
		states = make([]*NodeState, len(parts))
		for i, p := range parts {
			states[i], _ = NewNodeState(p, gen, invindex.Delta{Base: gen, BaseDocs: docs.Len()})
		}
	}
	for i, n := range m.nodes {
		if err := n.Install(states[i], gen); err != nil {
			return err
		}
	}
	m.mu.Lock()
	m.docs, m.gen = docs, gen
	m.mu.Unlock()
	return nil
}

func sameBounds(states []*NodeState, bounds []uint64) bool {
	if len(states) != len(bounds)-1 {
		return false
	}
	for i, st := range states {
		if st.Base.Lo() != bounds[i] || st.Base.Hi() != bounds[i+1] {
			return false
		}
	}
	return true
}

// Commit makes the run's results current on the master and every node. Call it
// only after the run's rows are committed in PostgreSQL.
func (m *Master) Commit(ctx context.Context, gen int64) error {
	for _, n := range m.nodes {
		if err := n.Commit(ctx, gen); err != nil {
			return fmt.Errorf("commit node: %w", err)
		}
	}
	m.mu.Lock()
	m.docs, m.gen, m.pending = m.pending, gen, nil
	m.mu.Unlock()
	return nil
}

// Abort discards a run; the committed state stays.
func (m *Master) Abort(ctx context.Context) {
	for _, n := range m.nodes {
		if err := n.Abort(ctx); err != nil {
			m.log.Warn().Err(err).Msg("abort node")
		}
	}
	m.mu.Lock()
	m.pending = nil
	m.mu.Unlock()
}

// each runs f for every node concurrently and returns the first error.
func (m *Master) each(ctx context.Context, f func(ctx context.Context, i int, n Node) error) error {
	g, ctx := errgroup.WithContext(ctx)
	for i, n := range m.nodes {
		g.Go(func() error { return f(ctx, i, n) })
	}
	return g.Wait()
}

// bounds returns the nodes' range boundaries (k+1 values).
func (m *Master) bounds() []uint64 {
	b := make([]uint64, len(m.nodes)+1)
	for i, n := range m.nodes {
		b[i], b[i+1] = n.Range()
	}
	return b
}

// DiskStater is a node whose master's copy is on disk (a DiskMirror, or a
// Mirrored over one): its committed state without the base slice.
type DiskStater interface {
	DiskState() (*DiskState, int64, bool)
}

// DiskState implements DiskStater.
func (d *DiskMirror) DiskState() (*DiskState, int64, bool) {
	ds, gen := d.State()
	return ds, gen, true
}

// DiskState implements DiskStater: ok is false for a copy in memory.
func (m *Mirrored) DiskState() (*DiskState, int64, bool) {
	if m.disk == nil {
		return nil, 0, false
	}
	return m.disk.DiskState()
}

// InstallDisk is Install for nodes whose master's copy is on disk
// (DiskMirror, or Mirrored over one): states hold the bases as files of
// files. When their bounds differ from the nodes' ranges, they are re-split
// from the files (ResliceDisk: one range in memory at a time).
func (m *Master) InstallDisk(docs *invindex.DocTable, files BaseFiles, states []*DiskState, gen int64) error {
	bounds := m.bounds()
	same := len(states) == len(bounds)-1
	for i := 0; same && i < len(states); i++ {
		same = states[i].Lo == bounds[i] && states[i].Hi == bounds[i+1]
	}
	if !same {
		var err error
		if states, err = ResliceDisk(files, states, bounds, gen, docs.Len()); err != nil {
			return fmt.Errorf("re-split from the base files: %w", err)
		}
	}
	for i, n := range m.raw {
		var err error
		switch d := n.(type) {
		case *DiskMirror:
			err = d.InstallDisk(states[i], gen)
		case *Mirrored:
			if d.disk == nil {
				return fmt.Errorf("install: node %d has no disk copy", i)
			}
			if err = d.disk.InstallDisk(states[i], gen); err == nil {
				d.markReload()
			}
		default:
			return fmt.Errorf("install: node %d has no disk copy", i)
		}
		if err != nil {
			return err
		}
		m.nodes[i].(*Staged).discard() // installing discarded the node's run
	}
	m.mu.Lock()
	m.docs, m.gen = docs, gen
	m.mu.Unlock()
	return nil
}
