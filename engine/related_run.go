package engine

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sync/errgroup"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/related"
	"github.com/plagd/plagd/store"
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
	lists   map[int64][]relatedRow
	// state is every vector after the run, ascending by document, kept by
	// the engine for the next incremental run once this one has committed.
	state *relatedState
	stats relatedStats
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
	// lists are the related lists as committed, when known (nil: read
	// them from the table).
	lists map[int64][]relatedRow
}

// relatedStats are logged with the run.
type relatedStats struct {
	Method  string // exact or zolip (a full recomputation), or incremental
	Queries int    // documents whose list was joined against the whole archive
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
	mu     sync.Mutex
	remote int64 // e.relatedRemote when the phase began
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
	p.u = &relatedUpdate{version: cur.Version, drop: rd.gone, lists: map[int64][]relatedRow{}}
	n := len(rd.indexed) + len(rd.others)
	p.m = cur.Model
	if r.Full || cur.Version == 0 || related.NeedsRebuild(cur.ArchiveDocs, n) {
		t := time.Now()
		if p.m, err = p.e.buildRelatedModel(ctx, r.ID, rd, p.langs); err != nil {
			return false, err
		}
		p.u.model, p.u.docs, p.u.all = p.m, n, true
		p.e.log.Info().Int64("run", r.ID).Int("docs", n).Int("sample_docs", p.m.Docs).
			Dur("took", time.Since(t)).Msg("related-documents model rebuilt; every document is revectored")
	}
	return p.u.all, nil
}

