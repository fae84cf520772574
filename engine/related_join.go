package engine

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/internal/progress"
	"github.com/plagd/plagd/related"
)

// joinRelated runs a related-documents join on the cluster's node processes
// (cluster.RelatedJoiner) when the run uses remote nodes, on this process's
// cores (cluster.LocalJoiner) otherwise. The
// queries are split into one contiguous slice per node and each node joins
// its slice with the whole data set (a query's list does not depend on the
// other queries, so the lists equal those of one join in one place: the
// reference tests run on remote nodes check it). A node that fails is
// replaced by the master computing its slice: the result is the same, only
// slower, so a run is not lost to it. When ctx ends the join stops within
// about one task and returns ctx's error.
func (e *Engine) joinRelated(ctx context.Context, j cluster.RelatedJob) ([][]related.Neighbor, error) {
	var local cluster.LocalJoiner
	clients := e.relatedClients()
	if len(clients) == 0 || len(j.Queries) < len(clients) {
		return local.Related(ctx, j)
	}
	out := make([][]related.Neighbor, len(j.Queries))
	var g errgroup.Group
	for i, c := range clients {
		lo, hi := i*len(j.Queries)/len(clients), (i+1)*len(j.Queries)/len(clients)
		part := j
		part.Queries = j.Queries[lo:hi]
		if j.Same != nil {
			part.Same = j.Same[lo:hi]
		}
		g.Go(func() error {
			lists, err := c.Related(ctx, part)
			switch {
			case err == nil:
				e.relatedRemote.Add(int64(hi - lo))
			case ctx.Err() != nil:
				return context.Cause(ctx)
			default:
				e.log.Warn().Err(err).Int("queries", hi-lo).Msg("related join on a node failed; the master computes its share")
				if lists, err = local.Related(ctx, part); err != nil {
					return err
				}
			}
			copy(out[lo:hi], lists)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// exactSelfHere is the exact self join of st's vectors on this process's
// cores, each pair computed once (related.ExactSelf): the lists joinRelated
// gives for Queries = Data = vecs, in half the postings. It numbers the
// vectors' terms in a new related.Dict and keeps it in st with the
// numbered vectors, for the next incremental run; the index is dropped
// with the join (an incremental run reads the archive's documents, not an
// index of them: related.ExactScan). numbered is called once the vectors
// are numbered, before the join: the hashed ones are not read after that.
// When ctx ends it stops within about one task and returns ctx's error.
func exactSelfHere(ctx context.Context, log zerolog.Logger, st *relatedState, k int, stats *relatedStats, numbered func()) (lists [][]related.Neighbor, err error) {
	pool := related.Stoppable(ctx, related.Pool(runtime.GOMAXPROCS(0)))
	err = related.Catch(func() {
		start := time.Now()
		dict := related.NewDict()
		docs := dict.Docs(st.vecs, pool)
		st.dict, st.docs = dict, docs
		numbered()
		s := related.SelfSet(dict, docs)
		x := related.NewIndex(s)
		stats.Index = time.Since(start)
		start = time.Now()
		// The join is most of a large full run (20 minutes at 1M
		// documents): its progress is the postings read so far.
		var done atomic.Int64
		stop := progress.Log(log, "related self join", x.SelfWork(), &done)
		defer stop()
		lists, _ = related.ExactSelfCounted(s, x, k, pool, &done)
		stats.Join = time.Since(start)
	})
	if err != nil {
		return nil, err
	}
	return lists, nil
}

// relatedClients are the node processes of the current master (none with
// in-process nodes), for related joins and routing partitions.
func (e *Engine) relatedClients() []cluster.Worker {
	r := e.remote
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []cluster.Worker
	for _, a := range r.up {
		if c := r.clients[a]; c != nil {
			out = append(out, c)
		}
	}
	return out
}
