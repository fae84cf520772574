package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/cluster/nodepb"
	"github.com/plagd/plagd/invindex"
)

// Options tune a Client. Zero values take the defaults.
type Options struct {
	// Timeout bounds every call (default 5 min: a Build or Count on a large
	// slice is long). A call whose context has an earlier deadline keeps it.
	Timeout time.Duration
	// DialTimeout bounds Dial's first call, which learns the node's range
	// (default 10 s).
	DialTimeout time.Duration
	// KeepaliveTime is how often an idle connection is pinged, and
	// KeepaliveTimeout how long a ping may go unanswered before the
	// connection, and every call on it, fails (defaults 10 s and 5 s; gRPC
	// raises a KeepaliveTime under 10 s to 10 s): a peer that died without
	// closing its socket is noticed within their sum, whatever Timeout is.
	KeepaliveTime, KeepaliveTimeout time.Duration
	// Traffic, when set, accumulates the bytes of this client's calls; several
	// clients (say, successive connections to one node) may share one.
	Traffic *Traffic
}

// Traffic counts the bytes of gRPC messages sent to and received from a node:
// payloads after framing (what the message stream puts on the connection),
// without HTTP/2 headers and TLS records.
type Traffic struct{ sent, received atomic.Int64 }

// Sent is the number of bytes sent so far.
func (t *Traffic) Sent() int64 { return t.sent.Load() }

// Received is the number of bytes received so far.
func (t *Traffic) Received() int64 { return t.received.Load() }

// HandleRPC implements stats.Handler.
func (t *Traffic) HandleRPC(_ context.Context, s stats.RPCStats) {
	switch p := s.(type) {
	case *stats.OutPayload:
		t.sent.Add(int64(p.WireLength))
	case *stats.InPayload:
		t.received.Add(int64(p.WireLength))
	}
}

// TagRPC implements stats.Handler.
func (t *Traffic) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context { return ctx }

// TagConn implements stats.Handler.
func (t *Traffic) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }

// HandleConn implements stats.Handler.
func (t *Traffic) HandleConn(context.Context, stats.ConnStats) {}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Minute
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = 10 * time.Second
	}
	if o.KeepaliveTime <= 0 {
		o.KeepaliveTime = 10 * time.Second
	}
	if o.KeepaliveTimeout <= 0 {
		o.KeepaliveTimeout = 5 * time.Second
	}
	if o.Traffic == nil {
		o.Traffic = new(Traffic)
	}
	return o
}

// Client is a cluster.Node served by a `plagd node` process at Addr. It is
// safe for concurrent use. Errors name the node's address.
type Client struct {
	addr string
	opts Options
	conn *grpc.ClientConn
	rpc  nodepb.NodeClient

	mu     sync.Mutex
	lo, hi uint64 // learned by Dial and Ping, set by Install
	run    int64  // the run of the last Begin, sent with the run's calls (fence.go)
}

var _ cluster.Node = (*Client)(nil)

// Dial connects to the node at addr and asks for its range (a node process
// has none until the master installs a state).
func Dial(ctx context.Context, addr string, sec Security, opts Options) (*Client, error) {
	opts = opts.withDefaults()
	dial, err := sec.dialOptions()
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", addr, err)
	}
	dial = append(dial,
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: opts.KeepaliveTime, Timeout: opts.KeepaliveTimeout, PermitWithoutStream: true}),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxRecv)),
		grpc.WithStatsHandler(opts.Traffic),
	)
	conn, err := grpc.NewClient(addr, dial...)
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", addr, err)
	}
	c := &Client{addr: addr, opts: opts, conn: conn, rpc: nodepb.NewNodeClient(conn)}
	if err := c.Ping(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

// Ping asks the node for its range, within the dial timeout: a cheap check
// that the node answers and accepts our credentials.
func (c *Client) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, c.opts.DialTimeout)
	defer cancel()
	r, err := c.rpc.Range(ctx, &nodepb.Empty{})
	if err != nil {
		return c.wrap("range", err)
	}
	c.mu.Lock()
	c.lo, c.hi = r.Lo, r.Hi
	c.mu.Unlock()
	return nil
}

// Traffic is the byte counter of this client's calls.
func (c *Client) Traffic() *Traffic { return c.opts.Traffic }

// Addr is the node's address.
func (c *Client) Addr() string { return c.addr }

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// ctx applies the call timeout and names the run the call belongs to.
func (c *Client) ctx(ctx context.Context) (context.Context, context.CancelFunc) {
	c.mu.Lock()
	run := c.run
	c.mu.Unlock()
	return context.WithTimeout(withRun(ctx, run), c.opts.Timeout)
}

