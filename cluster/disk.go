package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/plagd/plagd/invindex"
)

// BaseFiles keeps the base slices of a DiskMirror: one file per range and
// base generation, written once and never modified (the index store's
// slices/slice-<lo>-<hi>-g<gen>.idx).
type BaseFiles interface {
	// ReadBase reads the published base of [lo, hi) built in generation gen.
	ReadBase(lo, hi uint64, gen int64) (*invindex.Slice, error)
	// HasBase reports whether that base is published.
	HasBase(lo, hi uint64, gen int64) bool
	// WriteBase writes s as the base of generation gen under a temporary
	// name (publish false; PublishBase makes it visible) or published at once.
	WriteBase(s *invindex.Slice, gen int64, publish bool) error
	// PublishBase renames a base written with publish false to its name.
	PublishBase(lo, hi uint64, gen int64) error
	// DiscardBase removes a base written with publish false.
	DiscardBase(lo, hi uint64, gen int64)
}

// DiskState is a DiskMirror's committed state of one range: its base only as
// the numbers the master needs (the slice is in BaseFiles), and the delta
// since that base, in memory. It is immutable once committed.
type DiskState struct {
	Lo, Hi       uint64
	BaseGen      int64
	BasePostings int // Base.Postings() of the base file
	BaseKeys     int // Base.Keys() of the base file
	Delta        invindex.Delta

	// over is the over-cap set of the state, when a capped run left one
	// or OverSet derived it (a cache: the state is otherwise immutable).
	over atomic.Pointer[overSet]
}

// Postings is the number of live postings as NodeState.Postings computes it
// (dead base postings estimated from Delta.BaseDocs, exactly as on the node).
func (ds *DiskState) Postings() int {
	return ds.BasePostings + ds.Delta.Postings() - ds.deadPostings()
}

func (ds *DiskState) deadPostings() int {
	if ds.Delta.BaseDocs <= 0 {
		return 0
	}
	return min(ds.BasePostings, len(ds.Delta.Tombs)*ds.BasePostings/ds.Delta.BaseDocs)
}

// diskState derives a DiskState from a state in memory.
// DiskStateOf is the disk copy's view of st: its numbers and delta, no slice.
func DiskStateOf(st *NodeState) *DiskState { return diskState(st) }

func diskState(st *NodeState) *DiskState {
	ds := &DiskState{Lo: st.Base.Lo(), Hi: st.Base.Hi(), BaseGen: st.BaseGen,
		BasePostings: st.Base.Postings(), BaseKeys: st.Base.Keys(), Delta: st.Delta}
	ds.over.Store(st.over.Load())
	return ds
}

// rangeMem admits one range's base slice into the master's memory at a time
// (a compaction, a reload, a re-split, a query fallback), whatever the number
// of DiskMirrors: the master's peak is one range, not the archive.
var rangeMem sync.Mutex

// DiskMirror is the master's copy of one range kept on disk: the base slice is a file of BaseFiles, and the master holds in
// memory only the numbers of the base, the delta since it (tombstones and
// the DocChunks delivered with index set) and the run in progress. It
// follows every run as a LocalNode would, without building slices: Commit
// applies NodeState.next's bookkeeping (delta' = delta − removed + added,
// tombs' = tombs ∪ removed) and decides the 1/8 compaction rule from the
// same numbers the node uses; when it fires, Build reads the base file,
// merges (one range in memory at a time, rangeMem) and writes the new base
// under a temporary name, published by Commit, that is after PostgreSQL
// committed the run. Build reports the statistics the node computes
// (postings, with the node's own estimate of dead base postings; keys;
// flipped documents), so Mirrored compares them as with an in-memory copy.
//
// A run with a df cap needs the live df of the previous over-cap keys and
// of the added documents' keys, and the postings on the keys that flipped
// (NodeState.followOver): Build reads the base file for them (one range in
// memory at a time, as a compaction does), advances the state as the node
// does, and keeps only the numbers, the delta and the over-cap set; it
// writes a base only when the delta compacts.
// Like LocalNode it checks no call order: its runs come through a Staged.
type DiskMirror struct {
	files BaseFiles

	mu        sync.Mutex
	lo, hi    uint64
	committed *DiskState
	gen       int64

	run        *RunSpec
	removed    *invindex.DocSet
	removedIDs []invindex.DocID
	added      []invindex.DocChunks
	pending    *DiskState
	staged     bool // pending.BaseGen's base is written under a temporary name
}

