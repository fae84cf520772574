package engine

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/plagd/plagd/related"
	"github.com/plagd/plagd/store"
)

// incrementalLists updates the lists an incremental run touches, exactly.
//
// The run's new and changed documents get their lists by an exact join
// against the whole archive. Every other document B is joined with them
// (the batch documents that reach its held list's last cosine, G) and its
// held list L is patched: drop the members that changed or left, merge in
// G. A held list is complete down to its last member (cosine τ, ties by
// document id; or entirely, when it is not cut), so the patched list is
// exact down to τ: when at least k members remain there, it is B's list
// and what lies between k and τ its margin; otherwise (members left and
// nothing as good came in) B's list is joined again with the whole
// archive. A list that lost a member to a hard delete before migration 0017
// ('lost_related': the delete took the member out) is not known to be
// complete; since, a hard-deleted member stays in the lists until the run
// takes it out here, as a soft-deleted one.
func (e *Engine) incrementalLists(ctx context.Context, u *relatedUpdate, st *relatedState, rd runDocuments,
	lost []int64) error {
	u.stats.Method = "incremental"
	c := newListChange(st, rd, lost)
	prev, err := e.committedRelated(ctx, u.version)
	if err != nil {
		return err
	}
	// back[i]: what document i of st may gain, as batch positions. The
	// join runs on the master even when node processes share the run: the
	// master holds the archive's vectors and keeps them numbered between
	// runs, while a node would need the whole archive shipped to it for
	// every run (at 20,000 realistic documents over a 1 Gbit/s link
	// between network namespaces: 233 MB and 3.1 s, against 0.7 s here;
	// docs/SCALING.md). Nodes join the full runs' self join.
	back, held, err := e.gainsHere(ctx, u, st, rd, c, prev)
	if err != nil {
		return err
	}
	// The lists to patch: those that gain, those that held a changed or
	// removed document (in their margin too), those that lost a member by
	// cascade.
	touched, err := e.listHolders(ctx, c, held)
	if err != nil {
		return err
	}
	for _, id := range lost {
		if i := st.index(id); i >= 0 {
			touched[i] = true
		}
	}
	var todo []int32 // the places of the lists to patch
	for i, id := range st.ids {
		if !c.fresh.has(id) && (len(back[i]) > 0 || touched[i]) {
			todo = append(todo, int32(i))
		}
	}
	// Patched on every core (at 1M documents, 127,061 lists per 1,000
	// changes), then collected in order.
	patched, ok := make([]heldList, len(todo)), make([]bool, len(todo))
	const chunk = 4096
	err = related.Catch(func() {
		tasks := (len(todo) + chunk - 1) / chunk
		related.Stoppable(ctx, related.Pool(runtime.GOMAXPROCS(0))).Run(tasks, func(task int) {
			for j := task * chunk; j < min(len(todo), (task+1)*chunk); j++ {
				i := todo[j]
				patched[j], ok[j] = c.patch(held[i], back[i], u.k, u.depth, c.shortened.has(st.ids[i]))
			}
		})
	})
	if err != nil {
		return err
	}
	var redo []int64
	for j, i := range todo {
		id, was := st.ids[i], held[i]
		if !ok[j] {
			redo = append(redo, id)
			continue
		}
		u.stats.Patched++
		u.held[id] = patched[j]
		if top := patched[j].rows[:min(u.k, len(patched[j].rows))]; !slices.Equal(top, was.rows[:min(u.k, len(was.rows))]) {
			u.lists[id] = top
		}
	}
	u.stats.Rejoined = len(redo)
	u.stats.Queries = len(rd.indexed) + len(redo)
	if err := c.join.lists(ctx, u, st, redo); err != nil {
		return err
	}
	// The next run's held lists: this run's before it (held, the run's
	// own copy, beside st.ids), patched.
	for id, l := range u.held {
		held[st.index(id)] = l
	}
	st.lists = held
	return nil
}