// wrap names the node and the call, maps the node's sentinel errors back, and
// says what to do.
func (c *Client) wrap(call string, err error) error {
	if err == nil {
		return nil
	}
	st, _ := status.FromError(err)
	var hint string
	switch st.Code() {
	case codes.FailedPrecondition:
		return fmt.Errorf("node %s: %s: %w (%s)", c.addr, call, cluster.ErrStale, st.Message())
	case codes.Aborted:
		return fmt.Errorf("node %s: %s: %w (%s)", c.addr, call, cluster.ErrNoRun, st.Message())
	case codes.Unauthenticated:
		hint = "the node refused our credentials: give master and node the same secret file"
	case codes.Unavailable:
		hint = "the node is unreachable: check that `plagd node` runs at this address and the network and TLS settings match; the run is discarded"
		if strings.Contains(st.Message(), "certificate") || strings.Contains(st.Message(), "tls:") {
			hint = "the TLS handshake failed: master and nodes must present certificates signed by the CA the other side trusts (cluster.tls_ca); " +
				"a client certificate from another CA is not even sent, so the node reports it as missing"
		}
	case codes.DeadlineExceeded:
		hint = fmt.Sprintf("the node did not answer within %s: it is overloaded, stuck or gone; the run is discarded", c.opts.Timeout)
	case codes.InvalidArgument, codes.Internal:
		hint = "the node rejected the request: master and node may run different plagd versions"
	default:
		hint = "the run is discarded"
	}
	return fmt.Errorf("node %s: %s: %w (%s)", c.addr, call, err, hint)
}

// Range implements cluster.Node: the range the node reported at Dial or the
// last Ping, or the range of the state last installed through this client.
func (c *Client) Range() (uint64, uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lo, c.hi
}

// Begin implements cluster.Node.
func (c *Client) Begin(ctx context.Context, spec cluster.RunSpec, removed []invindex.DocID) error {
	c.mu.Lock()
	c.run = spec.Run
	c.mu.Unlock()
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	p := spec.Params
	_, err := c.rpc.Begin(ctx, &nodepb.BeginRequest{
		Run: spec.Run, Base: spec.Base, DfCap: int64(spec.DFCap), Full: spec.Full,
		Params: &nodepb.Params{WindowWords: int32(p.WindowWords), ChunkBits: uint32(p.ChunkBits),
			StripDiacritics: p.StripDiacritics, ExtraWindowWords: int32(p.ExtraWindowWords)},
		Removed: putU32s(nil, removed),
	})
	return c.wrap("begin", err)
}

// Chunk implements cluster.Node.
func (c *Client) Chunk(ctx context.Context, batch []cluster.Text) ([]cluster.Chunked, error) {
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	out, err := c.chunk(ctx, batch)
	return out, c.wrap("chunk", err)
}

func (c *Client) chunk(ctx context.Context, batch []cluster.Text) ([]cluster.Chunked, error) {
	stream, err := c.rpc.Chunk(ctx)
	if err != nil {
		return nil, err
	}
	for _, msg := range packTexts(batch) {
		for _, p := range msg {
			if err := stream.Send(p); err != nil {
				return nil, recvErr[nodepb.Lists](stream, err)
			}
		}
	}
	if err := stream.CloseSend(); err != nil {
		return nil, err
	}
	var u chunkUnpacker
	if err := recvLists(stream.Recv, u.add); err != nil {
		return nil, err
	}
	if len(u.docs) != len(batch) || len(u.words) != len(batch) {
		return nil, status.Errorf(codes.Internal, "chunk: %d results for %d texts", len(u.docs), len(batch))
	}
	out := make([]cluster.Chunked, len(batch))
	for i, d := range u.docs {
		if d.Doc != batch[i].Doc {
			return nil, status.Errorf(codes.Internal, "chunk: result %d is document %d, sent %d", i, d.Doc, batch[i].Doc)
		}
		out[i] = cluster.Chunked{Doc: d.Doc, Words: u.words[i], Chunks: d.Chunks, Checks: d.Checks}
	}
	return out, nil
}

// recvErr returns the stream's real error after a failed Send (Send reports
// io.EOF when the server ended the call).
func recvErr[T any](s interface{ RecvMsg(any) error }, err error) error {
	if errors.Is(err, io.EOF) {
		var m T
		if rerr := s.RecvMsg(&m); rerr != nil && rerr != io.EOF {
			return rerr
		}
	}
	return err
}

// Deliver implements cluster.Node.
func (c *Client) Deliver(ctx context.Context, docs []invindex.DocChunks, index bool) error {
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	stream, err := c.rpc.Deliver(ctx)
	if err != nil {
		return c.wrap("deliver", err)
	}
	msgs := packChunkLists(docs, nil)
	if len(msgs) == 0 {
		msgs = append(msgs, nil)
	}
	for _, m := range msgs {
		if err := stream.Send(&nodepb.DeliverPart{Index: index, Lists: m}); err != nil {
			return c.wrap("deliver", recvErr[nodepb.Empty](stream, err))
		}
	}
	_, err = stream.CloseAndRecv()
	return c.wrap("deliver", err)
}

// Build implements cluster.Node.
func (c *Client) Build(ctx context.Context) (cluster.BuildStats, error) {
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	r, err := c.rpc.Build(ctx, &nodepb.Empty{})
	if err != nil {
		return cluster.BuildStats{}, c.wrap("build", err)
	}
	flipped, err := getU32s(nil, r.Flipped, "flipped")
	if err != nil {
		return cluster.BuildStats{}, c.wrap("build", status.Error(codes.Internal, err.Error()))
	}
	if len(flipped) == 0 {
		flipped = nil
	}
	return cluster.BuildStats{Postings: int(r.Postings), Keys: int(r.Keys), Bytes: int(r.Bytes), Flipped: flipped}, nil
}

