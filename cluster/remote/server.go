package remote

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/status"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/cluster/nodepb"
	"github.com/plagd/plagd/invindex"
)

// maxRecv bounds one received message. Senders keep messages under about
// maxPart; the margin covers a single document list cut at an element
// boundary and the protobuf framing.
const maxRecv = 16 << 20

// Server exposes one cluster.Node (normally a *cluster.LocalNode) over gRPC.
// Every call is authenticated as configured by its Security.
type Server struct {
	nodepb.UnimplementedNodeServer
	node cluster.Node // the served node behind a cluster.Staged: run calls arrive in order or are refused
	raw  cluster.Node // the served node itself (its Query)
	log  zerolog.Logger
	run  atomic.Int64 // the run of the last accepted Begin (fence.go); 0 after Install
	grpc *grpc.Server
	// routing is the node's share of the routed feature index (routing.go).
	routing cluster.RoutingShare
}

// NewServer returns a server for node. It refuses a Security that neither
// verifies client certificates nor checks a shared secret unless Insecure is
// set (tests on loopback).
func NewServer(node cluster.Node, sec Security, log zerolog.Logger) (*Server, error) {
	opts, err := sec.serverOptions()
	if err != nil {
		return nil, err
	}
	opts = append(opts,
		grpc.MaxRecvMsgSize(maxRecv),
		// Notice dead masters: ping an idle connection every 30 s, drop it if
		// the ping is not answered in 10 s. Allow the client's pings (Client
		// pings every 10 s at most).
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: 30 * time.Second, Timeout: 10 * time.Second}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 5 * time.Second, PermitWithoutStream: true}),
	)
	s := &Server{node: cluster.Stage(node), raw: node, log: log, grpc: grpc.NewServer(opts...)}
	nodepb.RegisterNodeServer(s.grpc, s)
	return s, nil
}

// Serve answers calls on l until Stop or GracefulStop.
func (s *Server) Serve(l net.Listener) error { return s.grpc.Serve(l) }

// GracefulStop waits for the calls in progress, then stops.
func (s *Server) GracefulStop() { s.grpc.GracefulStop() }

// Stop closes every connection at once.
func (s *Server) Stop() { s.grpc.Stop() }

// statusOf maps the node's errors to gRPC codes that the client maps back
// to cluster's sentinel errors.
func statusOf(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, cluster.ErrStale):
		return status.Error(codes.FailedPrecondition, err.Error())
	case errors.Is(err, cluster.ErrNoRun), errors.Is(err, cluster.ErrOrder):
		return status.Error(codes.Aborted, err.Error())
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, err.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, err.Error())
	case status.Code(err) != codes.Unknown:
		return err
	}
	return status.Error(codes.Internal, err.Error())
}

func badRequest(err error) error { return status.Error(codes.InvalidArgument, err.Error()) }

// Range implements nodepb.NodeServer.
func (s *Server) Range(context.Context, *nodepb.Empty) (*nodepb.RangeReply, error) {
	lo, hi := s.node.Range()
	return &nodepb.RangeReply{Lo: lo, Hi: hi}, nil
}

// Begin implements nodepb.NodeServer.
func (s *Server) Begin(ctx context.Context, r *nodepb.BeginRequest) (*nodepb.Empty, error) {
	removed, err := getU32s(nil, r.Removed, "removed")
	if err != nil {
		return nil, badRequest(err)
	}
	p := r.GetParams()
	spec := cluster.RunSpec{
		Run: r.Run, Base: r.Base, DFCap: int(r.DfCap), Full: r.Full,
		Params: invindex.Params{WindowWords: int(p.GetWindowWords()), ChunkBits: uint(p.GetChunkBits()),
			StripDiacritics: p.GetStripDiacritics(), ExtraWindowWords: int(p.GetExtraWindowWords())},
	}
	if err := spec.Params.Validate(); err != nil {
		return nil, badRequest(err)
	}
	s.log.Info().Int64("run", r.Run).Int64("base", r.Base).Bool("full", r.Full).Int("removed", len(removed)).Msg("begin")
	if err := s.node.Begin(ctx, spec, removed); err != nil {
		return nil, statusOf(err)
	}
	s.run.Store(r.Run)
	return &nodepb.Empty{}, nil
}

