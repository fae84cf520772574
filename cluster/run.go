package cluster

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/plagd/plagd/invindex"
)

// runState is the bookkeeping of one Master.Run.
type runState struct {
	plan   Plan
	docs   *invindex.DocTable // the run's copy of the document table
	bounds []uint64

	upserted map[invindex.DocID]bool // indexed successfully in this run
	count    map[invindex.DocID]bool // lists to recompute
	out      *Outcome
}

// Run computes a run and leaves the nodes with pending slices. The caller
// commits the Outcome to PostgreSQL and then calls Commit, or calls Abort.
func (m *Master) Run(ctx context.Context, plan Plan, src TextSource) (*Outcome, error) {
	start := time.Now()
	m.mu.Lock()
	base := m.gen
	docs := m.docs.Clone()
	if plan.Full {
		docs = invindex.NewDocTable()
	}
	m.mu.Unlock()
	if plan.BatchSize < 1 {
		plan.BatchSize = 100
	}
	st := &runState{
		plan: plan, docs: docs, bounds: m.bounds(),
		upserted: make(map[invindex.DocID]bool, len(plan.Upsert)),
		count:    make(map[invindex.DocID]bool, len(plan.Upsert)+len(plan.Holes)),
		out:      &Outcome{},
	}

	// 1. Assign internal IDs. Deleted documents free theirs first so that new
	// documents recycle them; a modified document keeps its ID.
	var removed []invindex.DocID
	for _, ext := range plan.Delete {
		if d, ok := docs.Lookup(ext); ok {
			removed = append(removed, d)
			docs.Free(d)
		}
		st.out.Deleted = append(st.out.Deleted, ext)
	}
	jobs := make([]Text, 0, len(plan.Upsert))
	for _, ext := range plan.Upsert {
		d, ok := docs.Lookup(ext)
		if ok {
			removed = append(removed, d)
		} else {
			var err error
			if d, err = docs.Assign(ext, 0); err != nil {
				return nil, fmt.Errorf("assign internal IDs: %w", err)
			}
		}
		jobs = append(jobs, Text{Doc: d})
	}
	spec := RunSpec{Run: plan.Run, Base: base, Params: plan.Params, DFCap: plan.DFCap, Full: plan.Full}
	if err := m.each(ctx, func(ctx context.Context, _ int, n Node) error {
		return n.Begin(ctx, spec, removed)
	}); err != nil {
		return nil, fmt.Errorf("begin run: %w", err)
	}
	m.log.Info().Int64("run", plan.Run).Bool("full", plan.Full).Int("upsert", len(plan.Upsert)).
		Int("delete", len(plan.Delete)).Int("holes", len(plan.Holes)).Int("nodes", len(m.nodes)).Msg("run started")

	// 2. Chunk changed documents on the nodes and shuffle their chunks by range.
	if err := m.dispatch(ctx, st, jobs, src.Fresh, true); err != nil {
		return nil, err
	}
	m.log.Info().Dur("elapsed_ms", time.Since(start)).Int("indexed", len(st.upserted)).Msg("chunked")

	// Unchanged documents whose full lists lost an entry are counted again.
	if err := m.dispatchUnchanged(ctx, st, plan.Holes, src); err != nil {
		return nil, err
	}

	// 3. Build the new slices.
	flipped, err := m.build(ctx, st)
	if err != nil {
		return nil, err
	}
	m.log.Info().Dur("elapsed_ms", time.Since(start)).Int("postings", st.out.Postings).Msg("index built")
	// Documents on chunks that crossed the df cap have changed counts against
	// unchanged documents: recompute them too.
	if len(flipped) > 0 {
		ext := make([]int64, 0, len(flipped))
		for _, d := range flipped {
			if !st.count[d] {
				ext = append(ext, docs.Ext(d))
			}
		}
		if err := m.dispatchUnchanged(ctx, st, ext, src); err != nil {
			return nil, err
		}
	}

	// 4-5. Count, sum, rank.
	if err := m.countAll(ctx, st); err != nil {
		return nil, err
	}
	m.finishOutcome(st)
	m.mu.Lock()
	m.pending = docs
	m.mu.Unlock()
	m.log.Info().Dur("elapsed_ms", time.Since(start)).Int("rows", len(st.out.Rows)).
		Int("recomputed", st.out.Recomputed).Msg("counted")
	return st.out, nil
}

// dispatchUnchanged chunks unchanged documents from their stored texts, for counting only.
func (m *Master) dispatchUnchanged(ctx context.Context, st *runState, ext []int64, src TextSource) error {
	jobs := make([]Text, 0, len(ext))
	for _, e := range ext {
		d, ok := st.docs.Lookup(e)
		if !ok || st.count[d] {
			continue // not indexed (failed before), or already counted
		}
		jobs = append(jobs, Text{Doc: d})
	}
	if len(jobs) == 0 {
		return nil
	}
	return m.dispatch(ctx, st, jobs, src.Stored, false)
}

// build runs every node's Build and collects the documents to recompute because
// of df-cap flips.
func (m *Master) build(ctx context.Context, st *runState) ([]invindex.DocID, error) {
	stats := make([]BuildStats, len(m.nodes))
	if err := m.each(ctx, func(ctx context.Context, i int, n Node) error {
		s, err := n.Build(ctx)
		stats[i] = s
		return err
	}); err != nil {
		return nil, fmt.Errorf("build index: %w", err)
	}
	var flipped []invindex.DocID
	for _, s := range stats {
		st.out.Postings += s.Postings
		st.out.IndexBytes += s.Bytes
		flipped = append(flipped, s.Flipped...)
	}
	slices.Sort(flipped)
	return slices.Compact(flipped), nil
}

// finishOutcome fills the sets of rows the daemon replaces.
func (m *Master) finishOutcome(st *runState) {
	o := st.out
	// Rows of every recomputed, deleted or failed document are replaced.
	for d := range st.count {
		o.Replace = append(o.Replace, st.docs.Ext(d))
	}
	o.Replace = append(o.Replace, o.Deleted...)
	o.Others = append(o.Others, o.Deleted...)
	for _, r := range o.Docs {
		o.Others = append(o.Others, r.ID)
		if r.Failed != "" {
			o.Replace = append(o.Replace, r.ID)
		}
	}
	o.Recomputed = len(st.count)
	for _, s := range [][]int64{o.Replace, o.Others, o.Trim} {
		slices.Sort(s)
	}
	o.Replace = slices.Compact(o.Replace)
	o.Others = slices.Compact(o.Others)
	o.Trim = slices.Compact(o.Trim)
}