// NewDiskMirror returns the disk copy of [lo, hi), empty and of generation 0.
func NewDiskMirror(files BaseFiles, lo, hi uint64) *DiskMirror {
	return &DiskMirror{files: files, lo: lo, hi: hi, committed: &DiskState{Lo: lo, Hi: hi}}
}

var _ Node = (*DiskMirror)(nil)

// errDiskCopy: the disk copy neither chunks nor counts (the remote does).
var errDiskCopy = errors.New("the master's disk copy neither chunks nor counts")

// Range implements Node.
func (d *DiskMirror) Range() (uint64, uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.lo, d.hi
}

// State returns the committed state and generation.
func (d *DiskMirror) State() (*DiskState, int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.committed, d.gen
}

// ResidentPostings is the number of postings the copy holds in memory: the
// committed delta's and the run's added documents'; never the base's.
func (d *DiskMirror) ResidentPostings() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := d.committed.Delta.Postings()
	for _, a := range d.added {
		n += len(a.Chunks)
	}
	if d.pending != nil && d.pending != d.committed {
		n += d.pending.Delta.Postings()
	}
	return n
}

// Begin implements Node.
func (d *DiskMirror) Begin(_ context.Context, spec RunSpec, removed []invindex.DocID) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !spec.Full && d.gen != spec.Base {
		return fmt.Errorf("%w: master's disk copy [%d,%d) has generation %d, run builds on %d", ErrStale, d.lo, d.hi, d.gen, spec.Base)
	}
	d.discardLocked()
	s := spec
	d.run = &s
	d.removed = docSet(removed)
	d.removedIDs = removed
	d.added = nil
	d.pending = nil
	return nil
}

// Chunk implements Node: not on the copy.
func (d *DiskMirror) Chunk(context.Context, []Text) ([]Chunked, error) { return nil, errDiskCopy }

// Count implements Node: not on the copy.
func (d *DiskMirror) Count(context.Context, []invindex.DocID) ([][]invindex.Pair, error) {
	return nil, errDiskCopy
}

// Deliver implements Node: only the indexed lists are kept (the copy does not count).
func (d *DiskMirror) Deliver(_ context.Context, docs []invindex.DocChunks, index bool) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if index {
		d.added = append(d.added, docs...)
	}
	return nil
}

// Build implements Node: the bookkeeping of LocalNode.Build, with a base
// slice in memory only for a full run, a compaction or a df cap.
func (d *DiskMirror) Build(context.Context) (BuildStats, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	run, cur := d.run, d.committed
	if run.Full {
		rangeMem.Lock()
		base := invindex.BuildSlice(d.lo, d.hi, d.added)
		err := d.files.WriteBase(base, run.Run, false)
		rangeMem.Unlock()
		if err != nil {
			return BuildStats{}, fmt.Errorf("master's disk copy: %w", err)
		}
		d.staged = true
		d.pending = &DiskState{Lo: d.lo, Hi: d.hi, BaseGen: run.Run, BasePostings: base.Postings(), BaseKeys: base.Keys(),
			Delta: invindex.Delta{Base: run.Run, BaseDocs: len(d.added)}}
		d.added = nil
		return d.stats(), nil
	}
	if run.DFCap > 0 {
		return d.buildCapped(run, cur)
	}
	// NodeState.next without slices.
	docs := make([]invindex.DocChunks, 0, len(cur.Delta.Docs)+len(d.added))
	for _, dc := range cur.Delta.Docs {
		if !d.removed.Has(dc.Doc) {
			docs = append(docs, dc)
		}
	}
	docs = append(docs, d.added...)
	slices.SortFunc(docs, func(a, b invindex.DocChunks) int { return int(a.Doc) - int(b.Doc) })
	tombs := slices.Concat(cur.Delta.Tombs, d.removedIDs)
	slices.Sort(tombs)
	tombs = slices.Compact(tombs)
	nx := &DiskState{Lo: d.lo, Hi: d.hi, BaseGen: cur.BaseGen, BasePostings: cur.BasePostings, BaseKeys: cur.BaseKeys,
		Delta: invindex.Delta{Base: cur.BaseGen, BaseDocs: cur.Delta.BaseDocs, Tombs: tombs, Docs: docs}}
	d.added = nil
	if (nx.Delta.Postings()+nx.deadPostings())*compactRatio >= max(nx.BasePostings, 1) {
		// The node compacts: so does the copy, from the base file.
		rangeMem.Lock()
		st, err := d.loadLocked(nx)
		if err == nil {
			c := st.compact(run.Run)
			if err = d.files.WriteBase(c.Base, run.Run, false); err == nil {
				nx = diskState(c)
			}
		}
		rangeMem.Unlock()
		if err != nil {
			return BuildStats{}, fmt.Errorf("master's disk copy: compact: %w", err)
		}
		d.staged = true
	}
	d.pending = nx
	return d.stats(), nil
}

