package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/plagd/plagd/invindex"
)

// ErrOrder is returned by a Staged node for a call out of the run's order
// within a run (Count before Build, a second Build, postings delivered
// after Build).
var ErrOrder = errors.New("call out of the run's order (Begin; Chunk and Deliver; Build; Chunk, Deliver without index and Count; Commit or Abort)")

// stage is where a node is in a run.
type stage int

const (
	idle   stage = iota // no run: Begin, Abort, Install
	begun               // after Begin: Chunk, Deliver, Build
	built               // after Build: Chunk, Deliver without index, Count, Commit
	failed              // after a failed Begin or Build: the node's run state is unknown until Abort, Begin or Install
)

// Staged is the one place where the call order of Node is checked: it
// wraps a node and lets a call through only in its stage of a run,
//
//	Begin → Chunk, Deliver → Build → Chunk, Deliver (index false), Count → Commit
//
// with Abort at any time (back to no run), Begin at any time (a new run
// replaces the one in progress) and Install outside or instead of a run.
// After a failed Begin or Build only Abort, Begin and Install are let
// through: what the node holds of the run is unknown (a Mirrored may have
// begun its copy and not its remote).
// Calls outside a run answer ErrNoRun, calls of a run in the wrong stage
// ErrOrder. Range, Snapshot and Install pass through in any stage.
//
// The node behind it (LocalNode, DiskMirror, Mirrored, a remote client)
// therefore sees only calls in order and keeps no run checks of its own:
// Chunk, Deliver and Count run concurrently with each other, while Begin,
// Build, Commit, Abort and Install wait for the calls in progress and run
// alone, so that no call finds its run half discarded. Master wraps its
// nodes, and cluster/remote's Server the node it serves.
type Staged struct {
	n Node

	mu    sync.RWMutex // read by Chunk, Deliver and Count for their duration; written by the others
	stage stage
}

// Stage wraps n; a Staged n is returned as it is.
func Stage(n Node) *Staged {
	if s, ok := n.(*Staged); ok {
		return s
	}
	return &Staged{n: n}
}

var _ Node = (*Staged)(nil)

// Unwrap is the wrapped node.
func (s *Staged) Unwrap() Node { return s.n }

// discard forgets the run in progress: the wrapped node was installed
// without the wrapper (Master.InstallDisk), which discards its run.
func (s *Staged) discard() {
	s.mu.Lock()
	s.stage = idle
	s.mu.Unlock()
}

// shared admits a concurrent call in one of stages; the caller releases
// s.mu.RUnlock when the call is done.
func (s *Staged) shared(call string, stages ...stage) error {
	s.mu.RLock()
	if err := s.check(call, stages...); err != nil {
		s.mu.RUnlock()
		return err
	}
	return nil
}

// check says whether a call may run in the current stage (s.mu held).
func (s *Staged) check(call string, stages ...stage) error {
	for _, st := range stages {
		if s.stage == st {
			return nil
		}
	}
	if s.stage == idle {
		return ErrNoRun
	}
	after := map[stage]string{begun: "Begin", built: "Build", failed: "a failed Begin or Build"}[s.stage]
	return fmt.Errorf("%w: %s after %s", ErrOrder, call, after)
}

// Range implements Node.
func (s *Staged) Range() (lo, hi uint64) { return s.n.Range() }

// Begin implements Node: it starts a run, replacing any in progress.
func (s *Staged) Begin(ctx context.Context, spec RunSpec, removed []invindex.DocID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.n.Begin(ctx, spec, removed); err != nil {
		s.stage = failed
		return err
	}
	s.stage = begun
	return nil
}

// Chunk implements Node: after Begin.
func (s *Staged) Chunk(ctx context.Context, batch []Text) ([]Chunked, error) {
	if err := s.shared("Chunk", begun, built); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	return s.n.Chunk(ctx, batch)
}

// Deliver implements Node: after Begin; after Build only without index
// (the pending slice is built, so postings could no longer enter it).
func (s *Staged) Deliver(ctx context.Context, docs []invindex.DocChunks, index bool) error {
	call, stages := "Deliver", []stage{begun, built}
	if index {
		call, stages = "Deliver with index", stages[:1]
	}
	if err := s.shared(call, stages...); err != nil {
		return err
	}
	defer s.mu.RUnlock()
	return s.n.Deliver(ctx, docs, index)
}

// Build implements Node: once per run.
func (s *Staged) Build(ctx context.Context) (BuildStats, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check("Build", begun); err != nil {
		return BuildStats{}, err
	}
	st, err := s.n.Build(ctx)
	s.stage = built
	if err != nil {
		s.stage = failed
	}
	return st, err
}

// Count implements Node: after Build.
func (s *Staged) Count(ctx context.Context, docs []invindex.DocID) ([][]invindex.Pair, error) {
	if err := s.shared("Count", built); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	return s.n.Count(ctx, docs)
}

// Commit implements Node: after Build; it ends the run.
func (s *Staged) Commit(ctx context.Context, gen int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check("Commit", built); err != nil {
		return err
	}
	if err := s.n.Commit(ctx, gen); err != nil {
		return err
	}
	s.stage = idle
	return nil
}

// Abort implements Node: at any time; it ends the run, if any.
func (s *Staged) Abort(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stage = idle
	return s.n.Abort(ctx)
}

// Snapshot implements Node.
func (s *Staged) Snapshot() (*NodeState, int64) { return s.n.Snapshot() }

// Install implements Node: it discards the run in progress, if any.
func (s *Staged) Install(st *NodeState, gen int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.n.Install(st, gen); err != nil {
		return err
	}
	s.stage = idle
	return nil
}