// listChange is what an incremental run changes among the vectors: the
// batch of documents it (re)indexed, the documents that left, and those
// whose list lost a member by cascade.
type listChange struct {
	st                *relatedState
	freshIDs, goneIDs []int64 // (re)indexed by the run; left the index
	// The fresh ones as a set, either kind (changed), and the documents
	// whose list lost a member by cascade, for the loops over every
	// document and every held list's members (idSet).
	fresh, changed, shortened idSet
	batchIdx                  []int32      // the batch's places in st, in rd.indexed's order
	heldKnown                 bool         // the held lists are the engine's, with their margins
	join                      *archiveJoin // the archive numbered, when joined here
}

// archiveJoin is the archive's vectors numbered once for every exact join
// of an incremental run on this process's cores (the batch's own lists and
// the lists joined again after it). The numbering outlives the run
// (relatedState.numbered): the next run converts only its own batch. The
// joins read each archive document against an index of their queries
// (related.ExactScan): no inverted index of the archive is built or kept.
type archiveJoin struct {
	s *related.Set
}

func newArchiveJoin(ctx context.Context, st, prev *relatedState, c *listChange) (*archiveJoin, error) {
	a := &archiveJoin{}
	err := related.Catch(func() {
		pool := related.Stoppable(ctx, related.Pool(runtime.GOMAXPROCS(0)))
		dict, docs := st.numbered(prev, c.fresh, pool)
		a.s = related.SelfSet(dict, docs)
	})
	return a, err
}

// numbered returns st's vectors numbered for the exact joins, and keeps
// them in st: those of prev's documents that did not change as prev has
// them, the others converted in prev's related.Dict (a new Dict when prev
// has none).
func (st *relatedState) numbered(prev *relatedState, fresh idSet, r related.Runner) (*related.Dict, []related.Doc) {
	if prev == nil || prev.dict == nil {
		st.dict = related.NewDict()
		st.docs = st.dict.Docs(st.vecs, r)
		return st.dict, st.docs
	}
	st.dict, st.docs = prev.dict, make([]related.Doc, len(st.ids))
	var convert []int
	for i, id := range st.ids {
		if j := prev.index(id); j >= 0 && !fresh.has(id) {
			st.docs[i] = prev.docs[j]
		} else {
			convert = append(convert, i)
		}
	}
	vs := make([]related.Vector, len(convert))
	for j, i := range convert {
		vs[j] = st.vecs[i]
	}
	for j, d := range st.dict.Docs(vs, r) {
		st.docs[convert[j]] = d
	}
	return st.dict, st.docs
}

// above joins the documents qs (places in st) with all of st: their
// lists, and per document of st the queries whose cosine with it reaches
// floor (related.ExactScan), as positions in qs.
func (a *archiveJoin) above(ctx context.Context, qs []int32, k int, floor []float32) (lists, above [][]related.Neighbor, err error) {
	err = related.Catch(func() {
		lists, above = related.ExactScan(a.s, k, qs, floor, related.Stoppable(ctx, related.Pool(runtime.GOMAXPROCS(0))))
	})
	return lists, above, err
}

// lists joins the documents ids (of st) again with the whole archive.
func (a *archiveJoin) lists(ctx context.Context, u *relatedUpdate, st *relatedState, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	defer func(t time.Time) { u.stats.Join += time.Since(t) }(time.Now())
	slices.Sort(ids)
	qs := make([]int32, len(ids))
	for j, id := range ids {
		qs[j] = int32(st.index(id))
	}
	lists, _, err := a.above(ctx, qs, u.depth, nil)
	if err != nil {
		return err
	}
	for j, l := range lists {
		u.set(ids[j], rowsOf(st, l))
	}
	return nil
}

func newListChange(st *relatedState, rd runDocuments, lost []int64) *listChange {
	c := &listChange{st: st, freshIDs: rd.indexed, goneIDs: rd.gone, fresh: newIDSet(rd.indexed),
		changed: newIDSet(rd.indexed, rd.gone), shortened: newIDSet(lost)}
	for _, id := range rd.indexed {
		i := st.index(id)
		c.batchIdx = append(c.batchIdx, int32(i))
	}
	return c
}