// buildCapped is Build for an incremental run with a df cap: the node's
// NodeState.advance on the state read from the base file.
func (d *DiskMirror) buildCapped(run *RunSpec, cur *DiskState) (BuildStats, error) {
	rangeMem.Lock()
	defer rangeMem.Unlock()
	st, err := d.loadLocked(cur)
	if err != nil {
		return BuildStats{}, fmt.Errorf("master's disk copy: %w", err)
	}
	nx, flipped := st.advance(run.Run, d.removed, d.removedIDs, d.added, run.DFCap)
	d.added = nil
	if nx.BaseGen != cur.BaseGen {
		if err := d.files.WriteBase(nx.Base, nx.BaseGen, false); err != nil {
			return BuildStats{}, fmt.Errorf("master's disk copy: compact: %w", err)
		}
		d.staged = true
	}
	d.pending = diskState(nx)
	s := d.stats()
	s.Flipped = flipped
	return s, nil
}

// stats is what the node's Build reports for the pending state: NodeState's
// Postings (same estimate), base keys plus the delta's distinct keys.
func (d *DiskMirror) stats() BuildStats {
	p := d.pending
	keys := p.BaseKeys
	if len(p.Delta.Docs) > 0 {
		keys += invindex.BuildSlice(p.Lo, p.Hi, p.Delta.Docs).Keys()
	}
	return BuildStats{Postings: p.Postings(), Keys: keys, Bytes: 0}
}

// loadLocked reads ds's base file and returns the full state in memory. The
// caller holds rangeMem.
func (d *DiskMirror) loadLocked(ds *DiskState) (*NodeState, error) {
	var base *invindex.Slice
	if ds.BaseGen == 0 && ds.BasePostings == 0 && !d.files.HasBase(ds.Lo, ds.Hi, 0) {
		base = invindex.NewSlice(ds.Lo, ds.Hi) // the empty index of generation 0
	} else {
		var err error
		if base, err = d.files.ReadBase(ds.Lo, ds.Hi, ds.BaseGen); err != nil {
			return nil, err
		}
		if base.Lo() != ds.Lo || base.Hi() != ds.Hi || base.Postings() != ds.BasePostings {
			return nil, fmt.Errorf("base file of [%d,%d) generation %d holds [%d,%d) with %d postings, expected %d",
				ds.Lo, ds.Hi, ds.BaseGen, base.Lo(), base.Hi(), base.Postings(), ds.BasePostings)
		}
	}
	st, err := NewNodeState(base, ds.BaseGen, ds.Delta)
	if err == nil {
		st.over.Store(ds.over.Load())
	}
	return st, err
}

// WithState calls f with the committed state read from the base file (one
// range in memory at a time across all disk copies); f must not keep it.
func (d *DiskMirror) WithState(f func(st *NodeState, gen int64) error) error {
	ds, gen := d.State()
	rangeMem.Lock()
	defer rangeMem.Unlock()
	st, err := d.loadLocked(ds)
	if err != nil {
		return fmt.Errorf("master's disk copy: %w", err)
	}
	return f(st, gen)
}

// Commit implements Node: publishes a new base file, if the run built one,
// and makes the pending state current.
func (d *DiskMirror) Commit(_ context.Context, gen int64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.staged {
		if err := d.files.PublishBase(d.lo, d.hi, d.pending.BaseGen); err != nil {
			return err
		}
		d.staged = false
	}
	d.committed, d.gen = d.pending, gen
	d.run, d.removed, d.removedIDs, d.added, d.pending = nil, nil, nil, nil, nil
	return nil
}

