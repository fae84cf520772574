package engine

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/related"
	"github.com/plagd/plagd/termstat"
)

// relatedUpdate is what a run writes to the related-documents tables in its
// commit: the vectors of the documents it indexed (all of them when the
// model is rebuilt), and the lists it recomputed or extended.
type relatedUpdate struct {
	model   *related.Model // rebuilt by this run (stored at commit), or nil
	docs    int            // indexed documents, stored with a new model
	version int64          // the model the vectors are made with
	vectors []relatedVector
	drop    []int64 // documents that left the index: no vector, no list
	all     bool    // every list is replaced (a rebuild)
	// lists are the lists whose rows the commit writes: the top k of
	// every list the run recomputed or patched.
	lists map[int64][]relatedRow
	// held are the same lists down to depth, k plus related.margin, as
	// the engine keeps them for the next run, including those whose top k
	// did not change but whose margin did (an incremental run's: a
	// rebuild's go straight into state.lists).
	held     map[int64]heldList
	k, depth int
	// state is every vector after the run, ascending by document, kept by
	// the engine for the next incremental run once this one has committed.
	state *relatedState
	stats relatedStats
	// joining is the run's join while it runs (a rebuild's self join, or
	// an incremental run's lists): it overlaps the commit's other writes
	// (commitRun writes this update last), and Write waits for it.
	joining *pendingJoin
	// wroteEarly: the commit wrote the model and vectors (writeEarly)
	// before it waited for the join.
	wroteEarly bool
	// released counts what still needs a rebuild's hashed vectors: the
	// commit's copy of them into related_vectors and the self join's
	// numbering. The second to be done drops them (releaseHashed).
	released atomic.Int32
}

// releaseHashed is called once the commit has written the vectors and
// once the self join has numbered them: the second call drops the hashed
// vectors, which the joins no longer read and the next run rebuilds from
// the numbered ones where it needs them (relatedState.shed). At 1M
// documents that is 2.2 GB the self join no longer holds for its 20
// minutes.
func (u *relatedUpdate) releaseHashed() {
	if u.released.Add(1) == 2 && u.state != nil {
		u.state.shed()
	}
}

// relatedJoinHold, set by a test, holds a run's join until it is closed
// or the join is cancelled: the commit then fails or waits with the join
// still running.
var relatedJoinHold chan struct{}

// pendingJoin is a join running in its own goroutine.
type pendingJoin struct {
	done   chan struct{} // closed when the join has returned
	err    error         // its error, once done is closed
	took   time.Duration // its time, once done is closed
	cancel context.CancelFunc
}

type relatedVector struct {
	id   int64
	lang related.Lang
	v    related.Vector
}

type relatedRow struct {
	other  int64
	cosine float32
}

// relatedState is the archive's vectors as of one committed run: what an
// incremental run joins its new documents with, so that it need not read
// every vector back from PostgreSQL.
type relatedState struct {
	run     int64
	version int64
	ids     []int64 // ascending
	vecs    []related.Vector
	// at finds a document's place in ids without a binary search, when
	// the ids are dense enough (denseIndex).
	at denseIndex
	// lists are the related lists as committed, each down to its margin,
	// lists[i] that of ids[i], when known (nil: read them from the table,
	// where they end at k). A slice beside ids rather than a map: an
	// incremental run reads every list and makes the next run's, and at
	// 1M documents copying a million-entry map twice per run was a
	// noticeable part of its related phase (its CPU profile).
	lists []heldList
	// dict and docs are vecs numbered for the exact joins (related.Dict),
	// when a join on this process made them: the next incremental run
	// converts only its batch.
	dict *related.Dict
	docs []related.Doc
}

// heldList is a related list as the engine holds it between runs: its
// members best first, down to k plus related.margin when it was joined
// with the whole archive. An incremental run that takes a member
// away (a changed or deleted document) refills the list from the margin; it
// joins the document with the whole archive again only when the margin is
// used up. cut is set when documents ranking after the last member may be
// missing (the join stopped at the list's depth).
type heldList struct {
	rows []relatedRow
	cut  bool
}

