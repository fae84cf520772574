package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

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

// nearDupPhase hashes what the run indexed and, when due, rebuilds the
// model first (Prepare); a rebuild rehashes every indexed document, so it
// asks the text pass for the stored texts too.
type nearDupPhase struct {
	e  *Engine
	m  *nearModel
	u  *nearDupUpdate
	mu sync.Mutex
}

func (p *nearDupPhase) Name() string { return "neardup" }

// Prepare loads the model, or rebuilds it in a full run and when the
// archive has doubled or halved since it was built.
func (p *nearDupPhase) Prepare(ctx context.Context, r *RunState) (bool, error) {
	cur, err := loadNearModel(ctx, p.e.pool)
	if err != nil {
		return false, err
	}
	rd := r.Docs
	p.u = &nearDupUpdate{version: cur.Version, drop: rd.gone}
	n := len(rd.indexed) + len(rd.others)
	rebuild := r.Full || cur.Version == 0 || n >= 2*max(cur.Docs, 1) || 2*n < cur.Docs
	p.m = cur
	if rebuild {
		t := time.Now()
		if p.m, err = p.e.buildNearModel(ctx, r.ID, rd.indexed, rd.others); err != nil {
			return false, err
		}
		p.u.model = p.m
		p.e.log.Info().Int64("run", r.ID).Int("docs", p.m.Docs).Int("sample_docs", p.m.SampleDocs).
			Int("features", p.m.idf.Len()).Int("pairs_real", p.m.PairsReal).Int("pairs_synth", p.m.PairsSynth).
			Dur("took_ms", time.Since(t)).Msg("near-duplicate model rebuilt; every document is rehashed")
	}
	return rebuild, nil
}

// Worker hashes each text from the words the pass tokenised, weighed as
// every other path weighs them (nearModel.IDF: a model built over an empty
// archive weighs words alike, not by a table of nothing).
func (p *nearDupPhase) Worker() func(*DocText) {
	var fs []neardup.Feature
	idf := p.m.IDF()
	return func(t *DocText) {
		fs = neardup.TermCounts(t.Words, fs[:0])
		hash, W := neardup.Simhash(fs, idf)
		p.mu.Lock()
		p.u.rows = append(p.u.rows, simhashRow{id: t.ID, hash: hash, W: W})
		p.mu.Unlock()
	}
}

func (p *nearDupPhase) Finish(context.Context, *RunState) (Update, error) { return p.u, nil }

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

// Write stores the update inside the run's commit transaction. Rows go
// through a temporary table and an upsert, because an upload may insert the
// hash of a pending document at the same moment (Record).
func (u *nearDupUpdate) Write(ctx context.Context, tx pgx.Tx, runID int64) error {
	if u.model != nil {
		if err := insertNearModel(ctx, tx, runID, u.model); err != nil {
			return err
		}
		u.version = u.model.Version
	}
	if _, err := tx.Exec(ctx, `delete from simhashes where doc_id = any($1)`, u.drop); err != nil {
		return fmt.Errorf("drop simhashes of documents that left the index: %w", err)
	}
	src := pgx.CopyFromSlice(len(u.rows), func(i int) ([]any, error) {
		r := &u.rows[i]
		return []any{r.id, int64(r.hash), encodeWeights(&r.W)}, nil
	})
	if err := stageRows(ctx, tx, "simhash_stage", []string{"doc_id bigint", "hash bigint", "weights bytea"}, src); err != nil {
		return fmt.Errorf("stage simhashes: %w", err)
	}
	u.rows = nil // staged: a rebuild's hashes (0.5 GB at 1M documents) are not held while the commit waits for the related self join
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
