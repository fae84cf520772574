package cluster

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/plagd/plagd/internal/progress"
	"github.com/plagd/plagd/invindex"
)

type fetchFunc func(ctx context.Context, ids []int64) ([]SourceText, error)

// dispatch hands jobs in batches to free nodes for chunking (Kasprzak et al., section
// 3.2: batches keep every node busy) and delivers each result, cut by range, to
// the owning nodes. With index set the documents become postings; otherwise
// they are unchanged documents delivered for counting only.
func (m *Master) dispatch(ctx context.Context, st *runState, jobs []Text, fetch fetchFunc, index bool) error {
	var mu sync.Mutex // guards st while workers report
	batches := make(chan []Text)
	g, ctx := errgroup.WithContext(ctx)
	var done atomic.Int64
	stop := m.progress("chunking", len(jobs), &done)
	defer stop()
	g.Go(func() error {
		defer close(batches)
		for i := 0; i < len(jobs); i += st.plan.BatchSize {
			select {
			case batches <- jobs[i:min(i+st.plan.BatchSize, len(jobs))]:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	})
	for _, worker := range m.nodes {
		g.Go(func() error {
			for batch := range batches {
				if err := m.chunkBatch(ctx, st, &mu, worker, batch, fetch, index); err != nil {
					return err
				}
				done.Add(int64(len(batch)))
			}
			return nil
		})
	}
	return g.Wait()
}

// progress logs done/total every 5 s (progress.Log) until the returned stop is called.
func (m *Master) progress(phase string, total int, done *atomic.Int64) (stop func()) {
	return progress.Log(m.log, phase, int64(total), done)
}

// chunkBatch fetches, chunks and shuffles one batch.
func (m *Master) chunkBatch(ctx context.Context, st *runState, mu *sync.Mutex, worker Node, batch []Text, fetch fetchFunc, index bool) error {
	ids := make([]int64, len(batch))
	mu.Lock()
	for i, t := range batch {
		ids[i] = st.docs.Ext(t.Doc)
	}
	mu.Unlock()
	texts, err := fetch(ctx, ids)
	if err != nil {
		return fmt.Errorf("fetch texts: %w", err)
	}
	if len(texts) != len(batch) {
		return fmt.Errorf("fetch texts: asked for %d documents, got %d", len(batch), len(texts))
	}
	todo := make([]Text, 0, len(batch))
	skips := map[invindex.DocID]func(uint32, uint8) bool{}
	mu.Lock()
	for i, t := range texts {
		d := batch[i].Doc
		switch {
		case t.ID != ids[i]:
			mu.Unlock()
			return fmt.Errorf("fetch texts: asked for document %d, got %d", ids[i], t.ID)
		case !index && t.Gone:
			// Deleted while the run went on; its rows vanish by cascade and its
			// change-log entry brings it to the next run.
		case !index && t.Failed != "":
			mu.Unlock()
			return fmt.Errorf("%w: stored text of document %d: %s", ErrNeedFull, t.ID, t.Failed)
		case t.Gone:
			st.docs.Free(d)
			st.out.Deleted = append(st.out.Deleted, t.ID)
		case t.Failed != "":
			st.docs.Free(d)
			st.out.Docs = append(st.out.Docs, DocResult{ID: t.ID, Failed: t.Failed, FailedKind: t.FailedKind})
		default:
			todo = append(todo, Text{Doc: d, Text: t.Text})
			if t.Skip != nil {
				skips[d] = t.Skip
			}
		}
	}
	mu.Unlock()
	if len(todo) == 0 {
		return nil
	}
	chunked, err := worker.Chunk(ctx, todo)
	if err != nil {
		return fmt.Errorf("chunk: %w", err)
	}

	perNode := make([][]invindex.DocChunks, len(m.nodes))
	mu.Lock()
	for _, c := range chunked {
		ext := st.docs.Ext(c.Doc)
		before := len(c.Chunks)
		if skip := skips[c.Doc]; skip != nil {
			c = withoutSkipped(c, skip)
		}
		if index {
			if len(c.Chunks) == 0 {
				st.docs.Free(c.Doc)
				r := DocResult{ID: ext, Words: c.Words, Failed: tooShort(c.Words, st.plan.Params.WindowWords), FailedKind: "too_short"}
				if before > 0 {
					r.Failed, r.FailedKind = "the document holds nothing but registered template text", "template_only"
				}
				st.out.Docs = append(st.out.Docs, r)
				continue
			}
			st.docs.Set(c.Doc, uint32(len(c.Chunks)))
			st.upserted[c.Doc] = true
			st.out.Docs = append(st.out.Docs, DocResult{ID: ext, Words: c.Words, Chunks: len(c.Chunks)})
		} else if uint32(len(c.Chunks)) != st.docs.Chunks(c.Doc) {
			mu.Unlock()
			return fmt.Errorf("%w: stored text of document %d gives %d chunks, the index has %d",
				ErrNeedFull, ext, len(c.Chunks), st.docs.Chunks(c.Doc))
		}
		st.count[c.Doc] = true
		// Every node hears of every document, even with no chunks in its range,
		// so that a missing delivery is an error rather than a silent zero.
		for i, part := range splitByRange(c, st.bounds) {
			perNode[i] = append(perNode[i], part)
		}
	}
	mu.Unlock()
	for i, docs := range perNode {
		if len(docs) == 0 {
			continue
		}
		if err := m.nodes[i].Deliver(ctx, docs, index); err != nil {
			return fmt.Errorf("deliver to node %d: %w", i, err)
		}
	}
	return nil
}

// withoutSkipped drops the chunks skip rejects, in new slices (c's may be
// a node's buffers).
func withoutSkipped(c Chunked, skip func(uint32, uint8) bool) Chunked {
	chunks := make([]uint32, 0, len(c.Chunks))
	checks := make([]uint8, 0, len(c.Checks))
	for i, ch := range c.Chunks {
		if !skip(ch, c.Checks[i]) {
			chunks, checks = append(chunks, ch), append(checks, c.Checks[i])
		}
	}
	c.Chunks, c.Checks = chunks, checks
	return c
}

// splitByRange cuts a document's sorted chunk IDs, and their fingerprints
// alongside, at the node boundaries; the parts alias c's slices.
func splitByRange(c Chunked, bounds []uint64) []invindex.DocChunks {
	parts := make([]invindex.DocChunks, len(bounds)-1)
	start := 0
	for i := range parts {
		hi := bounds[i+1]
		end := start + sortSearch(c.Chunks[start:], hi)
		parts[i] = invindex.DocChunks{Doc: c.Doc, Chunks: c.Chunks[start:end], Checks: c.Checks[start:end]}
		start = end
	}
	return parts
}

// sortSearch returns the number of leading chunks below hi.
func sortSearch(chunks []uint32, hi uint64) int {
	if hi > 1<<32-1 {
		return len(chunks)
	}
	i, _ := slices.BinarySearch(chunks, uint32(hi))
	return i
}

func tooShort(words, window int) string {
	if words == 0 {
		return "the document contains no words"
	}
	return fmt.Sprintf("the document is too short: %d words, a chunk needs %d", words, window)
}
