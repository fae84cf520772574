package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/store"
)

// RunReport summarises one committed run.
type RunReport struct {
	ID          int64
	Kind        string // full, incremental, or none when nothing was pending (ID is then the last committed run)
	Reason      string // why a full run was chosen, when it was not asked for
	Changed     int
	Indexed     int
	Failed      int
	Deleted     int
	Recomputed  int
	Postings    int
	IndexBytes  int
	RowsWritten int64
	Duration    time.Duration
	Phases      map[string]time.Duration
	// Nodes is the number of nodes the run used (remote or in-process).
	Nodes int
	// BytesToNodes and BytesFromNodes are the bytes of the gRPC messages
	// sent to and received from remote nodes during the run (0 with
	// in-process nodes), reloads of node slices included.
	BytesToNodes, BytesFromNodes int64
	// RelatedOnNodes is the number of related-documents queries the remote
	// nodes joined (0 with in-process nodes: the master's cores do it).
	RelatedOnNodes int64
	// RelatedPatched and RelatedRejoined count the related lists an
	// incremental run touched: patched from their held members and margin,
	// or joined again with the whole archive because the margin ran out
	// (related.margin).
	RelatedPatched, RelatedRejoined int
	// TextsRead and TextsTokenised count the texts the run's feature phases
	// read (from the stage, and stored ones for a rebuild) and tokenised:
	// each once, whatever the number of phases.
	TextsRead, TextsTokenised int64
	// TextsReused counts the files whose text the run took from what ingest
	// read at upload (same bytes, same reader) instead of extracting again.
	TextsReused int64
	// Indexes counts the similarity indexes computed after the commit
	// (RefreshIndex), queued by this run or left queued before it.
	Indexes int
}

// Run performs one run and commits it. full forces a full recomputation; an
// incremental run also turns full when the index on hand is missing, stale or
// corrupt. Every failure leaves the last committed run intact.
func (e *Engine) Run(ctx context.Context, full bool) (rep RunReport, err error) {
	start := time.Now()
	rep = RunReport{Phases: map[string]time.Duration{}}
	if full, err = e.chooseKind(ctx, full, &rep); err != nil {
		return rep, err
	}
	if rep.Kind == "none" {
		// Header edits queue similarity indexes without a pending change,
		// and a refresh cut short leaves some queued.
		if err := e.refreshAfterRun(ctx, &rep, e.log); err != nil {
			return rep, fmt.Errorf("similarity index: %w", err)
		}
		return rep, nil
	}
	runID, err := startRun(ctx, e.pool, rep.Kind, e.settings())
	if err != nil {
		return rep, err
	}
	rep.ID = runID
	log := e.log.With().Int64("run", runID).Str("kind", rep.Kind).Logger()
	if rep.Reason != "" {
		log.Warn().Str("reason", rep.Reason).Msg("running in full")
	}
	var countBytes func()
	if e.remote != nil {
		sent, recv := e.remote.traffic()
		countBytes = func() {
			s, r := e.remote.traffic()
			rep.BytesToNodes, rep.BytesFromNodes = s-sent, r-recv
		}
		defer func() {
			countBytes()
			if e.Observer != nil {
				e.Observer.ObserveNodeBytes(rep.BytesToNodes, rep.BytesFromNodes)
			}
		}()
		t := time.Now()
		err := e.useNodes(ctx, log)
		rep.Phases["nodes"] = time.Since(t)
		if err != nil {
			failRun(context.WithoutCancel(ctx), e.pool, runID, err, log)
			return rep, err
		}
	}
	rep.Nodes = len(e.cur().Nodes())

	if err := e.computeAndCommit(ctx, runID, full, &rep, log); err != nil {
		return rep, err
	}
	// The database now says generation runID; make the nodes agree.
	if err := e.cur().Commit(ctx, runID); err != nil {
		return rep, fmt.Errorf("run %d committed, but the index could not be switched (the next run rebuilds it): %w", runID, err)
	}
	rep.Duration = time.Since(start) // the run counts as done when it is committed
	e.clearStage(ctx, log)
	if err := e.refreshAfterRun(ctx, &rep, log); err != nil {
		return rep, fmt.Errorf("run %d committed, but its similarity indexes are not all stored (the next run finishes them): %w", runID, err)
	}
	// The files carry this run's chunking parameters, which the next run
	// may resolve differently (config.AutoExtraWindowWords).
	params := e.params()
	if e.SaveInBackground {
		// The in-memory index is current; the files only serve a restart, so
		// the next run need not wait for them (slices are immutable once committed).
		e.saving.Add(1)
		go func() {
			defer e.saving.Done()
			e.save(runID, params, log)
		}()
	} else {
		t := time.Now()
		e.save(runID, params, log)
		rep.Phases["save"] = time.Since(t)
	}
	ev := log.Info().Dur("duration_ms", rep.Duration).Int("changed", rep.Changed).Int("indexed", rep.Indexed).
		Int("failed", rep.Failed).Int("deleted", rep.Deleted).Int("recomputed", rep.Recomputed).
		Int64("rows", rep.RowsWritten).Int("postings", rep.Postings).Int("nodes", rep.Nodes).
		Int64("texts_reused", rep.TextsReused).Int("indexes", rep.Indexes)
	if e.remote != nil {
		countBytes()
		ev = ev.Int64("bytes_to_nodes", rep.BytesToNodes).Int64("bytes_from_nodes", rep.BytesFromNodes)
		if rep.Changed > 0 {
			ev = ev.Int64("bytes_per_changed_doc", (rep.BytesToNodes+rep.BytesFromNodes)/int64(rep.Changed))
		}
	}
	ev.Msg("run committed")
	if e.Observer != nil {
		e.Observer.ObserveRun(rep)
	}
	return rep, nil
}

