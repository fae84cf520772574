package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/rs/zerolog"

	"github.com/plagd/plagd/invindex"
)

// Mirrored is a remote node paired with the master's own copy of its slice
// (mirror, a LocalNode of the same range). It lets the master persist the
// index, answer queries and reload a node that lost its slice without ever
// fetching a slice back from a node:
//
//   - Begin, Deliver (with and without index), Build, Commit and Abort go to
//     both, so the mirror follows every run from the same deltas the node
//     receives (the chunk lists the master ships anyway); what travels per
//     run scales with the changed documents, not with the archive;
//   - Chunk and Count go to the remote only: the nodes do the tokenising and
//     the counting, the expensive steps of a run;
//   - Snapshot and Range answer from the mirror;
//   - Query (a "check a file" query, outside runs) goes to the remote when
//     its committed generation is the mirror's, and falls back to the
//     mirror when the remote cannot answer (down, stale, to be reloaded, or
//     a plagd without the Query call);
//   - Install replaces the mirror's state at once and ships it to the remote
//     at the start of the next run (Begin), within the run's context, so that
//     an unreachable node fails a run rather than a load.
//
// Both sides must build the same slice: Build compares the node's postings,
// keys and flipped documents with the mirror's, and a disagreement fails the
// run and has the node reloaded from the mirror at the next Begin. A node
// whose Begin answers ErrStale (restarted, empty, or on an older generation)
// is reloaded from the mirror and its Begin retried once.
//
// The trade-off: with NewMirrored the master holds a copy of every slice in
// memory and does the index merges (Build) itself, besides the nodes; the
// nodes do chunking and counting. With NewDiskMirrored the copy
// is a DiskMirror: base slices as files, only deltas in memory; the master
// then reads a range's file for a reload, a compaction or a query fallback.
//
// Mirrored checks no call order: the Master calls it through a Staged, so
// the copy and the remote see a run's calls in order.
type Mirrored struct {
	mirror *LocalNode  // the copy in memory (nil with a disk copy)
	disk   *DiskMirror // the copy on disk (nil with a copy in memory)
	cp     Node        // mirror or disk
	log    zerolog.Logger

	mu     sync.Mutex
	remote Node
	// reload: the remote's committed state is unknown or wrong (a new
	// pairing, an Install, a divergence, a failed Commit); the next Begin
	// ships it the mirror's state first.
	reload  bool
	reloads int // states shipped to the remote
	// queries answered by the remote and by the mirror (Query)
	remoteQueries, mirrorQueries int
}

// NewMirrored pairs remote with mirror, whose range it takes. The remote is
// reloaded from the mirror at the first Begin, whatever it holds.
func NewMirrored(remote Node, mirror *LocalNode, log zerolog.Logger) *Mirrored {
	return &Mirrored{remote: remote, mirror: mirror, cp: mirror, log: log, reload: true}
}

// NewDiskMirrored pairs remote with a copy kept on disk (see DiskMirror): the master holds no base slice in memory between runs. Every
// use of the copy works as with NewMirrored, reading a range's base file
// where the in-memory copy would read its slice: reloading the remote
// (one range in memory at a time) and answering a query for a remote that
// cannot. The Build check compares the node's postings (computed by the same
// formula as the node, whose dead base postings are an estimate from
// Delta.BaseDocs: the master reproduces that estimate, exact as a check of
// the node's arithmetic on the same delta and base count), keys (base keys
// counted when the base file was written, plus the delta's) and flipped
// documents (none without a cap; with one, from the base file as the node
// finds them).
func NewDiskMirrored(remote Node, disk *DiskMirror, log zerolog.Logger) *Mirrored {
	return &Mirrored{remote: remote, disk: disk, cp: disk, log: log, reload: true}
}

var _ Node = (*Mirrored)(nil)

// Remote is the node the mirror follows.
func (m *Mirrored) Remote() Node {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.remote
}

// SetRemote replaces the remote by another connection to the same node (a
// re-dialled client). The node's state is checked at the next Begin as usual.
func (m *Mirrored) SetRemote(n Node) {
	m.mu.Lock()
	m.remote = n
	m.mu.Unlock()
}

// Mirror is the master's copy in memory (nil with a disk copy).
func (m *Mirrored) Mirror() *LocalNode { return m.mirror }

// Disk is the master's copy on disk (nil with a copy in memory).
func (m *Mirrored) Disk() *DiskMirror { return m.disk }

