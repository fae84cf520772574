package daemon

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sync/errgroup"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/invindex"
	"github.com/plagd/plagd/neardup"
	"github.com/plagd/plagd/termstat"
)

// nearDupUpdate is what a run writes to simhashes in its commit, so that the
// hashes stay in step with the index: the documents it indexed get a hash,
// the ones that left the index (failed, deleted) lose theirs.
type nearDupUpdate struct {
	model   *nearModel // a model built by this run (stored at commit), or nil
	version int64      // the model the rows are hashed with
	rows    []simhashRow
	drop    []int64
}

type simhashRow struct {
	id   int64
	hash uint64
	W    neardup.Weights
}

// Near-duplicate model rebuilding. A model is rebuilt in every full run and
// when the archive has doubled or halved since the last one, so over a
// growing archive the rehashing costs O(log N) full passes in all.
const (
	// realPairSimilarity: two documents are near-duplicates for learning the
	// flip distribution when each shares at least this share of its chunks
	// with the other (both asymmetric similarities).
	realPairSimilarity = 0.8
	maxRealPairs       = 2000
	// minRealPairs: with fewer real pairs, edited copies of sampled
	// documents are added so the distribution is not learned from noise.
	minRealPairs = 200
	synthPairs   = 1000
)

// nearDupPhase hashes what the run indexed and, when due, rebuilds the model
// first. It reads the texts the run staged (and, for a rebuild, the stored
// texts of unchanged documents) back from PostgreSQL: the chunking path
// stays unaware of simhash, at the cost of a second read of the run's texts.
func (e *Engine) nearDupPhase(ctx context.Context, runID int64, full bool, out *cluster.Outcome) (*nearDupUpdate, error) {
	cur, err := loadNearModel(ctx, e.pool)
	if err != nil {
		return nil, err
	}
	rd, err := e.runDocs(ctx, full, out)
	if err != nil {
		return nil, err
	}
	u := &nearDupUpdate{version: cur.Version, drop: rd.gone}
	indexed, others := rd.indexed, rd.others
	n := len(indexed) + len(others)
	rebuild := full || cur.Version == 0 || n >= 2*max(cur.Docs, 1) || 2*n < cur.Docs
	m := cur
	if rebuild {
		t := time.Now()
		if m, err = e.buildNearModel(ctx, runID, indexed, others); err != nil {
			return nil, err
		}
		u.model = m
		e.log.Info().Int64("run", runID).Int("docs", m.Docs).Int("sample_docs", m.SampleDocs).
			Int("features", m.idf.Len()).Int("pairs_real", m.PairsReal).Int("pairs_synth", m.PairsSynth).
			Dur("took", time.Since(t)).Msg("near-duplicate model rebuilt; every document is rehashed")
	}
	u.rows, err = e.hashTexts(ctx, runID, m, indexed, true)
	if err == nil && rebuild {
		var more []simhashRow
		more, err = e.hashTexts(ctx, runID, m, others, false)
		u.rows = append(u.rows, more...)
	}
	return u, err
}

// runDocuments sorts the documents a run's derived tables (simhashes,
// related vectors) must follow.
type runDocuments struct {
	indexed []int64 // (re)indexed by this run: their texts are in its stage
	gone    []int64 // left the index: failed in this run, or deleted
	others  []int64 // indexed before and untouched by this run (none in a full run)
}