// chooseKind cleans up after dead runs, makes the committed index current
// and decides the run's kind in rep: full (asked, or the index on hand is
// missing, stale or corrupt, or the settings changed), incremental, or none
// when nothing is pending (rep.ID is then the last committed run).
func (e *Engine) chooseKind(ctx context.Context, full bool, rep *RunReport) (bool, error) {
	if err := e.prepare(ctx); err != nil {
		return full, err
	}
	committedGen, err := store.LastCommittedRun(ctx, e.pool)
	if err != nil {
		return full, err
	}
	if err := e.resolveLimits(ctx); err != nil {
		return full, err
	}
	if !full {
		if reason := e.ensureIndex(ctx, committedGen); reason != "" {
			full, rep.Reason = true, reason
		} else if prev, err := committedSettings(ctx, e.pool, committedGen); err != nil {
			return full, err
		} else if prev != e.settings() {
			// min_shared, top_k or df_cap change every list: patching them is wrong.
			full, rep.Reason = true, fmt.Sprintf("settings changed from %q to %q", prev, e.settings())
		}
	}
	rep.Kind = "incremental"
	if full {
		rep.Kind = "full"
	} else if idle, err := nothingPending(ctx, e.pool); err != nil {
		return full, err
	} else if idle {
		// Cron fires every few minutes; an idle archive must not write a new
		// index generation and a run row each time.
		rep.Kind, rep.ID = "none", committedGen
		return full, nil
	}
	return full, nil
}