// gainsHere makes the batch's own lists and finds, in one pass of the
// batch against the archive on this process's cores, the new documents
// that reach each other document's floor (its held list's last cosine,
// when the list is cut): what each document of st outside the batch may
// gain, by its place in st. It returns those gains and the held lists it
// read, beside st.ids (the batch's places empty).
func (e *Engine) gainsHere(ctx context.Context, u *relatedUpdate, st *relatedState, rd runDocuments, c *listChange,
	prev *relatedState) ([][]related.Neighbor, []heldList, error) {
	stored, known, err := e.storedLists(ctx, prev, u.k, st, c.fresh)
	c.heldKnown = known
	if err != nil {
		return nil, nil, err
	}
	floor := make([]float32, len(st.ids))
	for i, id := range st.ids {
		l := &stored[i]
		switch {
		case c.fresh.has(id):
			floor[i] = float32(math.Inf(1))
		case len(l.rows) > 0 && (l.cut || c.shortened.has(id)):
			floor[i] = l.rows[len(l.rows)-1].cosine
		}
	}
	t := time.Now()
	if c.join, err = newArchiveJoin(ctx, st, prev, c); err != nil {
		return nil, nil, err
	}
	u.stats.Index = time.Since(t)
	u.stats.NumberingKept = prev != nil && prev.dict != nil && st.dict == prev.dict
	t = time.Now()
	lists, above, err := c.join.above(ctx, c.batchIdx, u.depth, floor)
	if err != nil {
		return nil, nil, err
	}
	u.stats.Join += time.Since(t)
	for j, id := range rd.indexed {
		u.set(id, rowsOf(st, lists[j]))
	}
	return above, stored, nil
}