// relatedStats are logged with the run.
type relatedStats struct {
	Method  string // exact or zolip (a full recomputation), or incremental
	Queries int    // documents whose list was joined against the whole archive
	// Patched are the held lists an incremental run patched without a
	// join; Rejoined those it could not prove exact (their margin ran
	// out), joined again with the whole archive.
	Patched, Rejoined int
	// Index is the time spent numbering (and, for a self join, indexing)
	// the archive's vectors, Join the time of the joins with it.
	Index, Join time.Duration
	// NumberingKept: the archive's vectors were numbered by an earlier
	// run, only the batch's converted anew (relatedState.numbered).
	NumberingKept bool
	// Waited is how long the commit waited for the join once it had
	// written everything else, Write how long it took to write the lists.
	Waited, Write time.Duration
}

// relatedPhase computes the vectors of what the run indexed and updates the
// related lists. A rebuild (full run, or an archive that doubled or halved
// since the model) recounts document frequencies over a sample, revectors
// every document and recomputes every list with related.method. An
// incremental run keeps the lists exact for what it touched
// (incrementalLists): its new and changed documents get their lists by an
// exact join against the whole archive, and every other list that gains a
// new document or held a changed or removed one is patched, or recomputed
// when the patch cannot be proven exact.
type relatedPhase struct {
	e      *Engine
	m      *related.Model
	langs  []related.Lang
	u      *relatedUpdate
	fresh  []relatedVector // vectors of the run's texts
	stored []relatedVector // vectors of unchanged documents' texts (a rebuild)
	// A rebuild counts the model's document frequencies in the run's one
	// text pass: the workers keep every document's terms (counted), and
	// Finish builds the model from those of the sample, then the vectors.
	rebuild *relatedRebuild
	mu      sync.Mutex
	lent    []*related.Analyzer // taken from the engine's shelf by the workers, given back in Finish
	remote  int64               // e.relatedRemote when the phase began
}

// relatedRebuild is a model rebuild under way: the documents whose terms
// the model counts, and every document's terms, seen in the text pass.
type relatedRebuild struct {
	start  time.Time
	sample map[int64]bool
	terms  []relatedTerms
}

type relatedTerms struct {
	id     int64
	lang   related.Lang
	stored bool
	terms  related.PackedCounts // half the memory of []TermCount until the model exists
}

func (p *relatedPhase) Name() string { return "related" }

// Prepare loads the model, or rebuilds it when due.
func (p *relatedPhase) Prepare(ctx context.Context, r *RunState) (bool, error) {
	p.remote = p.e.relatedRemote.Load()
	cur, err := loadRelatedModel(ctx, p.e.pool)
	if err != nil {
		return false, err
	}
	if p.langs, err = p.e.cfg.Related.Langs(); err != nil {
		return false, err
	}
	rd := r.Docs
	cfg := p.e.cfg.Related
	p.u = &relatedUpdate{version: cur.Version, drop: rd.gone, lists: map[int64][]relatedRow{}, held: map[int64]heldList{},
		k: cfg.K, depth: cfg.K + cfg.Margin}
	n := len(rd.indexed) + len(rd.others)
	p.m = cur.Model
	// (A model of another cut than configured is never found here:
	// related.max_terms is one of the settings, so the run after it
	// changed is full.)
	if r.Full || cur.Version == 0 || related.NeedsRebuild(cur.ArchiveDocs, n) {
		p.rebuild = &relatedRebuild{start: time.Now(), sample: p.e.relatedSample(r.ID, rd)}
		p.u.docs, p.u.all = n, true
	}
	return p.u.all, nil
}

