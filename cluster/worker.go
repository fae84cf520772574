package cluster

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/plagd/plagd/related"
	"github.com/plagd/plagd/routing"
)

// A node process does more for the master than the run's steps (Node): it
// answers related-documents joins (RelatedJoiner) and serves partitions of
// the routed feature index of live checks (RoutingPartitions). Both have an
// in-process implementation here (RunRelated, RoutingShare) and a network
// one in cluster/remote, so that the engine never knows where its workers
// run: it gets connections to node processes from a Connector that the
// command wiring hands it.

// RelatedJob is one slice of a related-documents join: its queries against
// the whole data set, exactly or with ZOLIP. The result of a query does not
// depend on the other queries of the batch, so a join split over workers by
// queries gives the lists of the join run in one place.
type RelatedJob struct {
	K       int
	Method  string // exact or zolip
	Lambda  int
	Sigma   float64
	Data    []related.Vector
	Queries []related.Vector
	Same    []int32 // per query: its index in Data, or -1
}

// RelatedJoiner answers related-documents join jobs.
type RelatedJoiner interface {
	// Related returns one neighbour list per query of j, in query order.
	Related(ctx context.Context, j RelatedJob) ([][]related.Neighbor, error)
}

// LocalJoiner is a RelatedJoiner on this process's cores (RunRelated).
type LocalJoiner struct{}

// Related implements RelatedJoiner.
func (LocalJoiner) Related(ctx context.Context, j RelatedJob) ([][]related.Neighbor, error) {
	return RunRelated(ctx, j)
}

var _ RelatedJoiner = LocalJoiner{}

// RunRelated computes a job where it is: a node's side of a remote join,
// and what the master does itself without nodes.
//
// It stops within about one task of ctx ending (related.Stoppable) and then
// returns ctx's error and no lists.
func RunRelated(ctx context.Context, j RelatedJob) (lists [][]related.Neighbor, err error) {
	pool := related.Stoppable(ctx, related.Pool(runtime.GOMAXPROCS(0)))
	err = related.Catch(func() {
		s := related.Prepare(j.Queries, j.Data, false, pool)
		if j.Same != nil {
			s.SameAs(j.Same)
		}
		if j.Method == "zolip" {
			lists, _ = related.ZOLIP(s, related.Params{K: j.K, Lambda: j.Lambda, Sigma: j.Sigma}, pool)
			return
		}
		lists, _ = related.Exact(s, related.NewIndex(s), j.K, pool)
	})
	if err != nil {
		return nil, err
	}
	return lists, nil
}

// RoutingDoc is a document's features in a routing sync.
type RoutingDoc struct {
	ID       routing.DocID
	Features []uint64
}

// RoutingSync is one sync of a worker's routing partitions: a full load
// (Full: the partitions Owned, of K partitions with M routes per document)
// or the changes from generation From; either brings it to generation To.
type RoutingSync struct {
	From, To int64
	Full     bool
	K, M     int
	Owned    []int
	Add      []RoutingDoc
	Remove   []RoutingDoc
}

// ErrRoutingStale is a worker that is not at the generation asked for: the
// master sends it a full load.
var ErrRoutingStale = errors.New("routing partitions not at the expected generation")

// RoutingPartitions is a worker holding some partitions of the routed
// feature index (routing.Routed) at a generation the master names.
type RoutingPartitions interface {
	// RoutingSync applies s; ErrRoutingStale when the worker is not at
	// s.From (send a full load).
	RoutingSync(ctx context.Context, s RoutingSync) error
	// RoutingQuery asks the worker's partitions (which it must own) at
	// generation gen for fs; ErrRoutingStale when it is elsewhere.
	RoutingQuery(ctx context.Context, gen int64, partitions []int, fs []uint64) ([]routing.Match, error)
}

// Worker is what a node process does besides runs.
type Worker interface {
	RelatedJoiner
	RoutingPartitions
}