// runDocs lists them, ascending.
func (e *Engine) runDocs(ctx context.Context, full bool, out *cluster.Outcome) (runDocuments, error) {
	var rd runDocuments
	var touched []int64
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

// hashTexts hashes the texts of ids, staged by this run or stored, on all
// cores. A document without a text there is skipped.
func (e *Engine) hashTexts(ctx context.Context, runID int64, m *nearModel, ids []int64, staged bool) ([]simhashRow, error) {
	return mapTexts(ctx, e, runID, ids, staged, func() func(idText) simhashRow {
		h := m.hasher(e.cfg.Params())
		return func(t idText) simhashRow {
			hash, W := h.hash(t.text)
			return simhashRow{id: t.id, hash: hash, W: W}
		}
	})
}

// mapTexts streams the texts of ids (eachText) to one worker per core and
// returns what each worker's function made of them, in no particular order.
// newFn makes one function per worker, so that it can own its buffers.
func mapTexts[T any](ctx context.Context, e *Engine, runID int64, ids []int64, staged bool, newFn func() func(idText) T) ([]T, error) {
	workers := runtime.GOMAXPROCS(0)
	parts := make([][]T, workers)
	texts := make(chan idText, 4*workers)
	var g errgroup.Group
	for w := range workers {
		g.Go(func() error {
			fn := newFn()
			for t := range texts {
				parts[w] = append(parts[w], fn(t))
			}
			return nil
		})
	}
	err := e.eachText(ctx, runID, ids, staged, func(t idText) error {
		select {
		case texts <- t:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	close(texts)
	g.Wait()
	var out []T
	for _, p := range parts {
		out = append(out, p...)
	}
	return out, err
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
		return fmt.Errorf("read texts to hash: %w", err)
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
		return fmt.Errorf("read texts to hash: %w", err)
	}
	return nil
}

// buildNearModel counts word document frequencies over a random sample of
// the indexed documents (IDF needs no more: a word's weight is a logarithm
// of a ratio that a sample of thousands estimates well) and learns the flip
// distribution from near-duplicate pairs: pairs the chunk index already
// found (both similarities >= realPairSimilarity), topped up with edited
// copies of sampled documents when the archive has too few.
func (e *Engine) buildNearModel(ctx context.Context, runID int64, indexed, others []int64) (*nearModel, error) {
	m := &nearModel{Docs: len(indexed) + len(others)}
	r := rand.New(rand.NewPCG(uint64(runID), 0x9e3779b97f4a7c15)) // reproducible per run
	sampleSize := e.cfg.NearDup.SampleDocs
	pickI, pickO := sample(r, indexed, others, sampleSize)
	df := termstat.NewDocFreq()
	tok := invindex.NewTokenizer(e.cfg.Params())
	var words []invindex.Word
	var fs []neardup.Feature
	var sampled []idText // kept for synthetic pairs
	keep := func(t idText) error {
		words = tok.Words(t.text, words[:0])
		fs = neardup.TermCounts(words, fs[:0])
		df.Add(fs)
		if len(sampled) < synthPairs {
			sampled = append(sampled, t)
		}
		return nil
	}
	if err := e.eachText(ctx, runID, pickI, true, keep); err != nil {
		return nil, err
	}
	if err := e.eachText(ctx, runID, pickO, false, keep); err != nil {
		return nil, err
	}
	m.SampleDocs = df.Docs
	m.idf = df.Freeze()

	h := m.hasher(e.cfg.Params())
	pairs, err := e.realPairs(ctx, h)
	if err != nil {
		return nil, err
	}
	m.PairsReal = len(pairs)
	if len(pairs) < minRealPairs {
		for _, t := range sampled {
			words = tok.Words(t.text, words[:0])
			if len(words) < 20 {
				continue
			}
			a := neardup.TermCounts(words, nil)
			_, wa := neardup.Simhash(a, m.IDF())
			b := neardup.TermCounts(editWords(r, words), nil)
			_, wb := neardup.Simhash(b, m.IDF())
			pairs = append(pairs, neardup.Pair{A: &wa, B: &wb})
			m.PairsSynth++
		}
	}
	m.Flip = neardup.LearnFlipModel(pairs)
	return m, nil
}

// sample draws up to n of the documents in a and b together, uniformly.
func sample(r *rand.Rand, a, b []int64, n int) (fromA, fromB []int64) {
	total := len(a) + len(b)
	if total <= n {
		return a, b
	}
	for _, i := range r.Perm(total)[:n] {
		if i < len(a) {
			fromA = append(fromA, a[i])
		} else {
			fromB = append(fromB, b[i-len(a)])
		}
	}
	slices.Sort(fromA)
	slices.Sort(fromB)
	return fromA, fromB
}

// realPairs returns the weights of document pairs the committed index says
// are near-duplicates of each other.
func (e *Engine) realPairs(ctx context.Context, h *hasher) ([]neardup.Pair, error) {
	rows, err := e.pool.Query(ctx, `
		select a.doc_id, a.other_id from similarities a
		join similarities b on b.doc_id = a.other_id and b.other_id = a.doc_id
		where a.doc_id < a.other_id and a.similarity >= $1 and b.similarity >= $1
		order by a.doc_id, a.other_id limit $2`, realPairSimilarity, maxRealPairs)
	if err != nil {
		return nil, fmt.Errorf("find near-duplicate pairs: %w", err)
	}
	type pair struct{ a, b int64 }
	ps, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (pair, error) {
		var p pair
		return p, r.Scan(&p.a, &p.b)
	})
	if err != nil {
		return nil, fmt.Errorf("find near-duplicate pairs: %w", err)
	}
	var ids []int64
	for _, p := range ps {
		ids = append(ids, p.a, p.b)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	weights := make(map[int64]*neardup.Weights, len(ids))
	if err := e.eachText(ctx, 0, ids, false, func(t idText) error {
		_, W := h.hash(t.text)
		weights[t.id] = &W
		return nil
	}); err != nil {
		return nil, err
	}
	var out []neardup.Pair
	for _, p := range ps {
		if wa, wb := weights[p.a], weights[p.b]; wa != nil && wb != nil {
			out = append(out, neardup.Pair{A: wa, B: wb})
		}
	}
	return out, nil
}

// editWords is a near-duplicate of a text for learning: about 5% of the
// words dropped, 2% replaced by other words of the text, and one passage of
// about 3% moved, the kinds of change a resubmitted essay shows.
func editWords(r *rand.Rand, ws []invindex.Word) []invindex.Word {
	out := make([]invindex.Word, 0, len(ws))
	for _, w := range ws {
		switch x := r.Float64(); {
		case x < 0.05:
		case x < 0.07:
			out = append(out, ws[r.IntN(len(ws))])
		default:
			out = append(out, w)
		}
	}
	if span := len(out) * 3 / 100; span > 0 && len(out) > 2*span {
		i := r.IntN(len(out) - span)
		moved := slices.Clone(out[i : i+span])
		out = slices.Delete(out, i, i+span)
		j := r.IntN(len(out) + 1)
		out = slices.Insert(out, j, moved...)
	}
	return out
}

// write stores the update inside the run's commit transaction. Rows go
// through a temporary table and an upsert, because an upload may insert the
// hash of a pending document at the same moment (Record).
func (u *nearDupUpdate) write(ctx context.Context, tx pgx.Tx, runID int64) error {
	if u.model != nil {
		if err := insertNearModel(ctx, tx, runID, u.model); err != nil {
			return err
		}
		u.version = u.model.Version
	}
	if _, err := tx.Exec(ctx, `delete from simhashes where doc_id = any($1)`, u.drop); err != nil {
		return fmt.Errorf("drop simhashes of documents that left the index: %w", err)
	}
	if _, err := tx.Exec(ctx, `create temp table simhash_stage (doc_id bigint, hash bigint, weights bytea) on commit drop`); err != nil {
		return fmt.Errorf("stage simhashes: %w", err)
	}
	src := pgx.CopyFromSlice(len(u.rows), func(i int) ([]any, error) {
		r := &u.rows[i]
		return []any{r.id, int64(r.hash), encodeWeights(&r.W)}, nil
	})
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"simhash_stage"}, []string{"doc_id", "hash", "weights"}, src); err != nil {
		return fmt.Errorf("stage simhashes: %w", err)
	}
	if _, err := tx.Exec(ctx, `
		insert into simhashes (doc_id, hash, weights, model, run_id)
		select s.doc_id, s.hash, s.weights, $1, $2 from simhash_stage s join documents d on d.id = s.doc_id
		on conflict (doc_id) do update set hash = excluded.hash, weights = excluded.weights,
			model = excluded.model, run_id = excluded.run_id, seq = nextval('simhashes_seq')`,
		u.version, runID); err != nil {
		return fmt.Errorf("store simhashes: %w", err)
	}
	if u.model != nil {
		// Hashes of the old model are useless now: documents no longer
		// indexed and pending uploads (the next run hashes those again).
		if _, err := tx.Exec(ctx, `delete from simhashes where model <> $1`, u.version); err != nil {
			return fmt.Errorf("drop simhashes of the old model: %w", err)
		}
	}
	return nil
}