// Worker analyses each text (language, stop words, stems) and makes its
// TF-IDF vector under the model.
func (p *relatedPhase) Worker() func(*DocText) {
	a := p.e.analyzers.take(p.langs)
	p.mu.Lock()
	p.lent = append(p.lent, a)
	p.mu.Unlock()
	var packer *related.CountPacker // this worker's: packing takes no lock
	return func(t *DocText) {
		l, terms := a.Analyze(t.Text)
		if b := p.rebuild; b != nil {
			if packer == nil {
				packer = related.NewCountPacker()
			}
			packed := packer.Pack(terms)
			p.mu.Lock()
			b.terms = append(b.terms, relatedTerms{id: t.ID, lang: l, stored: t.Stored, terms: packed})
			p.mu.Unlock()
			return
		}
		v := relatedVector{id: t.ID, lang: l, v: docVector(p.m, terms)}
		p.mu.Lock()
		if t.Stored {
			p.stored = append(p.stored, v)
		} else {
			p.fresh = append(p.fresh, v)
		}
		p.mu.Unlock()
	}
}

// Finish joins the vectors into lists: every list after a rebuild, the
// touched ones otherwise.
//
// The joins run on in their own goroutine while the commit writes the
// similarities, the texts and the other features' tables, which keep
// PostgreSQL busy and leave a core idle, and the update's Write waits for
// them. A rebuild's self join, every pair of the archive, is the phase's
// largest part (16 s of a full run of 100,000 documents); an incremental
// run's join of its batch with the archive is half of its related phase
// at 1M documents (docs/PERFORMANCE.md).
func (p *relatedPhase) Finish(ctx context.Context, r *RunState) (Update, error) {
	u := p.u
	p.e.analyzers.give(p.lent) // the text pass is over
	p.lent = nil
	if p.rebuild != nil {
		p.rebuildModel(r.ID)
	}
	u.vectors = p.fresh
	if u.all {
		u.vectors = append(u.vectors, p.stored...)
		// The update holds the vectors from here (the phase lives on in
		// the join's goroutine): the hashed vectors can then be dropped
		// once written and numbered (releaseHashed).
		p.fresh, p.stored = nil, nil
		st := newRelatedState(r.ID, u.vectors)
		u.state = st
		p.goJoin(ctx, r.ID, func(ctx context.Context) error { return p.e.selfJoin(ctx, u, st) })
		return u, nil
	}
	fresh := slices.Clone(p.fresh)
	slices.SortFunc(fresh, byDocument)
	p.goJoin(ctx, r.ID, func(ctx context.Context) error {
		old, err := p.e.relatedVectors(ctx, u.version, r.Docs.others)
		if err != nil {
			return err
		}
		st := newRelatedState(r.ID, mergeVectors(old, fresh))
		u.state = st
		return p.e.incrementalLists(ctx, u, st, r.Docs, r.changes.lostRelated)
	})
	return u, nil
}

// goJoin runs join in its own goroutine as the update's pending join.
func (p *relatedPhase) goJoin(ctx context.Context, runID int64, join func(context.Context) error) {
	jctx, cancel := context.WithCancel(ctx)
	j := &pendingJoin{done: make(chan struct{}), cancel: cancel}
	p.u.joining = j
	hold := relatedJoinHold
	go func() {
		defer close(j.done)
		t := time.Now()
		if hold != nil {
			select {
			case <-hold:
			case <-jctx.Done():
			}
		}
		if j.err = join(jctx); j.err == nil {
			p.logUpdated(runID)
		}
		j.took = time.Since(t)
	}()
}

// logUpdated logs what the phase computed.
func (p *relatedPhase) logUpdated(runID int64) {
	u := p.u
	p.e.log.Info().Int64("run", runID).Str("method", u.stats.Method).Int("joined", u.stats.Queries).
		Int("patched", u.stats.Patched).Int("rejoined", u.stats.Rejoined).Int("lists_written", len(u.lists)).
		Dur("index_ms", u.stats.Index).Bool("numbering_kept", u.stats.NumberingKept).Dur("join_ms", u.stats.Join).Int64("on_nodes", p.e.relatedRemote.Load()-p.remote).
		Msg("related documents updated")
}

