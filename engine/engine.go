package engine

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/engine/indexfiles"
	"github.com/plagd/plagd/extract/sandbox"
)

// Engine runs plagd's similarity computation against one database. It keeps
// the index in memory between runs (the master and its nodes) and on disk in
// the data directory. It is not safe for concurrent runs: the caller holds the
// master lock and runs one at a time.
type Engine struct {
	cfg    config.Config
	pool   *pgxpool.Pool
	log    zerolog.Logger
	master atomic.Pointer[cluster.Master] // swapped when the set of remote nodes changes
	store  *indexfiles.Store
	// remote is the cluster of `plagd node` processes (cluster.nodes); nil
	// for in-process nodes.
	remote *remoteNodes
	// files, with remote nodes and no df cap, holds the master's copy of the
	// index: base slices as files, deltas in memory (cluster.DiskMirror);
	// nil otherwise (the copy is in memory).
	files *indexfiles.Files

	instance string
	// Observer, when set, is told about every run (the daemon's metrics).
	Observer Observer
	// SaveInBackground writes index files after the run has committed, without
	// making the run wait (the daemon); otherwise Run saves before returning (the CLI).
	SaveInBackground bool

	limits atomic.Pointer[limits] // min_shared and df_cap as the last run resolved them (queryLimits)

	// related holds the related-documents vectors as of the last run this
	// engine committed, so an incremental run need not read them back.
	related *relatedState
	// relatedRemote counts related-join queries answered by remote nodes.
	relatedRemote atomic.Int64
	// analyzers keeps the related phase's word memories between runs.
	analyzers analyzerShelf

	// routed is the live check's routed feature index, loaded on first use.
	routed     *routedIndex
	routedOnce sync.Once

	// extract reads the documents' text in killable child processes
	// (extract.isolate); made with the engine, closed by Close, and shared
	// with the web interface of the same process (Extractor).
	extract *sandbox.Pool

	// fence is what a run must pass to commit (SetFence): the master lock
	// the runs are made under. nil: no check (tests).
	fence atomic.Pointer[Fence]

	saveMu sync.Mutex     // one save at a time
	saving sync.WaitGroup // background saves in flight
}

// NewEngine builds the master and cfg.NodeCount() in-process nodes, or, with
// cluster.nodes, a master whose in-process nodes only hold its copy of the
// index until the first run connects the remote nodes (see nodes.go).
func NewEngine(cfg config.Config, pool *pgxpool.Pool, log zerolog.Logger) *Engine {
	k := cfg.NodeCount()
	if len(cfg.Cluster.Nodes) > 0 {
		k = len(cfg.Cluster.Nodes)
	}
	e := &Engine{cfg: cfg, pool: pool, log: log, store: indexfiles.NewStore(cfg.DataDir),
		extract: sandbox.New(cfg.SandboxConfig(), log)}
	nodes := cluster.NewLocalNodes(cfg.Params(), k)
	if len(cfg.Cluster.Nodes) > 0 {
		// The master's copy of the index is on disk (cluster.DiskMirror).
		e.files = indexfiles.NewFiles(e.store, e.params, func() string { return e.instance })
		for i, n := range nodes {
			lo, hi := n.Range()
			nodes[i] = cluster.NewDiskMirror(e.files, lo, hi)
		}
	}
	e.master.Store(cluster.NewMaster(nodes, e.masterLog()))
	if len(cfg.Cluster.Nodes) > 0 {
		e.remote = newRemoteNodes(cfg.Cluster, log.With().Str("component", "cluster").Logger())
	}
	return e
}

func (e *Engine) masterLog() zerolog.Logger { return e.log.With().Str("component", "master").Logger() }

// cur is the current master.
func (e *Engine) cur() *cluster.Master { return e.master.Load() }

// Fence is checked inside a run's commit transaction, after everything
// else: a run commits only if Held returns nil. The daemon's master lock is
// one: a master whose lock session died cannot commit, even before its
// watcher notices.
type Fence interface {
	Held(ctx context.Context, tx pgx.Tx) error
}

// ErrAbandoned is what an error that stops a run on purpose (the master
// lock was lost) matches with errors.Is: such a run is recorded as
// aborted, not failed.
var ErrAbandoned = errors.New("run abandoned")

// Observer is told about every committed run and the bytes each run
// exchanged with remote nodes (the daemon's Prometheus metrics).
type Observer interface {
	ObserveRun(RunReport)
	ObserveNodeBytes(to, from int64)
}

// SetFence names what the engine's runs must pass to commit (Fence).
func (e *Engine) SetFence(f Fence) { e.fence.Store(&f) }

// commitFence is the commit-time check, nil without a fence.
func (e *Engine) commitFence() func(context.Context, pgx.Tx) error {
	f := e.fence.Load()
	if f == nil || *f == nil {
		return nil
	}
	return (*f).Held
}

// Close closes the connections to remote nodes and stops the extraction
// processes.
func (e *Engine) Close() {
	if e.remote != nil {
		e.remote.close()
	}
	e.extract.Close()
}

// phases are the features a run brings in step with the index, in the
// order their updates are written.
func (e *Engine) phases() []Phase {
	return []Phase{&nearDupPhase{e: e}, &relatedPhase{e: e}, &routingPhase{e: e}}
}

// Extractor is the pool that reads documents' text for this engine's runs:
// one per process, so the web interface that shares the engine extracts
// uploads and checks with it, under the same cap on concurrent
// extractions (extract.workers).
func (e *Engine) Extractor() *sandbox.Pool { return e.extract }
