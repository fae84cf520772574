package engine

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"github.com/plagd/plagd/migrations"
	"github.com/plagd/plagd/passage"
	"github.com/plagd/plagd/report"
	"github.com/plagd/plagd/store"
)

// The similarity index (report.Index) of a document depends on its text,
// its similarity list, the texts, chunk counts and headers of the sources
// in it, and the common text and templates its report leaves out. A run's
// commit queues (plagd_index_queue, migration 0013) every document whose
// index any of these may have changed; right after COMMIT the run computes
// the queued indexes from the committed tables, exactly as a report does
// (engine.Passages, then report.Report.Index), and stores them
// (similarity_index). Header edits queue their documents by trigger.
//
// What a run queues (indexQueue):
//   - a full run: every indexed document;
//   - an incremental run: the documents it indexed; the lists it replaced
//     (recounted holes, documents on chunks that crossed the df cap) or
//     extended (Trim); the lists that lost a member by a hard delete
//     (cs.lost); and every list that named a document whose text the run
//     changed or removed (read from the committed lists before the commit).
//
// That is every document whose inputs changed, so the stored indexes
// equal those a full run computes (engine tests check it against the
// report of every document).

// indexBatch is how many queued documents one step of the refresh
// computes and stores in one transaction.
const indexBatch = 256

// IndexStats are what one refresh of the similarity index did.
type IndexStats struct {
	Computed  int           // indexes computed and stored
	Dropped   int           // queued documents without a text (deleted, failed): no index
	Sources   int           // sources aligned
	Tokenised int           // texts tokenised (passage.Doc) for the reports, sources and documents alike; the other uses found them in the cache
	Took      time.Duration // the whole refresh
}

