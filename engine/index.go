package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/engine/indexfiles"
	"github.com/plagd/plagd/invindex"
)

// ensureIndex makes the master hold the committed generation, loading it from
// disk if needed. It returns why a full run is needed, or "".
func (e *Engine) ensureIndex(ctx context.Context, committed int64) string {
	if committed == 0 {
		return "no run has been committed yet"
	}
	if e.cur().Generation() == committed {
		return ""
	}
	// The files were written with the parameters that run resolved.
	p, err := e.committedParams(ctx, committed)
	if err != nil {
		return fmt.Sprintf("index generation %d unusable: %v", committed, err)
	}
	if e.files != nil {
		docs, states, err := e.store.LoadDisk(committed, e.instance, p)
		if err == nil {
			err = e.cur().InstallDisk(docs, e.files, states, committed)
		}
		if err != nil {
			return fmt.Sprintf("index generation %d unusable: %v", committed, err)
		}
		e.log.Info().Int64("generation", committed).Int("documents", docs.Len()).Msg("index loaded (base slices stay on disk)")
		return ""
	}
	docs, states, err := e.store.Load(committed, e.instance, p)
	if err != nil {
		return fmt.Sprintf("index generation %d unusable: %v", committed, err)
	}
	if err := e.cur().Install(docs, states, committed); err != nil {
		return fmt.Sprintf("index generation %d unusable: %v", committed, err)
	}
	e.log.Info().Int64("generation", committed).Int("documents", docs.Len()).Msg("index loaded")
	return ""
}

// abort discards the run on the master and its nodes, giving unreachable
// nodes a bounded time: a node that does not answer keeps its committed
// slice, and its run state is dropped by its next Begin.
func (e *Engine) abort(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), abortTimeout)
	defer cancel()
	e.cur().Abort(ctx)
}

// abortTimeout bounds Engine.abort.
const abortTimeout = 10 * time.Second

// WaitSaved blocks until background index saves have finished.
func (e *Engine) WaitSaved() { e.saving.Wait() }

// save persists generation gen, chunked with p, unless a newer run has
// committed meanwhile (its own save supersedes this one). Failure is logged,
// not returned: the results are committed; a restart without the files runs
// in full.
func (e *Engine) save(gen int64, p invindex.Params, log zerolog.Logger) {
	e.saveMu.Lock()
	defer e.saveMu.Unlock()
	if e.cur().Generation() != gen {
		return
	}
	t := time.Now()
	if err := e.persist(gen, p); err != nil {
		log.Error().Err(err).Str("data_dir", e.cfg.DataDir).Msg("saving the index failed; after a restart the next run will be full")
		return
	}
	log.Debug().Dur("took_ms", time.Since(t)).Msg("index saved")
}

// persist saves the master's committed index, chunked with p, and drops
// older generations.
func (e *Engine) persist(gen int64, p invindex.Params) error {
	nodes := e.cur().Nodes()
	if e.files != nil {
		ds := make([]*cluster.DiskState, len(nodes))
		for i, n := range nodes {
			var g int64
			var ok bool
			if d, isDisk := n.(cluster.DiskStater); isDisk {
				ds[i], g, ok = d.DiskState()
			}
			if !ok {
				return fmt.Errorf("node %d has no disk copy", i)
			}
			if g != gen {
				return fmt.Errorf("node %d holds generation %d, not %d", i, g, gen)
			}
		}
		return e.store.Save(gen, e.instance, p, e.cur().Docs(), indexfiles.DiskRanges(ds))
	}
	states := make([]*cluster.NodeState, len(nodes))
	for i, n := range nodes {
		st, g := n.Snapshot()
		if g != gen {
			return fmt.Errorf("node %d holds generation %d, not %d", i, g, gen)
		}
		states[i] = st
	}
	return e.store.Save(gen, e.instance, p, e.cur().Docs(), indexfiles.MemRanges(states))
}
