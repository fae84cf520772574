package remote

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/cluster/nodepb"
	"github.com/plagd/plagd/routing"
)

func putDocs(docs []cluster.RoutingDoc) (ids, lens, feats []byte) {
	for _, d := range docs {
		ids = binary.LittleEndian.AppendUint32(ids, d.ID)
		lens = binary.LittleEndian.AppendUint32(lens, uint32(len(d.Features)))
		for _, f := range d.Features {
			feats = binary.LittleEndian.AppendUint64(feats, f)
		}
	}
	return ids, lens, feats
}

func getDocs(dst []cluster.RoutingDoc, ids, lens, feats []byte) ([]cluster.RoutingDoc, error) {
	if len(ids)%4 != 0 || len(lens) != len(ids) || len(feats)%8 != 0 {
		return dst, errors.New("routing: malformed documents")
	}
	off := 0
	for i := 0; i < len(ids); i += 4 {
		n := int(binary.LittleEndian.Uint32(lens[i:]))
		if off+n > len(feats)/8 {
			return dst, errors.New("routing: feature counts exceed the features sent")
		}
		fs := make([]uint64, n)
		for j := range fs {
			fs[j] = binary.LittleEndian.Uint64(feats[8*(off+j):])
		}
		off += n
		dst = append(dst, cluster.RoutingDoc{ID: binary.LittleEndian.Uint32(ids[i:]), Features: fs})
	}
	return dst, nil
}

// RoutingSync implements nodepb.NodeServer.
func (s *Server) RoutingSync(stream nodepb.Node_RoutingSyncServer) error {
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	h := first.GetHeader()
	if h == nil || h.K < 1 || h.M < 1 || len(h.Owned)%4 != 0 {
		return badRequest(errors.New("routing sync: the first part must carry a valid header"))
	}
	var add, remove []cluster.RoutingDoc
	for p := first; ; {
		if add, err = getDocs(add, p.AddDocs, p.AddLens, p.AddFeatures); err == nil {
			remove, err = getDocs(remove, p.RemoveDocs, p.RemoveLens, p.RemoveFeatures)
		}
		if err != nil {
			return badRequest(err)
		}
		if p, err = stream.Recv(); err == io.EOF {
			break
		} else if err != nil {
			return err
		}
	}
	rs := cluster.RoutingSync{From: h.From, To: h.To, Full: h.Full, K: int(h.K), M: int(h.M), Add: add, Remove: remove}
	for i := 0; i < len(h.Owned); i += 4 {
		rs.Owned = append(rs.Owned, int(binary.LittleEndian.Uint32(h.Owned[i:])))
	}
	if err := s.routing.RoutingSync(stream.Context(), rs); err != nil {
		return routingStatus(err)
	}
	return stream.SendAndClose(&nodepb.Empty{})
}

// RoutingQuery implements nodepb.NodeServer.
func (s *Server) RoutingQuery(ctx context.Context, r *nodepb.RoutingQueryRequest) (*nodepb.RoutingMatches, error) {
	if len(r.Partitions)%4 != 0 || len(r.Features)%8 != 0 {
		return nil, badRequest(errors.New("routing query: malformed request"))
	}
	fs := make([]uint64, len(r.Features)/8)
	for i := range fs {
		fs[i] = binary.LittleEndian.Uint64(r.Features[8*i:])
	}
	ps := make([]int, len(r.Partitions)/4)
	for i := range ps {
		ps[i] = int(binary.LittleEndian.Uint32(r.Partitions[4*i:]))
	}
	all, err := s.routing.RoutingQuery(ctx, r.Gen, ps, fs)
	if err != nil {
		return nil, routingStatus(err)
	}
	out := &nodepb.RoutingMatches{}
	for _, m := range all {
		out.Docs = binary.LittleEndian.AppendUint32(out.Docs, m.Doc)
		out.Shared = binary.LittleEndian.AppendUint32(out.Shared, uint32(m.Shared))
		out.Jaccard = binary.LittleEndian.AppendUint64(out.Jaccard, math.Float64bits(m.Jaccard))
	}
	return out, nil
}