// Chunk implements nodepb.NodeServer.
func (s *Server) Chunk(stream nodepb.Node_ChunkServer) error {
	if err := checkRun(stream.Context(), s.run.Load(), "chunk"); err != nil {
		return err
	}
	var parts []*nodepb.TextPart
	for {
		p, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		parts = append(parts, p)
	}
	batch, err := unpackTexts(parts)
	if err != nil {
		return badRequest(err)
	}
	out, err := s.node.Chunk(stream.Context(), batch)
	if err != nil {
		return statusOf(err)
	}
	docs := make([]invindex.DocChunks, len(out))
	words := make([]int, len(out))
	for i, c := range out {
		docs[i] = invindex.DocChunks{Doc: c.Doc, Chunks: c.Chunks, Checks: c.Checks}
		words[i] = c.Words
	}
	for _, m := range packChunkLists(docs, words) {
		if err := stream.Send(m); err != nil {
			return err
		}
	}
	return nil
}

// Deliver implements nodepb.NodeServer. The node gets the documents only once
// the whole stream arrived, so a broken stream delivers nothing.
func (s *Server) Deliver(stream nodepb.Node_DeliverServer) error {
	if err := checkRun(stream.Context(), s.run.Load(), "deliver"); err != nil {
		return err
	}
	var u chunkUnpacker
	index, first := false, true
	for {
		p, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if first {
			index, first = p.Index, false
		} else if p.Index != index {
			return badRequest(errors.New("deliver: index flag changed within one call"))
		}
		if p.Lists != nil {
			if err := u.add(p.Lists); err != nil {
				return badRequest(fmt.Errorf("deliver: %w", err))
			}
		}
	}
	if err := s.node.Deliver(stream.Context(), u.docs, index); err != nil {
		return statusOf(err)
	}
	return stream.SendAndClose(&nodepb.Empty{})
}

// Build implements nodepb.NodeServer.
func (s *Server) Build(ctx context.Context, _ *nodepb.Empty) (*nodepb.BuildReply, error) {
	if err := checkRun(ctx, s.run.Load(), "build"); err != nil {
		return nil, err
	}
	st, err := s.node.Build(ctx)
	if err != nil {
		return nil, statusOf(err)
	}
	s.log.Info().Int("postings", st.Postings).Int("keys", st.Keys).Int("bytes", st.Bytes).Msg("built")
	return &nodepb.BuildReply{Postings: int64(st.Postings), Keys: int64(st.Keys), Bytes: int64(st.Bytes),
		Flipped: putU32s(nil, st.Flipped)}, nil
}

// Count implements nodepb.NodeServer.
func (s *Server) Count(r *nodepb.CountRequest, stream nodepb.Node_CountServer) error {
	if err := checkRun(stream.Context(), s.run.Load(), "count"); err != nil {
		return err
	}
	docs, err := getU32s(nil, r.Docs, "docs")
	if err != nil {
		return badRequest(err)
	}
	lists, err := s.node.Count(stream.Context(), docs)
	if err != nil {
		return statusOf(err)
	}
	if len(lists) != len(docs) {
		return status.Errorf(codes.Internal, "count: node returned %d lists for %d documents", len(lists), len(docs))
	}
	for _, m := range packPairLists(docs, lists) {
		if err := stream.Send(m); err != nil {
			return err
		}
	}
	return nil
}

// Query implements nodepb.NodeServer. It belongs to no run (queries overlap
// runs), so it is not fenced; the generation check stands in for the fence.
func (s *Server) Query(r *nodepb.QueryRequest, stream nodepb.Node_QueryServer) error {
	q, ok := s.raw.(cluster.Querier)
	if !ok {
		return status.Error(codes.Unimplemented, "query: this node does not count queries")
	}
	chunks, err := getU32s(nil, r.Chunks, "chunks")
	if err != nil {
		return badRequest(err)
	}
	if len(r.Checks) != len(chunks) {
		return badRequest(fmt.Errorf("query: %d chunks but %d fingerprints", len(chunks), len(r.Checks)))
	}
	if !slices.IsSorted(chunks) {
		return badRequest(errors.New("query: chunks are not sorted"))
	}
	pairs, err := q.Query(stream.Context(), cluster.Query{Gen: r.Gen, Self: r.Self, Chunks: chunks, Checks: r.Checks, DFCap: int(r.DfCap)})
	if err != nil {
		return statusOf(err)
	}
	for _, m := range packPairLists([]invindex.DocID{r.Self}, [][]invindex.Pair{pairs}) {
		if err := stream.Send(m); err != nil {
			return err
		}
	}
	return nil
}