// Worker analyses each text (language, stop words, stems) and makes its
// TF-IDF vector under the model.
func (p *relatedPhase) Worker() func(*DocText) {
	a := related.Analyzer{Candidates: p.langs}
	return func(t *DocText) {
		l, terms := a.Analyze(t.Text)
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
func (p *relatedPhase) Finish(ctx context.Context, r *RunState) (Update, error) {
	u := p.u
	defer func() {
		p.e.log.Info().Int64("run", r.ID).Str("method", u.stats.Method).Int("joined", u.stats.Queries).
			Int("lists_written", len(u.lists)).Int64("on_nodes", p.e.relatedRemote.Load()-p.remote).
			Msg("related documents updated")
	}()
	u.vectors = p.fresh
	if u.all {
		u.vectors = append(u.vectors, p.stored...)
		st := newRelatedState(r.ID, u.vectors)
		u.state = st
		if err := p.e.selfJoin(ctx, u, st); err != nil {
			return nil, err
		}
		st.lists = u.lists
		return u, nil
	}
	old, err := p.e.relatedVectors(ctx, u.version, r.Docs.others)
	if err != nil {
		return nil, err
	}
	st := newRelatedState(r.ID, append(old.vectors(), p.fresh...))
	u.state = st
	return u, p.e.incrementalLists(ctx, u, st, r.Docs, r.changes.lostRelated)
}

// Committed makes the run's vectors the engine's for the next run.
func (u *relatedUpdate) committed(e *Engine) { e.related = u.state }

func newRelatedState(run int64, vs []relatedVector) *relatedState {
	slices.SortFunc(vs, func(a, b relatedVector) int { return cmp.Compare(a.id, b.id) })
	st := &relatedState{run: run, ids: make([]int64, len(vs)), vecs: make([]related.Vector, len(vs))}
	for i, v := range vs {
		st.ids[i], st.vecs[i] = v.id, v.v
	}
	return st
}

// index is the position of document id in st, or -1.
func (st *relatedState) index(id int64) int {
	if i, ok := slices.BinarySearch(st.ids, id); ok {
		return i
	}
	return -1
}

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
	lists, err := e.joinRelated(ctx, cluster.RelatedJob{K: cfg.K, Method: method, Lambda: cfg.Lambda, Sigma: cfg.Sigma,
		Data: st.vecs, Queries: st.vecs, Same: same})
	if err != nil {
		return err
	}
	for i, l := range lists {
		u.lists[st.ids[i]] = rowsOf(st, l)
	}
	return nil
}

func rowsOf(st *relatedState, l []related.Neighbor) []relatedRow {
	rows := make([]relatedRow, len(l))
	for j, nb := range l {
		rows[j] = relatedRow{other: st.ids[nb.Doc], cosine: nb.Sim}
	}
	return rows
}

// incrementalLists updates the lists an incremental run touches, exactly.
//
// The run's new and changed documents get their lists by an exact join
// against the whole archive. Every other document B is joined with them
// (its top k among the batch, G) and its stored list L is patched: drop
// the members that changed or left, merge in G. The stored list is
// complete down to its k-th member (cosine τ, ties by document id; or
// entirely, when it holds fewer than k), so the patched list is exact when
// it holds k members none ranking after that k-th, or when L was
// complete; otherwise (a member left and nothing as good came in) B's list
// is recomputed against the whole archive. A
// list that lost a member to a hard delete ('lost_related') is not known
// to be complete.
func (e *Engine) incrementalLists(ctx context.Context, u *relatedUpdate, st *relatedState, rd runDocuments,
	lost []int64) error {
	u.stats.Method = "incremental"
	c := newListChange(st, rd, lost)
	prev, err := e.committedRelated(ctx, u.version)
	if err != nil {
		return err
	}
	// back[i]: what rest document i may gain, as batch positions.
	var back [][]related.Neighbor
	var stored map[int64][]relatedRow
	if len(e.relatedClients()) == 0 {
		back, stored, err = e.gainsHere(ctx, u, st, rd, c, prev)
	} else {
		back, err = e.gainsOnNodes(ctx, u, st, rd, c)
	}
	if err != nil || len(c.restIDs) == 0 {
		return err
	}
	// The lists to patch: those that gain, those that held a changed or
	// removed document, those that lost a member by cascade.
	holders, err := e.listHolders(ctx, append(slices.Clone(rd.indexed), rd.gone...))
	if err != nil {
		return err
	}
	touched := make(map[int64]bool, len(holders)+len(lost))
	for _, id := range append(holders, lost...) {
		touched[id] = true
	}
	if stored == nil {
		var read []int64
		for i, l := range back {
			if len(l) > 0 || touched[c.restIDs[i]] {
				read = append(read, c.restIDs[i])
			}
		}
		if stored, err = e.storedLists(ctx, prev, read); err != nil {
			return err
		}
	}
	var redo []int64
	for i, l := range back {
		id := c.restIDs[i]
		if len(l) == 0 && !touched[id] {
			continue
		}
		merged, ok := c.patch(stored[id], l, e.cfg.Related.K, c.shortened[id])
		if !ok {
			redo = append(redo, id)
			continue
		}
		if !sameList(merged, stored[id], st) {
			u.lists[id] = rowsOf(st, merged)
		}
	}
	u.stats.Queries = len(rd.indexed) + len(redo)
	if err := e.exactLists(ctx, u, st, redo); err != nil {
		return err
	}
	if prev != nil && prev.lists != nil {
		// The next run's stored lists: the committed ones, patched.
		st.lists = make(map[int64][]relatedRow, len(prev.lists)+len(rd.indexed))
		for id, l := range prev.lists {
			if !c.gone[id] {
				st.lists[id] = l
			}
		}
		maps.Copy(st.lists, u.lists)
	}
	return nil
}

// listChange is what an incremental run changes among the vectors: the
// batch of documents it (re)indexed, the rest of the archive, and the
// documents that left or whose list lost a member by cascade.
type listChange struct {
	st        *relatedState
	fresh     map[int64]bool // (re)indexed by the run
	gone      map[int64]bool // left the index
	shortened map[int64]bool // lost a list member by cascade
	batch     []related.Vector
	batchIdx  []int32 // batch[j] is st's vector batchIdx[j]
	rest      []related.Vector
	restIDs   []int64 // the documents of rest
}

func newListChange(st *relatedState, rd runDocuments, lost []int64) *listChange {
	c := &listChange{st: st, fresh: make(map[int64]bool, len(rd.indexed)), gone: make(map[int64]bool, len(rd.gone)),
		shortened: make(map[int64]bool, len(lost))}
	for _, id := range rd.indexed {
		c.fresh[id] = true
		i := st.index(id)
		c.batch = append(c.batch, st.vecs[i])
		c.batchIdx = append(c.batchIdx, int32(i))
	}
	for _, id := range rd.gone {
		c.gone[id] = true
	}
	for _, id := range lost {
		c.shortened[id] = true
	}
	for i, id := range st.ids {
		if !c.fresh[id] {
			c.rest = append(c.rest, st.vecs[i])
			c.restIDs = append(c.restIDs, id)
		}
	}
	return c
}

// gainsHere makes the batch's own lists and finds, in one pass of the
// batch against the archive on this process's cores, the new documents
// above each other document's floor (its stored list's last cosine): what
// each rest document may gain. It returns those gains and the stored lists
// it read.
func (e *Engine) gainsHere(ctx context.Context, u *relatedUpdate, st *relatedState, rd runDocuments, c *listChange,
	prev *relatedState) ([][]related.Neighbor, map[int64][]relatedRow, error) {
	k := e.cfg.Related.K
	stored, err := e.storedLists(ctx, prev, c.restIDs)
	if err != nil {
		return nil, nil, err
	}
	floor := make([]float32, len(st.ids))
	for i, id := range st.ids {
		l := stored[id]
		switch {
		case c.fresh[id]:
			floor[i] = float32(math.Inf(1))
		case len(l) >= k || c.shortened[id] && len(l) > 0:
			floor[i] = l[len(l)-1].cosine
		}
	}
	lists, above, err := e.batchAbove(ctx, st, rd.indexed, floor)
	if err != nil {
		return nil, nil, err
	}
	for j, id := range rd.indexed {
		u.lists[id] = rowsOf(st, lists[j])
	}
	back := make([][]related.Neighbor, 0, len(c.rest))
	for i, id := range st.ids {
		if !c.fresh[id] {
			back = append(back, above[i])
		}
	}
	return back, stored, nil
}

// gainsOnNodes makes the batch's own lists by exact joins and lets the
// node processes join the rest of the archive against the batch: what each
// rest document may gain.
func (e *Engine) gainsOnNodes(ctx context.Context, u *relatedUpdate, st *relatedState, rd runDocuments, c *listChange) ([][]related.Neighbor, error) {
	if err := e.exactLists(ctx, u, st, slices.Clone(rd.indexed)); err != nil {
		return nil, err
	}
	if len(c.batch) == 0 || len(c.rest) == 0 {
		return make([][]related.Neighbor, len(c.rest)), nil
	}
	return e.joinRelated(ctx, cluster.RelatedJob{K: e.cfg.Related.K, Method: "exact", Data: c.batch, Queries: c.rest})
}

// listHolders are the documents whose stored related list holds one of ids.
func (e *Engine) listHolders(ctx context.Context, ids []int64) ([]int64, error) {
	rows, err := e.pool.Query(ctx, `select distinct doc_id from related where other_id = any($1)`, ids)
	if err != nil {
		return nil, fmt.Errorf("find lists that held changed documents: %w", err)
	}
	holders, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("find lists that held changed documents: %w", err)
	}
	return holders, nil
}