// Count implements cluster.Node.
func (c *Client) Count(ctx context.Context, docs []invindex.DocID) ([][]invindex.Pair, error) {
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	out, err := c.count(ctx, docs)
	return out, c.wrap("count", err)
}

func (c *Client) count(ctx context.Context, docs []invindex.DocID) ([][]invindex.Pair, error) {
	stream, err := c.rpc.Count(ctx, &nodepb.CountRequest{Docs: putU32s(nil, docs)})
	if err != nil {
		return nil, err
	}
	var u pairUnpacker
	if err := recvLists(stream.Recv, u.add); err != nil {
		return nil, err
	}
	if len(u.docs) != len(docs) {
		return nil, status.Errorf(codes.Internal, "count: %d lists for %d documents", len(u.docs), len(docs))
	}
	for i, d := range u.docs {
		if d != docs[i] {
			return nil, status.Errorf(codes.Internal, "count: list %d is document %d, asked %d", i, d, docs[i])
		}
	}
	return u.lists, nil
}

// Query implements cluster.Querier: the node counts q against its
// committed state (no run needed).
func (c *Client) Query(ctx context.Context, q cluster.Query) ([]invindex.Pair, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	out, err := c.query(ctx, q)
	return out, c.wrap("query", err)
}

func (c *Client) query(ctx context.Context, q cluster.Query) ([]invindex.Pair, error) {
	stream, err := c.rpc.Query(ctx, &nodepb.QueryRequest{Gen: q.Gen, Self: q.Self,
		Chunks: putU32s(nil, q.Chunks), Checks: q.Checks, DfCap: int64(q.DFCap)})
	if err != nil {
		return nil, err
	}
	var u pairUnpacker
	if err := recvLists(stream.Recv, u.add); err != nil {
		return nil, err
	}
	if len(u.docs) != 1 || u.docs[0] != q.Self {
		return nil, status.Errorf(codes.Internal, "query: %d lists, expected one for document %d", len(u.docs), q.Self)
	}
	return u.lists[0], nil
}

var _ cluster.Querier = (*Client)(nil)

// Commit implements cluster.Node.
func (c *Client) Commit(ctx context.Context, gen int64) error {
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	_, err := c.rpc.Commit(ctx, &nodepb.CommitRequest{Gen: gen})
	return c.wrap("commit", err)
}

// Abort implements cluster.Node.
func (c *Client) Abort(ctx context.Context) error {
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	_, err := c.rpc.Abort(ctx, &nodepb.Empty{})
	return c.wrap("abort", err)
}

// Snapshot implements cluster.Node. The interface has no error: on failure
// it returns (nil, -1); SnapshotContext reports the error.
func (c *Client) Snapshot() (*cluster.NodeState, int64) {
	st, gen, err := c.SnapshotContext(context.Background())
	if err != nil {
		return nil, -1
	}
	return st, gen
}

// SnapshotContext fetches the node's committed state and generation.
func (c *Client) SnapshotContext(ctx context.Context) (*cluster.NodeState, int64, error) {
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	stream, err := c.rpc.Snapshot(ctx, &nodepb.Empty{})
	if err != nil {
		return nil, 0, c.wrap("snapshot", err)
	}
	r := &blobReader{recv: stream.Recv}
	st, err := readState(r)
	if err != nil {
		if s, ok := status.FromError(err); ok && s.Code() != codes.Unknown {
			return nil, 0, c.wrap("snapshot", s.Err())
		}
		return nil, 0, c.wrap("snapshot", status.Error(codes.Internal, err.Error()))
	}
	return st, r.gen, nil
}

// Install implements cluster.Node, within the call timeout.
func (c *Client) Install(st *cluster.NodeState, gen int64) error {
	return c.InstallContext(context.Background(), st, gen)
}

// InstallContext ships st to the node as its committed state of generation gen.
func (c *Client) InstallContext(ctx context.Context, st *cluster.NodeState, gen int64) error {
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	stream, err := c.rpc.Install(ctx)
	if err != nil {
		return c.wrap("install", err)
	}
	w := &blobWriter{send: stream.Send, gen: gen}
	err = writeState(w, st)
	if err == nil {
		err = w.flush(true)
	}
	if err != nil {
		return c.wrap("install", recvErr[nodepb.Empty](stream, err))
	}
	if _, err = stream.CloseAndRecv(); err != nil {
		return c.wrap("install", err)
	}
	c.mu.Lock()
	c.lo, c.hi = st.Base.Lo(), st.Base.Hi()
	c.mu.Unlock()
	return nil
}

// recvLists feeds every Lists message of a reply stream to add until the
// stream ends; a message add cannot decode is the node's fault (Internal).
func recvLists(recv func() (*nodepb.Lists, error), add func(*nodepb.Lists) error) error {
	for {
		m, err := recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := add(m); err != nil {
			return status.Error(codes.Internal, err.Error())
		}
	}
}