// Commit implements nodepb.NodeServer.
func (s *Server) Commit(ctx context.Context, r *nodepb.CommitRequest) (*nodepb.Empty, error) {
	if err := checkRun(ctx, s.run.Load(), "commit"); err != nil {
		return nil, err
	}
	if err := s.node.Commit(ctx, r.Gen); err != nil {
		return nil, statusOf(err)
	}
	s.log.Info().Int64("generation", r.Gen).Msg("committed")
	return &nodepb.Empty{}, nil
}

// Abort implements nodepb.NodeServer.
func (s *Server) Abort(ctx context.Context, _ *nodepb.Empty) (*nodepb.Empty, error) {
	if err := checkRun(ctx, s.run.Load(), "abort"); err != nil {
		return nil, err
	}
	s.log.Info().Msg("run aborted")
	return &nodepb.Empty{}, statusOf(s.node.Abort(ctx))
}

// Snapshot implements nodepb.NodeServer.
func (s *Server) Snapshot(_ *nodepb.Empty, stream nodepb.Node_SnapshotServer) error {
	st, gen := s.node.Snapshot()
	w := &blobWriter{send: stream.Send, gen: gen}
	if err := writeState(w, st); err != nil {
		return err
	}
	return w.flush(true)
}

// Install implements nodepb.NodeServer.
func (s *Server) Install(stream nodepb.Node_InstallServer) error {
	r := &blobReader{recv: stream.Recv}
	st, err := readState(r)
	if err != nil {
		return badRequest(fmt.Errorf("install: %w", err))
	}
	if err := s.node.Install(st, r.gen); err != nil {
		return status.Error(codes.InvalidArgument, err.Error())
	}
	s.run.Store(0) // Install discards any run in progress
	s.log.Info().Int64("generation", r.gen).Int("postings", st.Postings()).Msg("installed")
	return stream.SendAndClose(&nodepb.Empty{})
}

// writeState writes a NodeState as the index files do: its base slice, then
// its delta (invindex/format.go, invindex/deltafile.go).
func writeState(w io.Writer, st *cluster.NodeState) error {
	bw := bufio.NewWriterSize(w, maxPart)
	h := invindex.Header{HashVersion: invindex.HashVersion, Generation: st.BaseGen}
	if err := invindex.WriteSlice(bw, h, st.Base); err != nil {
		return err
	}
	h.Lo, h.Hi = st.Base.Lo(), st.Base.Hi()
	if err := invindex.WriteDelta(bw, h, &st.Delta); err != nil {
		return err
	}
	return bw.Flush()
}

// readState reads what writeState wrote.
func readState(r io.Reader) (*cluster.NodeState, error) {
	br := bufio.NewReaderSize(r, maxPart)
	hb, base, err := invindex.ReadSlice(br)
	if err != nil {
		return nil, fmt.Errorf("base slice: %w", err)
	}
	hd, delta, err := invindex.ReadDelta(br)
	if err != nil {
		return nil, fmt.Errorf("delta: %w", err)
	}
	if hd.Lo != hb.Lo || hd.Hi != hb.Hi || delta.Base != hb.Generation {
		return nil, fmt.Errorf("delta [%d,%d) on generation %d does not match slice [%d,%d) of generation %d",
			hd.Lo, hd.Hi, delta.Base, hb.Lo, hb.Hi, hb.Generation)
	}
	if _, err := br.ReadByte(); err != io.EOF {
		return nil, errors.New("trailing bytes after the delta")
	}
	return cluster.NewNodeState(base, delta.Base, *delta)
}

// blobWriter cuts a byte stream into Blob messages of maxPart bytes.
type blobWriter struct {
	send func(*nodepb.Blob) error
	gen  int64
	buf  []byte
	sent bool
}

func (w *blobWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		k := min(len(p), maxPart-len(w.buf))
		w.buf = append(w.buf, p[:k]...)
		p = p[k:]
		if len(w.buf) == maxPart {
			if err := w.flush(false); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

func (w *blobWriter) flush(final bool) error {
	if len(w.buf) == 0 && (w.sent || !final) {
		return nil
	}
	err := w.send(&nodepb.Blob{Gen: w.gen, Data: w.buf})
	w.buf, w.sent = nil, true
	return err
}

// blobReader reads the byte stream of Blob messages; gen is the first's.
type blobReader struct {
	recv  func() (*nodepb.Blob, error)
	gen   int64
	buf   []byte
	first bool
}

func (r *blobReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		b, err := r.recv()
		if err != nil {
			return 0, err // io.EOF at the end of the stream
		}
		if !r.first {
			r.gen, r.first = b.Gen, true
		}
		r.buf = b.Data
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}
