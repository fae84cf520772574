package engine

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sync/errgroup"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/internal/progress"
	"github.com/plagd/plagd/invindex"
)

// Update is what one feature writes in a run's commit transaction. The
// commit (commitRun) writes the similarities, the texts and the change log
// itself and then every Update in turn; all of it commits or none.
type Update interface {
	Write(ctx context.Context, tx pgx.Tx, runID int64) error
}

// Phase is one feature's share of a run (near-duplicates, related
// documents, routing features): what it computes from the run's plan and
// texts. The engine calls, for every phase of the run:
//
//  1. Prepare, once: load or rebuild the feature's model. It answers whether
//     the phase also needs the stored texts of the documents the run did
//     not change (a rebuilt model rehashes or revectors everything);
//  2. Worker, once per worker goroutine: the function returned is called
//     with each text of the run's one pass over its texts (textPass),
//     concurrently from different workers, each text once;
//  3. Finish, once: make the Update from what the workers saw.
//
// A new feature is a new Phase in Engine.phases and a new Update; no other
// feature's file changes.
type Phase interface {
	Name() string
	Prepare(ctx context.Context, r *RunState) (needStored bool, err error)
	Worker() func(t *DocText)
	Finish(ctx context.Context, r *RunState) (Update, error)
}

// RunState is what a phase knows of the run: its plan and outcome and the
// documents its derived tables must follow.
type RunState struct {
	ID      int64
	Full    bool
	Outcome *cluster.Outcome
	Docs    runDocuments
	changes *changeSet
}

// DocText is one document's text as the phases see it: read once from the
// run's stage (or, for a rebuild, from document_texts) and tokenised once
// with the index's tokenizer.
type DocText struct {
	ID   int64
	Text string
	// Words is the index's tokenisation of Text (invindex.Tokenizer.Words),
	// shared by every phase that works on words; valid only during the call.
	Words []invindex.Word
	// Stored: the text is a stored one of a document the run did not change.
	Stored bool
}

// passStats count what a run's text pass read and tokenised.
type passStats struct {
	Read, Tokenised int64
}

// textBatch is how many texts a worker of the text pass takes through
// the phases at a time.
const textBatch = 8