// computeAndCommit computes run runID and commits it, filling rep. On any
// failure before COMMIT the run is discarded on the nodes and recorded as
// failed (or aborted), and the last committed run stays current.
func (e *Engine) computeAndCommit(ctx context.Context, runID int64, full bool, rep *RunReport, log zerolog.Logger) (err error) {
	defer func() {
		if err != nil {
			e.abort(ctx)
			// The limits this run resolved were not committed: queries
			// read those of the last committed run again (queryLimits).
			e.limits.Store(nil)
			failRun(context.WithoutCancel(ctx), e.pool, runID, err, log)
		}
	}()
	out, cs, err := e.compute(ctx, runID, full, rep)
	if errors.Is(err, cluster.ErrNeedFull) && !full {
		// The index and the stored texts disagree: never guess, recompute everything.
		log.Warn().Err(err).Msg("incremental run impossible, switching to a full run")
		e.abort(ctx)
		full, rep.Kind, rep.Reason = true, "full", err.Error()
		if _, uerr := e.pool.Exec(ctx, `update runs set kind = 'full' where id = $1;
			delete from plagd_text_stage where run_id = $1`, runID); uerr != nil {
			err = uerr
		} else {
			out, cs, err = e.compute(ctx, runID, true, rep)
		}
	}
	if err != nil {
		return err
	}
	rd, err := e.runDocs(ctx, full, out)
	if err != nil {
		return err
	}
	remoteBefore := e.relatedRemote.Load()
	updates, err := e.runPhases(ctx, &RunState{ID: runID, Full: full, Outcome: out, Docs: rd, changes: cs}, rep)
	if err != nil {
		rep.RelatedOnNodes = e.relatedRemote.Load() - remoteBefore
		return err
	}
	defer abandonAll(updates) // a join still running when the run fails
	iq, err := e.indexQueueOf(ctx, full, out, cs, rd)
	if err != nil {
		return err
	}
	updates = append(updates, iq)
	t := time.Now()
	st, err := commitRun(ctx, e.pool, e.commitFence(), runID, full, e.cfg.Engine.TopK, out, cs, updates...)
	rep.Phases["commit"] = time.Since(t)
	// After the commit: a rebuild's join runs on into it.
	rep.RelatedOnNodes = e.relatedRemote.Load() - remoteBefore
	if err != nil && !committedAnyway(ctx, e.pool, runID, err, log) {
		return fmt.Errorf("commit run %d: %w", runID, err)
	}
	for _, u := range updates {
		if c, ok := u.(interface{ committed(*Engine) }); ok {
			c.committed(e)
		}
		if r, ok := u.(interface{ report(*RunReport) }); ok {
			r.report(rep)
		}
	}
	rep.Changed = len(cs.changed)
	rep.Deleted = len(out.Deleted)
	rep.Recomputed = out.Recomputed
	rep.Postings = out.Postings
	rep.IndexBytes = out.IndexBytes
	rep.RowsWritten = st.RowsWritten
	rep.Failed = out.Failed()
	rep.Indexed = len(out.Docs) - rep.Failed
	logFailures(log, out)
	return nil
}

// compute reads the change log, plans the run and lets the master compute it.
func (e *Engine) compute(ctx context.Context, runID int64, full bool, rep *RunReport) (*cluster.Outcome, *changeSet, error) {
	t := time.Now()
	cs, err := readChanges(ctx, e.pool)
	if err != nil {
		return nil, nil, err
	}
	plan := cluster.Plan{
		Run: runID, Full: full, Params: e.params(),
		DFCap: e.DFCap(), MinShared: e.MinShared(),
		TopK: e.cfg.Engine.TopK, BatchSize: e.cfg.Engine.BatchSize,
	}
	if full {
		plan.Upsert, err = liveDocuments(ctx, e.pool)
	} else {
		plan.Upsert, plan.Delete, err = classify(ctx, e.pool, cs.changed)
		if err == nil {
			plan.Holes, err = holes(ctx, e.pool, cs, e.cfg.Engine.TopK)
		}
	}
	if err != nil {
		return nil, nil, err
	}
	templates, err := loadTemplates(ctx, e.pool, e.params(), cs.xmin)
	if err != nil {
		return nil, nil, err
	}
	rep.Phases["plan"] = time.Since(t)
	t = time.Now()
	opt := e.cfg.ExtractOptions()
	src := &pgSource{pool: e.pool, run: runID, opt: opt, extract: e.extract, reader: store.Reader(opt), templates: templates}
	out, err := e.cur().Run(ctx, plan, src)
	rep.Phases["compute"] = time.Since(t)
	rep.TextsReused += src.reused.Load()
	return out, cs, err
}

// prepare cleans up after runs that died: their rows in runs say 'running' and
// their staged texts linger. The caller holds the master lock, so no run is alive.
func (e *Engine) prepare(ctx context.Context) error {
	if e.instance == "" {
		id, err := databaseIdentity(ctx, e.pool)
		if err != nil {
			return err
		}
		e.instance = id
	}
	if _, err := e.pool.Exec(ctx, `
		update runs set status = 'aborted', finished_at = coalesce(finished_at, clock_timestamp()),
			error = coalesce(error, 'the process running it stopped before it committed')
		where status = 'running'`); err != nil {
		return fmt.Errorf("mark interrupted runs: %w", err)
	}
	if _, err := e.pool.Exec(ctx, `truncate plagd_text_stage`); err != nil {
		return fmt.Errorf("clear text stage: %w", err)
	}
	return nil
}