// RefreshIndex computes and stores the similarity index of every queued
// document, from the committed texts and lists and the committed index's
// common text, in batches of indexBatch, each in its own transaction that
// also takes its documents off the queue. It runs after every run (also
// when nothing was pending: header edits queue documents too); a refresh
// cut short leaves the rest queued for the next. Reports compute the same
// figure live meanwhile.
func (e *Engine) RefreshIndex(ctx context.Context) (IndexStats, error) {
	start := time.Now()
	var st IndexStats
	var total int
	if err := e.pool.QueryRow(ctx, `select count(*) from plagd_index_queue`).Scan(&total); err != nil {
		return st, fmt.Errorf("read the similarity-index queue: %w", err)
	}
	if total == 0 {
		return st, nil
	}
	ct, err := e.CommonText(ctx)
	if err != nil {
		return st, fmt.Errorf("similarity index: %w", err)
	}
	// The committed run's chunking (reports align on its main windows).
	params := e.params()
	tpl, err := loadTemplates(ctx, e.pool, params, 0)
	if err != nil {
		return st, fmt.Errorf("similarity index: %w", err)
	}
	// The run whose lists and texts the indexes are computed from: runs
	// take the master lock, so none commits while this one refreshes.
	run, err := store.LastCommittedRun(ctx, e.pool)
	if err != nil {
		return st, err
	}
	plan, err := planIndexes(ctx, e.pool)
	if err != nil {
		return st, err
	}
	// Three stages overlap: reading a batch's lists and texts, aligning
	// the previous batch, and storing the one before.
	g, gctx := errgroup.WithContext(ctx)
	docs := newDocCache(params, reportAlign(e.cfg, passage.Options{}), indexCacheBytes, plan.uses)
	loaded := make(chan indexLoad, 1)
	done := make(chan indexDone, 1)
	g.Go(func() error {
		defer close(loaded)
		return e.loadIndexBatches(gctx, plan, loaded, docs)
	})
	g.Go(func() error {
		defer close(done)
		for l := range loaded {
			idx, aligned, err := e.computeIndexes(gctx, l, ct, tpl, docs)
			if err != nil {
				return err
			}
			select {
			case done <- indexDone{ids: l.ids, idx: idx, aligned: aligned}:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	g.Go(func() error {
		lastLog := time.Now()
		for d := range done {
			if err := storeIndexes(gctx, e, run, d.ids, d.idx); err != nil {
				return err
			}
			st.Computed += len(d.idx)
			st.Dropped += len(d.ids) - len(d.idx)
			st.Sources += d.aligned
			if time.Since(lastLog) >= 10*time.Second {
				lastLog = time.Now()
				e.log.Info().Int("done", st.Computed+st.Dropped).Int("queued", total).
					Dur("elapsed_ms", time.Since(start)).Msg("computing similarity indexes")
			}
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return st, err
	}
	st.Took = time.Since(start)
	st.Tokenised = docs.tokenised
	return st, nil
}

// indexLoad is one batch of queued documents with what their reports
// need: their lists and the texts of the documents and their sources.
type indexLoad struct {
	ids   []int64
	lists map[int64][]store.SimilarRow
	texts map[int64]storedText
}

// indexDone is one batch computed.
type indexDone struct {
	ids     []int64
	idx     []docIndex
	aligned int
}

// loadIndexBatches takes the queued documents in the plan's order, in
// batches of indexBatch, reads each batch's texts, and hands them on with
// their lists (the plan's). The texts docs holds (documents of earlier
// batches, sources of earlier reports) are not read again: no run commits
// during the refresh. Documents queued after the plan was made (header
// edits) wait for the next refresh.
func (e *Engine) loadIndexBatches(ctx context.Context, plan indexPlan, out chan<- indexLoad, docs *docCache) error {
	for start := 0; start < len(plan.order); start += indexBatch {
		ids := plan.order[start:min(start+indexBatch, len(plan.order))]
		lists := make(map[int64][]store.SimilarRow, len(ids))
		for _, id := range ids {
			if l, ok := plan.lists[id]; ok {
				lists[id] = l
			}
		}
		need := slices.Clone(ids)
		for _, l := range lists {
			for _, r := range l {
				need = append(need, r.OtherID)
			}
		}
		slices.Sort(need)
		need = slices.Compact(need)
		texts, err := storedTextsKnowing(ctx, e.pool, need, docs.texts(need))
		if err != nil {
			return err
		}
		select {
		case out <- indexLoad{ids: ids, lists: lists, texts: texts}:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// docIndex is one document's computed index.
type docIndex struct {
	id  int64
	idx report.Index
}

// computeIndexes computes the index of each document of a batch that has
// a stored text, a report per document as Passages makes it, documents
// spread over the cores. It returns them in the order of the batch, and
// the number of sources aligned. A document without a source has index 0
// and nothing to align.
func (e *Engine) computeIndexes(ctx context.Context, l indexLoad, ct *CommonText, tpl *templateSet, docs *docCache) ([]docIndex, int, error) {
	ids, lists, texts := l.ids, l.lists, l.texts
	out := make([]docIndex, len(ids))
	have := make([]bool, len(ids))
	aligned := make([]int, len(ids))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, id := range ids {
		doc, ok := texts[id]
		if !ok || doc.body == nil {
			continue // deleted or failed since it was queued: no index
		}
		srcs := sourceReports(lists[id], texts)
		if len(srcs) == 0 {
			out[i], have[i] = docIndex{id: id}, true // what report.Index says of a report without sources
			continue
		}
		g.Go(func() error {
			// The document's own Doc from the cache too: it is often a
			// source of another document of the refresh.
			opt := report.Options{SourceDoc: docs.get, TextDoc: docs.get(id, *doc.body), Align: docs.align}
			ct.applyMembership(&opt)
			tpl.applyTemplates(&opt, doc.head.Kind)
			rep := report.Build(ctx, docs.p, *doc.body, srcs, opt)
			rep.Doc, rep.Header = id, doc.head
			out[i], have[i], aligned[i] = docIndex{id: id, idx: rep.Index()}, true, len(srcs)
			return ctx.Err()
		})
	}
	if err := g.Wait(); err != nil {
		return nil, 0, err
	}
	kept := out[:0]
	n := 0
	for i := range out {
		if have[i] {
			kept = append(kept, out[i])
			n += aligned[i]
		}
	}
	return kept, n, nil
}

// sourceReports are the sources of a similarity list whose texts are
// stored, in rank order, with their figures: the sources a report aligns.
func sourceReports(rows []store.SimilarRow, texts map[int64]storedText) []report.SourceReport {
	srcs := make([]report.SourceReport, 0, len(rows))
	for _, r := range rows {
		t, ok := texts[r.OtherID]
		if !ok || t.body == nil {
			continue // deleted since the run, or its text is gone
		}
		rev := 0.0
		if t.chunks > 0 {
			rev = float64(r.Shared) / float64(t.chunks)
		}
		s := t.source(r.OtherID)
		s.Similarity, s.Reverse, s.Shared = r.Similarity, rev, r.Shared
		srcs = append(srcs, s)
	}
	return srcs
}

// storeIndexes writes the computed indexes of a batch and takes the whole
// batch off the queue, in one transaction. It holds the commit lock (as a
// run's commit does) so that no hard delete is under way: the rows of
// documents deleted meanwhile are skipped, never a foreign-key error.
func storeIndexes(ctx context.Context, e *Engine, run int64, batch []int64, idx []docIndex) error {
	ids := make([]int64, len(idx))
	vals := make([]float64, len(idx))
	srcs := make([]int32, len(idx))
	vers := make([]int32, len(idx))
	tops := make([]*int64, len(idx))
	shares := make([]float64, len(idx))
	for i, d := range idx {
		ids[i], vals[i], srcs[i], vers[i], shares[i] = d.id, d.idx.Value, int32(d.idx.Sources), int32(d.idx.Versions), d.idx.TopShare
		if d.idx.Top != 0 {
			top := d.idx.Top
			tops[i] = &top
		}
	}
	return inTx(ctx, e.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `select pg_advisory_xact_lock($1, $2)`,
			int32(migrations.LockNamespace), int32(migrations.LockKeyCommit)); err != nil {
			return fmt.Errorf("take the commit lock: %w", err)
		}
		if _, err := tx.Exec(ctx, `delete from similarity_index where doc_id = any($1)`, batch); err != nil {
			return fmt.Errorf("store similarity indexes: %w", err)
		}
		if _, err := tx.Exec(ctx, `
			insert into similarity_index (doc_id, run_id, value, sources, versions, top_source, top_share)
			select u.id, $7, u.value, u.sources, u.versions, u.top, u.share
			from unnest($1::bigint[], $2::float8[], $3::int[], $4::int[], $5::bigint[], $6::float8[])
				as u(id, value, sources, versions, top, share)
			join documents d on d.id = u.id`,
			ids, vals, srcs, vers, tops, shares, run); err != nil {
			return fmt.Errorf("store similarity indexes: %w", err)
		}
		if _, err := tx.Exec(ctx, `delete from plagd_index_queue where doc_id = any($1)`, batch); err != nil {
			return fmt.Errorf("take similarity indexes off the queue: %w", err)
		}
		return nil
	})
}

// refreshAfterRun refreshes the similarity index after a run (or a run
// that found nothing pending), logging what it did.
func (e *Engine) refreshAfterRun(ctx context.Context, rep *RunReport, log zerolog.Logger) error {
	st, err := e.RefreshIndex(ctx)
	if st.Computed+st.Dropped > 0 {
		rep.Phases["index"] = st.Took
		rep.Indexes = st.Computed
		log.Info().Int("computed", st.Computed).Int("sources_aligned", st.Sources).Int("texts_tokenised", st.Tokenised).
			Dur("elapsed_ms", st.Took).Msg("similarity indexes stored")
	}
	return err
}