// Abort implements Node.
func (d *DiskMirror) Abort(context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.discardLocked()
	return nil
}

func (d *DiskMirror) discardLocked() {
	if d.staged && d.pending != nil {
		d.files.DiscardBase(d.lo, d.hi, d.pending.BaseGen)
	}
	d.staged = false
	d.run, d.removed, d.removedIDs, d.added, d.pending = nil, nil, nil, nil, nil
}

// Snapshot implements Node by reading the base file: it costs a range in
// memory and is not meant for the master's routine (use State or WithState).
// It returns an empty state if the file cannot be read.
func (d *DiskMirror) Snapshot() (*NodeState, int64) {
	var out *NodeState
	var g int64
	if err := d.WithState(func(st *NodeState, gen int64) error { out, g = st, gen; return nil }); err != nil {
		ds, gen := d.State()
		return emptyState(ds.Lo, ds.Hi), gen
	}
	return out, g
}

// Install implements Node: the base is written to its file if not there yet
// and only its numbers are kept.
func (d *DiskMirror) Install(st *NodeState, gen int64) error {
	if st == nil || st.Base == nil {
		return fmt.Errorf("install: no state")
	}
	if !d.files.HasBase(st.Base.Lo(), st.Base.Hi(), st.BaseGen) {
		if err := d.files.WriteBase(st.Base, st.BaseGen, true); err != nil {
			return err
		}
	}
	return d.InstallDisk(diskState(st), gen)
}

// InstallDisk replaces the committed state by ds, whose base file must exist
// (a persisted generation); any run in progress is discarded.
func (d *DiskMirror) InstallDisk(ds *DiskState, gen int64) error {
	if ds == nil || ds.Delta.Base != ds.BaseGen {
		return fmt.Errorf("install: bad disk state")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.discardLocked()
	d.lo, d.hi = ds.Lo, ds.Hi
	d.committed, d.gen = ds, gen
	return nil
}

// Generation is the committed generation.
func (d *DiskMirror) Generation() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.gen
}

// Query implements Querier from the base file (the fallback of a Mirrored
// whose remote cannot answer, or a master not yet connected to its nodes).
func (d *DiskMirror) Query(ctx context.Context, q Query) ([]invindex.Pair, error) {
	var out []invindex.Pair
	err := d.WithState(func(st *NodeState, gen int64) error {
		if q.Gen != AnyGen && gen != q.Gen {
			return fmt.Errorf("%w: master's disk copy has generation %d, the query expects %d", ErrStale, gen, q.Gen)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		out = st.CountQuery(q)
		return nil
	})
	return out, err
}

var _ Querier = (*DiskMirror)(nil)

// ResliceDisk re-splits committed disk states (any bounds tiling the space)
// into the ranges of bounds, as Master.Install does in memory: each new range
// is the compaction of the old ranges overlapping it in generation gen, cut
// to the new bounds and written as base file g<gen>, with an empty delta
// (BaseDocs docs). Memory: one new range and the old ranges overlapping it
// at a time; an old range overlapping several new ones is read once for each.
// It is for a change of the node set, which is rare.
func ResliceDisk(files BaseFiles, states []*DiskState, bounds []uint64, gen int64, docs int) ([]*DiskState, error) {
	rangeMem.Lock()
	defer rangeMem.Unlock()
	out := make([]*DiskState, len(bounds)-1)
	loader := &DiskMirror{files: files}
	for j := range out {
		lo, hi := bounds[j], bounds[j+1]
		var parts []*invindex.Slice
		for _, ds := range states {
			if ds.Hi <= lo || ds.Lo >= hi {
				continue
			}
			st, err := loader.loadLocked(ds)
			if err != nil {
				return nil, err
			}
			parts = append(parts, st.compact(gen).Base)
		}
		s := invindex.Reslice(parts, []uint64{lo, hi})[0]
		if !files.HasBase(lo, hi, gen) {
			if err := files.WriteBase(s, gen, true); err != nil {
				return nil, err
			}
		}
		out[j] = &DiskState{Lo: lo, Hi: hi, BaseGen: gen, BasePostings: s.Postings(), BaseKeys: s.Keys(),
			Delta: invindex.Delta{Base: gen, BaseDocs: docs}}
	}
	return out, nil
}