// committedSettings returns the settings run id was computed with.
func committedSettings(ctx context.Context, q store.Querier, id int64) (string, error) {
	var s *string
	if err := q.QueryRow(ctx, `select settings from runs where id = $1`, id).Scan(&s); err != nil {
		return "", fmt.Errorf("read settings of run %d: %w", id, err)
	}
	return store.Deref(s), nil
}

// startRun records a run in progress and returns its ID.
func startRun(ctx context.Context, pool *pgxpool.Pool, kind, settings string) (int64, error) {
	host, _ := os.Hostname()
	var id int64
	err := pool.QueryRow(ctx, `insert into runs (kind, status, host, pid, settings) values ($1, 'running', $2, $3, $4) returning id`,
		kind, host, os.Getpid(), settings).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("record run: %w", err)
	}
	return id, nil
}

// committedAnyway reports whether run id is committed although its COMMIT
// returned err: the connection can drop after PostgreSQL committed and
// before it answered. The database is then the truth, and the run goes on
// as committed.
func committedAnyway(ctx context.Context, pool *pgxpool.Pool, id int64, err error, log zerolog.Logger) bool {
	var status string
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if pool.QueryRow(qctx, `select status from runs where id = $1`, id).Scan(&status) != nil || status != "committed" {
		return false
	}
	log.Warn().Err(err).Int64("run", id).Msg("the commit's answer was lost, but the database holds the run as committed")
	return true
}

// failRun records why a run did not commit. It never touches a run the
// database holds as committed.
func failRun(ctx context.Context, pool *pgxpool.Pool, id int64, cause error, log zerolog.Logger) {
	status := "failed"
	if errors.Is(cause, context.Canceled) || errors.Is(cause, ErrAbandoned) {
		status = "aborted"
	}
	log.Error().Err(cause).Str("status", status).Msg("run did not commit; the previous run stays current")
	if _, err := pool.Exec(ctx, `update runs set status = $2, finished_at = clock_timestamp(), error = $3 where id = $1 and status <> 'committed'`,
		id, status, cause.Error()); err != nil {
		log.Error().Err(err).Msg("recording the failed run")
	}
	if _, err := pool.Exec(ctx, `delete from plagd_text_stage where run_id = $1`, id); err != nil {
		log.Warn().Err(err).Msg("clearing the failed run's staged texts")
	}
}

// clearStage empties the text stage after a run committed the texts it
// staged. A failure only leaves them for the next run, which truncates the
// stage when it starts (prepare); the run's rows are never read again
// (every read of the stage names its run).
func (e *Engine) clearStage(ctx context.Context, log zerolog.Logger) {
	t := time.Now()
	if _, err := e.pool.Exec(ctx, `truncate plagd_text_stage`); err != nil {
		log.Warn().Err(err).Msg("clearing the text stage after the commit (the next run clears it)")
		return
	}
	log.Debug().Dur("took_ms", time.Since(t)).Msg("text stage cleared")
}

// nothingPending reports whether the change log is empty.
func nothingPending(ctx context.Context, q store.Querier) (bool, error) {
	var any bool
	if err := q.QueryRow(ctx, `select exists (select 1 from plagd_changes)`).Scan(&any); err != nil {
		return false, fmt.Errorf("read change log: %w", err)
	}
	return !any, nil
}

// maxFailureLines bounds the warnings one run logs about documents it could
// not index; the rest are counted in one line (all are in document_status).
const maxFailureLines = 50

// logFailures warns about each document the run could not index, with its
// id, the stable kind and the reason staff see, and what to do.
func logFailures(log zerolog.Logger, out *cluster.Outcome) {
	n := 0
	for _, d := range out.Docs {
		if d.Failed == "" {
			continue
		}
		n++
		if n <= maxFailureLines {
			log.Warn().Int64("doc", d.ID).Str("kind", d.FailedKind).Str("reason", d.Failed).
				Msg("document not indexed; it is retried when its row changes (plagd status lists failures)")
		}
	}
	if n > maxFailureLines {
		log.Warn().Int("more", n-maxFailureLines).Msg("more documents not indexed; plagd status lists them all")
	}
}