// patch is a stored list cur after the run: its members that did not
// change, merged with gain (batch positions). ok is false when the result
// cannot be proven to be the exact top k (the list was full or lost a
// member, and the patched list is short or ends below what the stored one
// was known down to): the list must then be joined again.
func (c *listChange) patch(cur []relatedRow, gain []related.Neighbor, k int, shortened bool) (merged []related.Neighbor, ok bool) {
	complete := len(cur) < k && !shortened
	// The stored list is known down to its last member (tau, tauID) in
	// the lists' order (cosine desc, then document asc): a document tied
	// with it at tau but with a higher id may be missing from it.
	tau, tauID := float32(0), int64(0)
	if len(cur) > 0 {
		tau, tauID = cur[len(cur)-1].cosine, cur[len(cur)-1].other
	}
	kept := make([]related.Neighbor, 0, len(cur))
	for _, r := range cur {
		if c.fresh[r.other] || c.gone[r.other] {
			continue // its new cosine, if it still counts, is in gain
		}
		j := c.st.index(r.other)
		if j < 0 { // left meanwhile (deleted during the run): the next run says so
			complete = false
			continue
		}
		kept = append(kept, related.Neighbor{Doc: int32(j), Sim: r.cosine})
	}
	g := make([]related.Neighbor, len(gain))
	for j, nb := range gain {
		g[j] = related.Neighbor{Doc: c.batchIdx[nb.Doc], Sim: nb.Sim}
	}
	merged = related.Merge(kept, g, k)
	if !complete && (len(merged) < k || worse(merged[len(merged)-1], c.st.ids, tau, tauID)) {
		return nil, false
	}
	return merged, true
}

// worse reports whether n ranks after the stored list's last member (tau,
// tauID): then documents the list never held may rank before n.
func worse(n related.Neighbor, ids []int64, tau float32, tauID int64) bool {
	return n.Sim < tau || n.Sim == tau && ids[n.Doc] > tauID
}

// sameList reports whether a patched list equals the stored one.
func sameList(l []related.Neighbor, stored []relatedRow, st *relatedState) bool {
	if len(l) != len(stored) {
		return false
	}
	for i, n := range l {
		if st.ids[n.Doc] != stored[i].other || n.Sim != stored[i].cosine {
			return false
		}
	}
	return true
}

