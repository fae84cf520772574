package engine

import (
	"context"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/related"
	"github.com/plagd/plagd/store"
)

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
	if c.join != nil {
		err = c.join.lists(ctx, u, st, redo, e.cfg.Related.K)
	} else {
		err = e.exactLists(ctx, u, st, redo)
	}
	if err != nil {
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
	restIDs   []int64      // the documents of rest
	join      *archiveJoin // the archive interned and indexed, when joined here
}

// archiveJoin is the archive's vectors interned and indexed once for every
// exact join of an incremental run on this process's cores (the batch's
// own lists and the lists recomputed after it): each used to intern and
// index the whole archive again.
type archiveJoin struct {
	s *related.Set
	x *related.Index
}

func newArchiveJoin(ctx context.Context, st *relatedState) (*archiveJoin, error) {
	a := &archiveJoin{}
	err := related.Catch(func() {
		a.s = related.Prepare(nil, st.vecs, true, related.Stoppable(ctx, related.Pool(runtime.GOMAXPROCS(0))))
		a.x = related.NewIndex(a.s)
	})
	return a, err
}

// above joins the documents ids (of st) with all of st: their lists, and
// per document of st the ids whose cosine with it reaches floor
// (related.ExactOf), as positions in ids.
func (a *archiveJoin) above(ctx context.Context, st *relatedState, ids []int64, k int, floor []float32) (lists, above [][]related.Neighbor, err error) {
	qs := make([]int32, len(ids))
	for j, id := range ids {
		qs[j] = int32(st.index(id))
	}
	err = related.Catch(func() {
		lists, above, _ = related.ExactOf(a.s, a.x, k, qs, floor, related.Stoppable(ctx, related.Pool(runtime.GOMAXPROCS(0))))
	})
	return lists, above, err
}

// lists recomputes the lists of ids (documents of st), as exactLists does.
func (a *archiveJoin) lists(ctx context.Context, u *relatedUpdate, st *relatedState, ids []int64, k int) error {
	slices.Sort(ids)
	lists, _, err := a.above(ctx, st, ids, k, nil)
	if err != nil {
		return err
	}
	for j, l := range lists {
		u.lists[ids[j]] = rowsOf(st, l)
	}
	return nil
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
	if c.join, err = newArchiveJoin(ctx, st); err != nil {
		return nil, nil, err
	}
	lists, above, err := c.join.above(ctx, st, rd.indexed, k, floor)
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