// wait waits for the update's join, if one is running: Write's first step.
func (u *relatedUpdate) wait(ctx context.Context) error {
	j := u.joining
	if j == nil {
		return nil
	}
	select {
	case <-j.done:
		return j.err
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// late: a running join makes the commit write this update after the others.
func (u *relatedUpdate) late() bool { return u.joining != nil }

// abandon stops the update's join if it still runs (the run failed before
// its commit waited for it) and waits for its goroutine to return.
func (u *relatedUpdate) abandon() {
	if j := u.joining; j != nil {
		j.cancel()
		<-j.done
	}
}

// Committed makes the run's vectors the engine's for the next run.
func (u *relatedUpdate) committed(e *Engine) {
	if u.state != nil {
		u.state.shed()
	}
	e.related = u.state
}

// report counts the lists the run patched and joined again, and the time
// of the run's join, which overlapped the commit ("related_join").
func (u *relatedUpdate) report(rep *RunReport) {
	rep.RelatedPatched, rep.RelatedRejoined = u.stats.Patched, u.stats.Rejoined
	if j := u.joining; j != nil {
		rep.Phases["related_join"] = j.took
		rep.Phases["related_wait"] = u.stats.Waited
	}
	rep.Phases["related_lists"] = u.stats.Write
}

func newRelatedState(run int64, vs []relatedVector) *relatedState {
	if !slices.IsSortedFunc(vs, byDocument) {
		slices.SortFunc(vs, byDocument)
	}
	st := &relatedState{run: run, ids: make([]int64, len(vs)), vecs: make([]related.Vector, len(vs))}
	for i, v := range vs {
		st.ids[i], st.vecs[i] = v.id, v.v
	}
	st.at = newDenseIndex(st.ids)
	return st
}

// shed drops the hashed vectors of st's documents once they are numbered
// (dict and docs), keeping their norms: the joins read the numbered ones,
// and the few hashed ones a later run needs are rebuilt from them
// (vector). An incremental run takes the vectors of the documents it did
// not change from here as they are, shed, and their numbering with them
// (numbered): every run that commits a state has numbered all of it.
func (st *relatedState) shed() {
	if st.dict == nil || len(st.docs) != len(st.vecs) {
		return
	}
	for i := range st.vecs {
		st.vecs[i] = related.Vector{Norm: st.vecs[i].Norm}
	}
}

// vector is document i's hashed vector, rebuilt from its numbered one
// when shed.
func (st *relatedState) vector(i int) related.Vector {
	if v := st.vecs[i]; v.Terms != nil || st.dict == nil || len(st.docs) != len(st.vecs) {
		return v
	}
	return st.dict.Vector(st.docs[i])
}

// hashed is every vector of st hashed (vector), for a join on node
// processes, which number the terms themselves.
func (st *relatedState) hashed() []related.Vector {
	out := make([]related.Vector, len(st.vecs))
	for i := range out {
		out[i] = st.vector(i)
	}
	return out
}

// index is the position of document id in st, or -1.
func (st *relatedState) index(id int64) int {
	if i, known := st.at.find(id); known {
		return i
	}
	if i, ok := slices.BinarySearch(st.ids, id); ok {
		return i
	}
	return -1
}

func byDocument(a, b relatedVector) int { return cmp.Compare(a.id, b.id) }

// selfJoin recomputes every list: every document a query against all.
func (e *Engine) selfJoin(ctx context.Context, u *relatedUpdate, st *relatedState) error {
	cfg := e.cfg.Related
	method := cfg.Method
	u.stats.Method, u.stats.Queries = method, len(st.ids)
	e.log.Debug().Str("method", method).Int("queries", len(st.ids)).Msg("related self join started")
	same := make([]int32, len(st.ids))
	for i := range same {
		same[i] = int32(i)
	}
	var lists [][]related.Neighbor
	var err error
	if method == "exact" && len(e.relatedClients()) == 0 {
		lists, err = exactSelfHere(ctx, e.log, st, u.depth, &u.stats, u.releaseHashed)
	} else {
		vecs := st.hashed()
		lists, err = e.joinRelated(ctx, cluster.RelatedJob{K: u.depth, Method: method, Lambda: cfg.Lambda, Sigma: cfg.Sigma,
			Data: vecs, Queries: vecs, Same: same})
	}
	if err != nil {
		return err
	}
	st.lists = make([]heldList, len(lists))
	for i, l := range lists {
		rows := rowsOf(st, l)
		st.lists[i] = u.heldOf(rows)
		u.lists[st.ids[i]] = rows[:min(u.k, len(rows))]
	}
	return nil
}

// set makes rows, a list joined with the whole archive down to u.depth,
// the list of document id: held in full, written down to k.
func (u *relatedUpdate) set(id int64, rows []relatedRow) {
	u.held[id] = u.heldOf(rows)
	u.lists[id] = rows[:min(u.k, len(rows))]
}

// heldOf is rows, a list joined with the whole archive down to u.depth,
// as held: cut when the join may have stopped before its end.
func (u *relatedUpdate) heldOf(rows []relatedRow) heldList {
	return heldList{rows: rows, cut: len(rows) >= u.depth}
}

func rowsOf(st *relatedState, l []related.Neighbor) []relatedRow {
	rows := make([]relatedRow, len(l))
	for j, nb := range l {
		rows[j] = relatedRow{other: st.ids[nb.Doc], cosine: nb.Sim}
	}
	return rows
}

// relatedSample picks the documents whose terms the model counts: a random
// sample of neardup.sample_docs (10,000) indexed documents, seeded by the
// run.
func (e *Engine) relatedSample(runID int64, rd runDocuments) map[int64]bool {
	r := rand.New(rand.NewPCG(uint64(runID), 0x2545f4914f6cdd1d))
	pickI, pickO := sample(r, rd.indexed, rd.others, e.cfg.NearDup.SampleDocs)
	out := make(map[int64]bool, len(pickI)+len(pickO))
	for _, id := range append(slices.Clone(pickI), pickO...) {
		out[id] = true
	}
	return out
}

// rebuildModel builds the model from the sampled documents' terms counted
// in the text pass and makes every document's vector under it, on all
// cores. (The model used to be counted in a pass of its own over the
// sample before the text pass: the same model, with the sample's texts
// read and analysed twice; a fifth of a full run's related phase.)
func (p *relatedPhase) rebuildModel(runID int64) {
	b := p.rebuild
	workers := runtime.GOMAXPROCS(0)
	df := termstat.NewDocFreq()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			local := termstat.NewDelta()
			var buf []related.TermCount
			for i := w; i < len(b.terms); i += workers {
				if t := &b.terms[i]; b.sample[t.id] {
					buf = t.terms.Unpack(buf)
					local.Add(buf)
				}
			}
			mu.Lock()
			df.Apply(local)
			mu.Unlock()
		})
	}
	wg.Wait()
	p.m = related.NewModel(0, df, relatedMaxDFShare(df.Docs))
	p.m.MaxTerms = relatedMaxTerms(p.e.cfg.Related.MaxTerms, df.Docs)
	p.u.model = p.m
	vs := make([]relatedVector, len(b.terms))
	for w := range workers {
		wg.Go(func() {
			var buf []related.TermCount
			for i := w; i < len(vs); i += workers {
				t := &b.terms[i]
				buf = t.terms.Unpack(buf)
				vs[i] = relatedVector{id: t.id, lang: t.lang, v: docVector(p.m, buf)}
				t.terms = related.PackedCounts{} // the counts are no longer needed: free them as we go
			}
		})
	}
	wg.Wait()
	for i, t := range b.terms {
		if t.stored {
			p.stored = append(p.stored, vs[i])
		} else {
			p.fresh = append(p.fresh, vs[i])
		}
	}
	p.rebuild = nil
	p.e.log.Info().Int64("run", runID).Int("docs", len(vs)).Int("sample_docs", p.m.Docs).
		Dur("took_ms", time.Since(b.start)).Msg("related-documents model rebuilt; every document is revectored")
}