// batchAbove joins the documents ids (of st) with all of st in this
// process: their lists, and per document of st the ids whose cosine with
// it reaches floor (related.ExactAbove), as positions in ids.
func (e *Engine) batchAbove(ctx context.Context, st *relatedState, ids []int64, floor []float32) (lists, above [][]related.Neighbor, err error) {
	q := make([]related.Vector, len(ids))
	same := make([]int32, len(ids))
	for j, id := range ids {
		i := st.index(id)
		q[j], same[j] = st.vecs[i], int32(i)
	}
	pool := related.Stoppable(ctx, related.Pool(runtime.GOMAXPROCS(0)))
	err = related.Catch(func() {
		s := related.Prepare(q, st.vecs, false, pool)
		s.SameAs(same)
		lists, above, _ = related.ExactAbove(s, related.NewIndex(s), e.cfg.Related.K, floor, pool)
	})
	if err != nil {
		return nil, nil, err
	}
	return lists, above, nil
}

// exactLists recomputes the lists of ids (documents of st) by an exact join
// against all of st.
func (e *Engine) exactLists(ctx context.Context, u *relatedUpdate, st *relatedState, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	q := make([]related.Vector, len(ids))
	same := make([]int32, len(ids))
	for j, id := range ids {
		i := st.index(id)
		q[j], same[j] = st.vecs[i], int32(i)
	}
	lists, err := e.joinRelated(ctx, cluster.RelatedJob{K: e.cfg.Related.K, Method: "exact", Data: st.vecs, Queries: q, Same: same})
	if err != nil {
		return err
	}
	for j, l := range lists {
		u.lists[ids[j]] = rowsOf(st, l)
	}
	return nil
}

// committedRelated is the engine's copy of the related-documents state if
// it is that of the last committed run under model version, else nil.
func (e *Engine) committedRelated(ctx context.Context, version int64) (*relatedState, error) {
	committed, err := store.LastCommittedRun(ctx, e.pool)
	if err != nil {
		return nil, err
	}
	if st := e.related; st != nil && st.run == committed && st.version == version {
		return st, nil
	}
	return nil, nil
}