// ResidentPostings is the number of postings the master's copy holds in
// memory: base and delta for a copy in memory, the delta (and the run in
// progress) for a copy on disk.
func (m *Mirrored) ResidentPostings() int {
	if m.disk != nil {
		return m.disk.ResidentPostings()
	}
	st, _ := m.mirror.Snapshot()
	return st.Base.Postings() + st.Delta.Postings()
}

// withCopy calls f with the copy's committed state: the in-memory one, or
// the disk copy's read from its base file (one range in memory at a time).
func (m *Mirrored) withCopy(f func(st *NodeState, gen int64) error) error {
	if m.disk != nil {
		return m.disk.WithState(f)
	}
	st, gen := m.mirror.Snapshot()
	return f(st, gen)
}

// generation is the copy's committed generation.
func (m *Mirrored) generation() int64 {
	if m.disk != nil {
		return m.disk.Generation()
	}
	_, gen := m.mirror.Snapshot()
	return gen
}

// Reloads is the number of states shipped to the remote so far.
func (m *Mirrored) Reloads() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.reloads
}

// name names the remote in errors: its address when it has one.
func (m *Mirrored) name() string {
	if a, ok := m.Remote().(interface{ Addr() string }); ok {
		return a.Addr()
	}
	lo, hi := m.cp.Range()
	return fmt.Sprintf("[%d,%d)", lo, hi)
}

func (m *Mirrored) markReload() {
	m.mu.Lock()
	m.reload = true
	m.mu.Unlock()
}

// install ships the mirror's committed state to the remote. For a full run
// the old state is useless: an empty state of the range is enough.
func (m *Mirrored) install(ctx context.Context, full bool) error {
	var postings int
	var gen int64
	send := func(st *NodeState, g int64) error {
		gen = g
		r := m.Remote()
		postings = st.Postings()
		if ic, ok := r.(interface {
			InstallContext(context.Context, *NodeState, int64) error
		}); ok {
			return ic.InstallContext(ctx, st, gen)
		}
		return r.Install(st, gen)
	}
	var err error
	if full {
		lo, hi := m.cp.Range()
		err = send(EmptyState(lo, hi), 0)
	} else {
		err = m.withCopy(send)
	}
	if err != nil {
		return fmt.Errorf("reload node %s from the master's copy: %w", m.name(), err)
	}
	m.mu.Lock()
	m.reload = false
	m.reloads++
	m.mu.Unlock()
	m.log.Info().Str("node", m.name()).Int64("generation", gen).Int("postings", postings).
		Msg("node reloaded from the master's copy")
	return nil
}

// Range implements Node: the mirror's range.
func (m *Mirrored) Range() (uint64, uint64) { return m.cp.Range() }

// Begin implements Node.
func (m *Mirrored) Begin(ctx context.Context, spec RunSpec, removed []invindex.DocID) error {
	if err := m.cp.Begin(ctx, spec, removed); err != nil {
		return fmt.Errorf("master's copy of node %s: %w", m.name(), err)
	}
	m.mu.Lock()
	reload := m.reload
	m.mu.Unlock()
	if reload {
		if err := m.install(ctx, spec.Full); err != nil {
			return err
		}
	}
	err := m.Remote().Begin(ctx, spec, removed)
	if errors.Is(err, ErrStale) && !reload {
		m.log.Warn().Str("node", m.name()).Err(err).Msg("node is stale; reloading it from the master's copy")
		if err := m.install(ctx, spec.Full); err != nil {
			return err
		}
		err = m.Remote().Begin(ctx, spec, removed)
	}
	return err
}

// Chunk implements Node: on the remote only.
func (m *Mirrored) Chunk(ctx context.Context, batch []Text) ([]Chunked, error) {
	return m.Remote().Chunk(ctx, batch)
}

// Deliver implements Node: to both.
func (m *Mirrored) Deliver(ctx context.Context, docs []invindex.DocChunks, index bool) error {
	if err := m.cp.Deliver(ctx, docs, index); err != nil {
		return fmt.Errorf("master's copy of node %s: %w", m.name(), err)
	}
	return m.Remote().Deliver(ctx, docs, index)
}