// RoutingShare is a worker's share of the routed feature index in this
// process: the partitions it owns, at a generation the master names. It
// lives in memory only; a new share is at generation 0 and needs a full
// load. It is safe for concurrent use.
type RoutingShare struct {
	mu    sync.RWMutex
	gen   int64
	k, m  int
	parts map[int]*routing.Partition
}

// routingError is ErrRoutingStale or ErrRoutingRequest (errors.Is) with its
// own message, which a transport passes on as it is.
type routingError struct {
	kind error
	msg  string
}

func (e *routingError) Error() string        { return e.msg }
func (e *routingError) Is(target error) bool { return target == e.kind }

func stale(op string, have, want int64) error {
	return &routingError{kind: ErrRoutingStale, msg: fmt.Sprintf("%s: the node is at generation %d, not %d", op, have, want)}
}

// ErrRoutingRequest is a routing call the share cannot answer as asked (a
// partition it does not own, a malformed sync): a bad request, not a stale
// share.
var ErrRoutingRequest = errors.New("bad routing request")

func badRouting(format string, args ...any) error {
	return &routingError{kind: ErrRoutingRequest, msg: fmt.Sprintf(format, args...)}
}

// RoutingSync implements RoutingPartitions.
func (s *RoutingShare) RoutingSync(_ context.Context, r RoutingSync) error {
	if r.K < 1 || r.M < 1 {
		return badRouting("routing sync: k and m must be positive")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Full {
		s.k, s.m, s.parts = r.K, r.M, map[int]*routing.Partition{}
		for _, p := range r.Owned {
			s.parts[p] = routing.NewPartition()
		}
	} else if s.gen != r.From || s.parts == nil {
		return stale("routing sync", s.gen, r.From)
	}
	var routes []int
	for _, d := range r.Remove {
		routes = routing.Route(d.Features, s.k, s.m, routes[:0])
		for _, p := range routes {
			if part := s.parts[p]; part != nil {
				part.Remove(d.ID, d.Features)
			}
		}
	}
	for _, d := range r.Add {
		routes = routing.Route(d.Features, s.k, s.m, routes[:0])
		for _, p := range routes {
			if part := s.parts[p]; part != nil {
				part.Add(d.ID, d.Features)
			}
		}
	}
	s.gen = r.To
	return nil
}

// RoutingQuery implements RoutingPartitions.
func (s *RoutingShare) RoutingQuery(_ context.Context, gen int64, partitions []int, fs []uint64) ([]routing.Match, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.gen != gen || s.parts == nil {
		return nil, stale("routing query", s.gen, gen)
	}
	var all []routing.Match
	for _, p := range partitions {
		part := s.parts[p]
		if part == nil {
			return nil, badRouting("routing query: partition %d is not on this node", p)
		}
		all = append(all, part.Query(fs)...)
	}
	return all, nil
}

var _ RoutingPartitions = (*RoutingShare)(nil)

// Conn is the master's connection to a node process: the node's run role,
// its queries, its worker services, and the connection's upkeep.
type Conn interface {
	Node
	Querier
	Worker
	// Addr is the node's address.
	Addr() string
	// Ping checks that the node answers (and learns its range).
	Ping(ctx context.Context) error
	// Close closes the connection.
	Close() error
}

// Connector connects the master to node processes. The engine gets one
// from the command wiring (cluster/remote's over gRPC); it never builds a
// transport itself.
type Connector interface {
	// Prepare reads what connecting needs (credentials) once; the engine
	// calls it before dialling and a failure fails the run.
	Prepare() error
	// Dial connects to the node at addr and checks that it answers within
	// pingTimeout, which then bounds the connection's pings too.
	Dial(ctx context.Context, addr string, pingTimeout time.Duration) (Conn, error)
	// Traffic is the total of bytes sent to and received from nodes over
	// every connection this connector made.
	Traffic() (sent, received int64)
}