// storedLists returns the committed lists of ids, from the engine's copy
// when it has them (prev), else from the table.
func (e *Engine) storedLists(ctx context.Context, prev *relatedState, ids []int64) (map[int64][]relatedRow, error) {
	if prev != nil && prev.lists != nil {
		out := make(map[int64][]relatedRow, len(ids))
		for _, id := range ids {
			if l, ok := prev.lists[id]; ok {
				out[id] = l
			}
		}
		return out, nil
	}
	rows, err := e.pool.Query(ctx, `select doc_id, other_id, cosine from related where doc_id = any($1)
		order by doc_id, cosine desc, other_id`, ids)
	if err != nil {
		return nil, fmt.Errorf("read related lists: %w", err)
	}
	out := map[int64][]relatedRow{}
	var id int64
	var r relatedRow
	if _, err := pgx.ForEachRow(rows, []any{&id, &r.other, &r.cosine}, func() error {
		out[id] = append(out[id], r)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read related lists: %w", err)
	}
	return out, nil
}

// storedVectors are vectors read back, by document.
type storedVectors map[int64]relatedVector

func (s storedVectors) vectors() []relatedVector {
	out := make([]relatedVector, 0, len(s))
	for _, v := range s {
		out = append(out, v)
	}
	return out
}

// relatedVectors returns the stored vectors of ids (model version), from
// the engine's copy of the last committed run when it is current, else from
// PostgreSQL.
func (e *Engine) relatedVectors(ctx context.Context, version int64, ids []int64) (storedVectors, error) {
	out := make(storedVectors, len(ids))
	if st, err := e.committedRelated(ctx, version); err != nil {
		return nil, err
	} else if st != nil {
		for _, id := range ids {
			if i := st.index(id); i >= 0 {
				out[id] = relatedVector{id: id, v: st.vecs[i]}
			}
		}
		if len(out) == len(ids) {
			return out, nil
		}
		clear(out)
	}
	rows, err := e.pool.Query(ctx, `select doc_id, terms, weights, norm from related_vectors
		where model = $1 and doc_id = any($2)`, version, ids)
	if err != nil {
		return nil, fmt.Errorf("read related vectors: %w", err)
	}
	if err := scanVectors(rows, func(id int64, v related.Vector) { out[id] = relatedVector{id: id, v: v} }); err != nil {
		return nil, err
	}
	return out, nil
}

// scanVectors reads (doc_id, terms, weights, norm) rows of related_vectors.
func scanVectors(rows pgx.Rows, fn func(id int64, v related.Vector)) error {
	var id int64
	var tb, wb []byte
	var norm float32
	if _, err := pgx.ForEachRow(rows, []any{&id, &tb, &wb, &norm}, func() error {
		v, err := decodeVector(tb, wb, norm)
		if err != nil {
			return fmt.Errorf("document %d: %w", id, err)
		}
		fn(id, v)
		return nil
	}); err != nil {
		return fmt.Errorf("read related vectors: %w", err)
	}
	return nil
}

// buildRelatedModel counts term document frequencies over a random sample
// of the indexed documents (neardup.sample_docs of them), on all cores.
func (e *Engine) buildRelatedModel(ctx context.Context, runID int64, rd runDocuments, langs []related.Lang) (*related.Model, error) {
	r := rand.New(rand.NewPCG(uint64(runID), 0x2545f4914f6cdd1d))
	pickI, pickO := sample(r, rd.indexed, rd.others, e.cfg.NearDup.SampleDocs)
	var mu sync.Mutex
	df := termstat.NewDocFreq()
	workers := runtime.GOMAXPROCS(0)
	texts := make(chan idText, 4*workers)
	var g errgroup.Group
	for range workers {
		g.Go(func() error {
			local := termstat.NewDelta()
			a := related.Analyzer{Candidates: langs}
			for t := range texts {
				_, terms := a.Analyze(t.text)
				local.Add(terms)
			}
			mu.Lock()
			df.Apply(local)
			mu.Unlock()
			return nil
		})
	}
	send := func(t idText) error {
		select {
		case texts <- t:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	err := e.eachText(ctx, runID, pickI, true, send)
	if err == nil {
		err = e.eachText(ctx, runID, pickO, false, send)
	}
	close(texts)
	g.Wait()
	if err != nil {
		return nil, err
	}
	return related.NewModel(0, df, relatedMaxDFShare(df.Docs)), nil
}

// Write stores the update inside the run's commit transaction.
func (u *relatedUpdate) Write(ctx context.Context, tx pgx.Tx, runID int64) error {
	if u.model != nil {
		v, err := insertRelatedModel(ctx, tx, runID, u.docs, u.model)
		if err != nil {
			return err
		}
		u.version = v
		if u.state != nil {
			u.state.version = v
		}
		if _, err := tx.Exec(ctx, `truncate related_vectors, related`); err != nil {
			return fmt.Errorf("clear related documents: %w", err)
		}
	} else if u.state != nil {
		u.state.version = u.version
	}
	if _, err := tx.Exec(ctx, `delete from related_vectors where doc_id = any($1)`, u.drop); err != nil {
		return fmt.Errorf("drop related vectors: %w", err)
	}
	if _, err := tx.Exec(ctx, `create temp table related_vector_stage (doc_id bigint, lang text, terms bytea, weights bytea, norm real) on commit drop`); err != nil {
		return fmt.Errorf("stage related vectors: %w", err)
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"related_vector_stage"}, []string{"doc_id", "lang", "terms", "weights", "norm"},
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
	// Lists: the replaced ones go, with every row naming a removed document.
	replaced := make([]int64, 0, len(u.lists))
	for id := range u.lists {
		replaced = append(replaced, id)
	}
	if !u.all {
		if _, err := tx.Exec(ctx, `delete from related where doc_id = any($1) or doc_id = any($2) or other_id = any($2)`,
			replaced, u.drop); err != nil {
			return fmt.Errorf("delete replaced related lists: %w", err)
		}
	}
	n := 0
	for _, l := range u.lists {
		n += len(l)
	}
	rows := make([][]any, 0, n)
	for id, l := range u.lists {
		for _, r := range l {
			rows = append(rows, []any{id, r.other, r.cosine})
		}
	}
	if _, err := tx.Exec(ctx, `create temp table related_stage (doc_id bigint, other_id bigint, cosine real) on commit drop`); err != nil {
		return fmt.Errorf("stage related lists: %w", err)
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"related_stage"}, []string{"doc_id", "other_id", "cosine"}, pgx.CopyFromRows(rows)); err != nil {
		return fmt.Errorf("stage related lists: %w", err)
	}
	// Documents hard-deleted during the run are skipped (their FK target is gone).
	if _, err := tx.Exec(ctx, `
		insert into related (doc_id, other_id, cosine)
		select s.doc_id, s.other_id, s.cosine from related_stage s
		join documents a on a.id = s.doc_id join documents b on b.id = s.other_id`); err != nil {
		return fmt.Errorf("store related lists: %w", err)
	}
	return nil
}