// writeEarly stores what does not wait for the join, inside the run's
// commit transaction: the model, when rebuilt, and the vectors (1.2-1.3 s
// of a full run of 100,000 documents, written while the self join still
// runs instead of after it).
func (u *relatedUpdate) writeEarly(ctx context.Context, tx pgx.Tx, runID int64) error {
	u.wroteEarly = true
	if u.model != nil {
		v, err := insertRelatedModel(ctx, tx, runID, u.docs, u.model)
		if err != nil {
			return err
		}
		u.version = v // (the rebuild's join does not read it)
		if _, err := tx.Exec(ctx, `truncate related_vectors`); err != nil {
			return fmt.Errorf("clear related documents: %w", err)
		}
		// The table was just emptied and no one else writes it: the
		// vectors go straight in, without a stage. Documents hard-deleted
		// during the run are late deletes, whose rows dropLate removes
		// before the deferred foreign keys are checked. At 100,000
		// documents the stage's COPY and insert took 2.4 and 4.2 s of the
		// full run's commit.
		if err := copyVectors(ctx, tx, u.vectors, u.version, runID); err != nil {
			return err
		}
		u.vectors = nil
		u.releaseHashed()
		return nil
	}
	if _, err := tx.Exec(ctx, `delete from related_vectors where doc_id = any($1)`, u.drop); err != nil {
		return fmt.Errorf("drop related vectors: %w", err)
	}
	if err := stageRows(ctx, tx, "related_vector_stage", []string{"doc_id bigint", "lang text", "terms bytea", "weights bytea", "norm real"},
		pgx.CopyFromSlice(len(u.vectors), func(i int) ([]any, error) {
			v := &u.vectors[i]
			tb, wb := encodeVector(v.v)
			return []any{v.id, v.lang.String(), tb, wb, v.v.Norm}, nil
		})); err != nil {
		return fmt.Errorf("stage related vectors: %w", err)
	}
	if _, err := tx.Exec(ctx, `
		insert into related_vectors (doc_id, lang, terms, weights, norm, model, run_id)
		select s.doc_id, s.lang, s.terms, s.weights, s.norm, $1, $2 from related_vector_stage s join documents d on d.id = s.doc_id
		on conflict (doc_id) do update set lang = excluded.lang, terms = excluded.terms, weights = excluded.weights,
			norm = excluded.norm, model = excluded.model, run_id = excluded.run_id`, u.version, runID); err != nil {
		return fmt.Errorf("store related vectors: %w", err)
	}
	return nil
}