// listHolders are the places in st of the documents outside the batch
// whose list holds a document of the run's batch or one that left: found
// in the held lists when the engine has them (a margin member counts),
// else in the stored lists (one scan of related_lists: its members are
// not indexed, migration 0017). A hard-deleted document is still in the
// stored lists that held it when it was deleted; the run takes it out
// here, as it does a soft-deleted one.
func (e *Engine) listHolders(ctx context.Context, c *listChange, held []heldList) ([]bool, error) {
	out := make([]bool, len(c.st.ids))
	if c.heldKnown {
		for i := range held {
			for _, r := range held[i].rows {
				if c.changed.has(r.other) {
					out[i] = true
					break
				}
			}
		}
		return out, nil
	}
	ids := slices.Concat(c.freshIDs, c.goneIDs)
	rows, err := e.pool.Query(ctx, `select doc_id from related_lists where others && $1::bigint[]`, ids)
	if err != nil {
		return nil, fmt.Errorf("find lists that held changed documents: %w", err)
	}
	var id int64
	if _, err := pgx.ForEachRow(rows, []any{&id}, func() error {
		if i := c.st.index(id); i >= 0 {
			out[i] = true
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("find lists that held changed documents: %w", err)
	}
	return out, nil
}

// patch is a held list cur after the run: its members that did not
// change, merged with gain (batch positions), down to depth. ok is false
// when fewer than k of them can be proven to be the exact top (the list
// was cut or lost a member, and fewer than k rank before what it was known
// down to): the list must then be joined again.
func (c *listChange) patch(cur heldList, gain []related.Neighbor, k, depth int, shortened bool) (patched heldList, ok bool) {
	complete := !cur.cut && !shortened
	// The held list is known down to its last member (tau, tauID) in the
	// lists' order (cosine desc, then document asc): a document tied with
	// it at tau but with a higher id may be missing from it.
	tau, tauID := float32(0), int64(0)
	if n := len(cur.rows); n > 0 {
		tau, tauID = cur.rows[n-1].cosine, cur.rows[n-1].other
	}
	kept := make([]related.Neighbor, 0, len(cur.rows))
	for _, r := range cur.rows {
		if c.changed.has(r.other) {
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
	merged := related.Merge(kept, g, depth)
	if complete {
		return heldList{rows: rowsOf(c.st, merged), cut: len(merged) >= depth}, true
	}
	n := len(merged)
	for n > 0 && worse(merged[n-1], c.st.ids, tau, tauID) {
		n--
	}
	if n < k {
		return heldList{}, false
	}
	return heldList{rows: rowsOf(c.st, merged[:n]), cut: true}, true
}

// worse reports whether n ranks after the stored list's last member (tau,
// tauID): then documents the list never held may rank before n.
func worse(n related.Neighbor, ids []int64, tau float32, tauID int64) bool {
	return n.Sim < tau || n.Sim == tau && ids[n.Doc] > tauID
}

// committedRelated returns the engine's copy of the related-documents
// state if it is that of the last committed run under model version, else
// nil.
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

// storedLists returns the committed lists of st's documents outside the
// batch fresh, beside st.ids: held with their margin from the engine's
// copy when it has them (prev; known), else from the table, where they
// end at k (cut when they hold k). The table is read as stored, with the
// members hard-deleted since (which the view related hides): the run
// takes them out (listChange.patch) knowing that the list held them, so
// it refills or joins the list again rather than take a shortened list
// for a complete one.
func (e *Engine) storedLists(ctx context.Context, prev *relatedState, k int, st *relatedState, fresh idSet) (lists []heldList, known bool, err error) {
	out := make([]heldList, len(st.ids))
	if prev != nil && prev.lists != nil {
		for i, id := range st.ids {
			if j := prev.index(id); j >= 0 && !fresh.has(id) {
				out[i] = prev.lists[j]
			}
		}
		return out, true, nil
	}
	var ids []int64
	for _, id := range st.ids {
		if !fresh.has(id) {
			ids = append(ids, id)
		}
	}
	rows, err := e.pool.Query(ctx, `
		select l.doc_id, m.other_id, m.cosine
		from related_lists l, unnest(l.others, l.cosines) as m(other_id, cosine)
		where l.doc_id = any($1) order by l.doc_id, m.cosine desc, m.other_id`, ids)
	if err != nil {
		return nil, false, fmt.Errorf("read related lists: %w", err)
	}
	var id int64
	var r relatedRow
	if _, err := pgx.ForEachRow(rows, []any{&id, &r.other, &r.cosine}, func() error {
		if i := st.index(id); i >= 0 {
			out[i].rows = append(out[i].rows, r)
		}
		return nil
	}); err != nil {
		return nil, false, fmt.Errorf("read related lists: %w", err)
	}
	for i := range out {
		out[i].cut = len(out[i].rows) >= k
	}
	return out, false, nil
}

// relatedVectors returns the stored vectors of ids (ascending; model
// version), ascending by document, from the engine's copy of the last
// committed run when it is current, else from PostgreSQL. From the copy it
// costs one lookup per document and no sort: an incremental run reads the
// whole archive's vectors this way.
func (e *Engine) relatedVectors(ctx context.Context, version int64, ids []int64) ([]relatedVector, error) {
	if st, err := e.committedRelated(ctx, version); err != nil {
		return nil, err
	} else if st != nil {
		out := make([]relatedVector, 0, len(ids))
		for _, id := range ids {
			i := st.index(id)
			if i < 0 {
				break
			}
			// As held: shed (relatedState.shed) when st is numbered, and
			// then the run takes the numbered one from st (numbered).
			out = append(out, relatedVector{id: id, v: st.vecs[i]})
		}
		if len(out) == len(ids) {
			return out, nil
		}
	}
	rows, err := e.pool.Query(ctx, `select doc_id, terms, weights, norm from related_vectors
		where model = $1 and doc_id = any($2) order by doc_id`, version, ids)
	if err != nil {
		return nil, fmt.Errorf("read related vectors: %w", err)
	}
	var out []relatedVector
	if err := scanVectors(rows, func(id int64, v related.Vector) { out = append(out, relatedVector{id: id, v: v}) }); err != nil {
		return nil, err
	}
	return out, nil
}

// mergeVectors merges a and b, each ascending by document and without a
// document in common, into one ascending list.
func mergeVectors(a, b []relatedVector) []relatedVector {
	out := make([]relatedVector, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0].id < b[0].id {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
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