// routingStatus maps the routing share's errors to the codes the client
// maps back: a stale share is FailedPrecondition (ErrRoutingStale), a
// request it cannot answer InvalidArgument.
func routingStatus(err error) error {
	switch {
	case errors.Is(err, cluster.ErrRoutingStale):
		return status.Error(codes.FailedPrecondition, err.Error())
	case errors.Is(err, cluster.ErrRoutingRequest):
		return badRequest(err)
	}
	return statusOf(err)
}

// RoutingSync implements cluster.RoutingPartitions: it sends a sync to the node; ErrRoutingStale when the node is
// not at s.From (send a full load).
func (c *Client) RoutingSync(ctx context.Context, s cluster.RoutingSync) error {
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	err := c.routingSync(ctx, s)
	if status.Code(err) == codes.FailedPrecondition {
		return cluster.ErrRoutingStale
	}
	return c.wrap("routing sync", err)
}

func (c *Client) routingSync(ctx context.Context, s cluster.RoutingSync) error {
	stream, err := c.rpc.RoutingSync(ctx)
	if err != nil {
		return err
	}
	h := &nodepb.RoutingHeader{From: s.From, To: s.To, Full: s.Full, K: int32(s.K), M: int32(s.M)}
	for _, p := range s.Owned {
		h.Owned = binary.LittleEndian.AppendUint32(h.Owned, uint32(p))
	}
	parts := []*nodepb.RoutingPart{{Header: h}}
	// Documents go in parts of about maxPart bytes.
	add := func(docs []cluster.RoutingDoc, removing bool) {
		for len(docs) > 0 {
			n, size := 0, 0
			for n < len(docs) && (n == 0 || size+8*len(docs[n].Features) <= maxPart) {
				size += 8 + 8*len(docs[n].Features)
				n++
			}
			ids, lens, feats := putDocs(docs[:n])
			if removing {
				parts = append(parts, &nodepb.RoutingPart{RemoveDocs: ids, RemoveLens: lens, RemoveFeatures: feats})
			} else {
				parts = append(parts, &nodepb.RoutingPart{AddDocs: ids, AddLens: lens, AddFeatures: feats})
			}
			docs = docs[n:]
		}
	}
	add(s.Remove, true)
	add(s.Add, false)
	for _, p := range parts {
		if err := stream.Send(p); err != nil {
			return err
		}
	}
	_, err = stream.CloseAndRecv()
	return err
}

// RoutingQuery implements cluster.RoutingPartitions: it asks the node's partitions (which it must own) at generation
// gen; ErrRoutingStale when the node is elsewhere.
func (c *Client) RoutingQuery(ctx context.Context, gen int64, partitions []int, fs []uint64) ([]routing.Match, error) {
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	req := &nodepb.RoutingQueryRequest{Gen: gen}
	for _, p := range partitions {
		req.Partitions = binary.LittleEndian.AppendUint32(req.Partitions, uint32(p))
	}
	for _, f := range fs {
		req.Features = binary.LittleEndian.AppendUint64(req.Features, f)
	}
	r, err := c.rpc.RoutingQuery(ctx, req)
	if status.Code(err) == codes.FailedPrecondition {
		return nil, cluster.ErrRoutingStale
	}
	if err != nil {
		return nil, c.wrap("routing query", err)
	}
	if len(r.Docs)%4 != 0 || len(r.Shared) != len(r.Docs) || len(r.Jaccard) != 2*len(r.Docs) {
		return nil, c.wrap("routing query", status.Error(codes.Internal, "malformed reply"))
	}
	out := make([]routing.Match, len(r.Docs)/4)
	for i := range out {
		out[i] = routing.Match{Doc: binary.LittleEndian.Uint32(r.Docs[4*i:]), Shared: int(binary.LittleEndian.Uint32(r.Shared[4*i:])),
			Jaccard: math.Float64frombits(binary.LittleEndian.Uint64(r.Jaccard[8*i:]))}
	}
	return out, nil
}