// Write stores the lists inside the run's commit transaction, once the
// join is done; the commit has written the rest (writeEarly).
func (u *relatedUpdate) Write(ctx context.Context, tx pgx.Tx, runID int64) error {
	if !u.wroteEarly {
		if err := u.writeEarly(ctx, tx, runID); err != nil {
			return err
		}
	}
	t := time.Now()
	if err := u.wait(ctx); err != nil {
		return err
	}
	u.stats.Waited = time.Since(t)
	if u.state != nil {
		u.state.version = u.version
	}
	t = time.Now()
	err := u.writeLists(ctx, tx)
	u.stats.Write = time.Since(t)
	return err
}

// copyVectors writes vectors into the emptied related_vectors table.
func copyVectors(ctx context.Context, tx pgx.Tx, vs []relatedVector, version, runID int64) error {
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"related_vectors"}, []string{"doc_id", "lang", "terms", "weights", "norm", "model", "run_id"},
		pgx.CopyFromSlice(len(vs), func(i int) ([]any, error) {
			v := &vs[i]
			tb, wb := encodeVector(v.v)
			return []any{v.id, v.lang.String(), tb, wb, v.v.Norm, version, runID}, nil
		})); err != nil {
		return fmt.Errorf("store related vectors: %w", err)
	}
	return nil
}