// textPass reads the texts of the run once and hands each, tokenised once,
// to the workers of every phase that wants it: the run's staged texts to
// all phases, then the stored texts of unchanged documents to the phases
// that asked for them (stored[i] for phases[i]). Texts are spread over one
// worker goroutine per core.
func (e *Engine) textPass(ctx context.Context, r *RunState, phases []Phase, stored []bool) (passStats, error) {
	var st passStats
	var read, tokenised atomic.Int64
	run := func(ids []int64, staged bool, want []Phase) error {
		if len(ids) == 0 || len(want) == 0 {
			return nil
		}
		workers := runtime.GOMAXPROCS(0)
		texts := make(chan idText, 4*workers)
		var g errgroup.Group
		for range workers {
			g.Go(func() error {
				tok := invindex.NewTokenizer(e.cfg.Params())
				fns := make([]func(*DocText), len(want))
				for i, p := range want {
					fns[i] = p.Worker()
				}
				// Texts go through the phases textBatch at a time, each
				// phase over all of them before the next: a phase's tables
				// (the related analyser's word table, the near-duplicate
				// model, the routing extractor's buffers) stay in the
				// core's cache across the batch instead of being evicted
				// by the other phases' at every text.
				dts := make([]DocText, textBatch)
				n := 0
				flush := func() {
					for _, fn := range fns {
						for i := range n {
							fn(&dts[i])
						}
					}
					n = 0
				}
				for t := range texts {
					dt := &dts[n]
					dt.ID, dt.Text, dt.Stored = t.id, t.text, !staged
					dt.Words = tok.Words(t.text, dt.Words[:0])
					tokenised.Add(1)
					if n++; n == textBatch {
						flush()
					}
				}
				flush()
				return nil
			})
		}
		err := e.eachText(ctx, r.ID, ids, staged, func(t idText) error {
			read.Add(1)
			select {
			case texts <- t:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
		close(texts)
		g.Wait()
		return err
	}
	var more []Phase
	for i, p := range phases {
		if stored[i] {
			more = append(more, p)
		}
	}
	total := len(r.Docs.indexed)
	if len(more) > 0 {
		total += len(r.Docs.others)
	}
	// A rebuild reads every text of the archive: 200 s at 1M documents.
	defer progress.Log(e.log, "texts", int64(total), &tokenised)()
	if err := run(r.Docs.indexed, true, phases); err != nil {
		return st, err
	}
	err := run(r.Docs.others, false, more)
	st.Read, st.Tokenised = read.Load(), tokenised.Load()
	return st, err
}

// runPhases prepares every phase, makes the one text pass and finishes
// them, recording each phase's own time (prepare and finish) under its
// name and the shared pass under "texts".
func (e *Engine) runPhases(ctx context.Context, r *RunState, rep *RunReport) ([]Update, error) {
	phases := e.phases()
	stored := make([]bool, len(phases))
	took := make([]time.Duration, len(phases))
	for i, p := range phases {
		t := time.Now()
		need, err := p.Prepare(ctx, r)
		took[i] = time.Since(t)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Name(), err)
		}
		stored[i] = need
	}
	t := time.Now()
	st, err := e.textPass(ctx, r, phases, stored)
	rep.Phases["texts"] = time.Since(t)
	rep.TextsRead, rep.TextsTokenised = st.Read, st.Tokenised
	if err != nil {
		return nil, err
	}
	updates := make([]Update, 0, len(phases))
	for i, p := range phases {
		t := time.Now()
		u, err := p.Finish(ctx, r)
		rep.Phases[p.Name()] = took[i] + time.Since(t)
		if err != nil {
			abandonAll(updates)
			return nil, fmt.Errorf("%s: %w", p.Name(), err)
		}
		updates = append(updates, u)
	}
	return updates, nil
}

// runDocuments sorts the documents a run's derived tables (simhashes,
// related vectors, routing features) must follow.
type runDocuments struct {
	indexed []int64 // (re)indexed by this run: their texts are in its stage
	gone    []int64 // left the index: failed in this run, or deleted
	others  []int64 // indexed before and untouched by this run (none in a full run)
}

// runDocs lists them, ascending.
func (e *Engine) runDocs(ctx context.Context, full bool, out *cluster.Outcome) (runDocuments, error) {
	var rd runDocuments
	// Not nil: pgx sends a nil slice as NULL, and "not (id = any(NULL))"
	// is NULL, so a run that touched no document (a pending change that
	// indexes nothing) saw no other document either and rebuilt the
	// related model over none, dropping every vector.
	touched := []int64{}
	for _, d := range out.Docs {
		touched = append(touched, d.ID)
		if d.Failed == "" {
			rd.indexed = append(rd.indexed, d.ID)
		} else {
			rd.gone = append(rd.gone, d.ID)
		}
	}
	rd.gone = append(rd.gone, out.Deleted...)
	touched = append(touched, out.Deleted...)
	slices.Sort(rd.indexed)
	slices.Sort(rd.gone)
	if !full {
		rows, err := e.pool.Query(ctx, `
			select t.doc_id from document_texts t join documents d on d.id = t.doc_id
			where d.deleted_at is null and not (t.doc_id = any($1)) order by t.doc_id`, touched)
		if err != nil {
			return rd, fmt.Errorf("list indexed documents: %w", err)
		}
		if rd.others, err = pgx.CollectRows(rows, pgx.RowTo[int64]); err != nil {
			return rd, fmt.Errorf("list indexed documents: %w", err)
		}
	}
	return rd, nil
}

type idText struct {
	id   int64
	text string
}

// eachText streams the texts of ids, each once: from the run's stage (one
// scan of it, whatever the number of ids) or from document_texts.
func (e *Engine) eachText(ctx context.Context, runID int64, ids []int64, staged bool, fn func(idText) error) error {
	if len(ids) == 0 {
		return nil
	}
	q := `select doc_id, body from document_texts where doc_id = any($1) and $2::bigint is not null`
	if staged {
		q = `select doc_id, body from plagd_text_stage where doc_id = any($1) and run_id = $2`
	}
	rows, err := e.pool.Query(ctx, q, ids, runID)
	if err != nil {
		return fmt.Errorf("read texts: %w", err)
	}
	seen := make(map[int64]bool, len(ids)) // the stage may hold a document twice (retried batch)
	var t idText
	_, err = pgx.ForEachRow(rows, []any{&t.id, &t.text}, func() error {
		if seen[t.id] {
			return nil
		}
		seen[t.id] = true
		return fn(t)
	})
	if err != nil {
		return fmt.Errorf("read texts: %w", err)
	}
	return nil
}