// Build implements Node: both build, concurrently, and must agree.
func (m *Mirrored) Build(ctx context.Context) (BuildStats, error) {
	var ms BuildStats
	var merr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		ms, merr = m.cp.Build(ctx)
	}()
	rs, rerr := m.Remote().Build(ctx)
	<-done
	if rerr != nil {
		return rs, rerr
	}
	if merr != nil {
		return ms, fmt.Errorf("master's copy of node %s: %w", m.name(), merr)
	}
	if ms.Postings != rs.Postings || ms.Keys != rs.Keys || !slices.Equal(ms.Flipped, rs.Flipped) {
		m.markReload()
		return rs, fmt.Errorf("node %s diverged from the master's copy; it will be reloaded "+
			"(node: %d postings, %d keys, %d flipped documents; master's copy: %d, %d, %d)",
			m.name(), rs.Postings, rs.Keys, len(rs.Flipped), ms.Postings, ms.Keys, len(ms.Flipped))
	}
	return ms, nil
}

// Count implements Node: on the remote only.
func (m *Mirrored) Count(ctx context.Context, docs []invindex.DocID) ([][]invindex.Pair, error) {
	return m.Remote().Count(ctx, docs)
}

// Commit implements Node. The master calls it once the run is committed in
// PostgreSQL, so the mirror always commits; a remote that fails to is
// reloaded at the next Begin, and the error is only logged.
func (m *Mirrored) Commit(ctx context.Context, gen int64) error {
	if err := m.cp.Commit(ctx, gen); err != nil {
		return fmt.Errorf("master's copy of node %s: %w", m.name(), err)
	}
	if err := m.Remote().Commit(ctx, gen); err != nil {
		m.markReload()
		m.log.Warn().Str("node", m.name()).Err(err).Msg("node did not commit; it will be reloaded at the next run")
	}
	return nil
}

// Abort implements Node: on both.
func (m *Mirrored) Abort(ctx context.Context) error {
	_ = m.cp.Abort(ctx)
	return m.Remote().Abort(ctx)
}

// Snapshot implements Node: the mirror's committed state.
// With a disk copy it reads the base file (see DiskMirror.Snapshot).
func (m *Mirrored) Snapshot() (*NodeState, int64) { return m.cp.Snapshot() }

// Install implements Node: the mirror takes st now, the remote at the next Begin.
func (m *Mirrored) Install(st *NodeState, gen int64) error {
	if err := m.cp.Install(st, gen); err != nil {
		return err
	}
	m.markReload()
	return nil
}

// Query implements Querier: the remote counts, on the mirror's committed
// generation; the mirror answers when the remote is to be reloaded, has
// another generation, fails or does not implement Query. Either way the
// result is the same: the remote holds the mirror's state of that
// generation (Build checked it, Commit made it current).
func (m *Mirrored) Query(ctx context.Context, q Query) ([]invindex.Pair, error) {
	gen := m.generation()
	if q.Gen != AnyGen && gen != q.Gen {
		return nil, fmt.Errorf("%w: master's copy of node %s has generation %d, the query expects %d", ErrStale, m.name(), gen, q.Gen)
	}
	if len(q.Chunks) != len(q.Checks) {
		return nil, fmt.Errorf("query: %d chunks but %d fingerprints", len(q.Chunks), len(q.Checks))
	}
	m.mu.Lock()
	reload, remote := m.reload, m.remote
	m.mu.Unlock()
	if r, ok := remote.(Querier); ok && !reload {
		rq := q
		rq.Gen = gen
		pairs, err := r.Query(ctx, rq)
		if err == nil {
			m.mu.Lock()
			m.remoteQueries++
			m.mu.Unlock()
			return pairs, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		m.log.Warn().Str("node", m.name()).Err(err).Msg("node did not answer a query; the master's copy answers it")
	}
	m.mu.Lock()
	m.mirrorQueries++
	m.mu.Unlock()
	// A disk copy reads the range's base file for this (one range in memory
	// at a time): slow, but the answer stays exact while the node is down.
	var out []invindex.Pair
	err := m.withCopy(func(st *NodeState, g int64) error {
		if g != gen {
			return fmt.Errorf("%w: master's copy of node %s moved to generation %d during the query", ErrStale, m.name(), g)
		}
		out = st.CountQuery(q)
		return nil
	})
	return out, err
}

// Queries is the number of queries answered so far by the remote and by the
// master's copy.
func (m *Mirrored) Queries() (remote, mirror int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.remoteQueries, m.mirrorQueries
}

var _ Querier = (*Mirrored)(nil)
