package remote

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/cluster/nodepb"
	"github.com/plagd/plagd/related"
)

const noSame = math.MaxUint32

// packVectors splits vectors into parts of about maxPart bytes.
func packVectors(vs []related.Vector) []*nodepb.RelatedPart {
	var out []*nodepb.RelatedPart
	cur := &nodepb.RelatedPart{}
	size := 0
	for _, v := range vs {
		if size > 0 && size+12*len(v.Terms) > maxPart {
			out, cur, size = append(out, cur), &nodepb.RelatedPart{}, 0
		}
		cur.Lens = binary.LittleEndian.AppendUint32(cur.Lens, uint32(len(v.Terms)))
		cur.Norms = binary.LittleEndian.AppendUint32(cur.Norms, math.Float32bits(v.Norm))
		for i, t := range v.Terms {
			cur.Terms = binary.LittleEndian.AppendUint64(cur.Terms, t)
			cur.Weights = binary.LittleEndian.AppendUint32(cur.Weights, math.Float32bits(v.W[i]))
		}
		size += 8 + 12*len(v.Terms)
	}
	if size > 0 {
		out = append(out, cur)
	}
	return out
}

// unpackVectors appends the vectors of p to dst.
func unpackVectors(dst []related.Vector, p *nodepb.RelatedPart) ([]related.Vector, error) {
	n := len(p.Lens) / 4
	if len(p.Lens)%4 != 0 || len(p.Norms) != 4*n || len(p.Terms)%8 != 0 || len(p.Weights) != len(p.Terms)/2 {
		return dst, errors.New("related: malformed vector part")
	}
	off := 0
	for i := range n {
		m := int(binary.LittleEndian.Uint32(p.Lens[4*i:]))
		if off+m > len(p.Terms)/8 {
			return dst, errors.New("related: vector lengths exceed the terms sent")
		}
		v := related.Vector{Terms: make([]uint64, m), W: make([]float32, m),
			Norm: math.Float32frombits(binary.LittleEndian.Uint32(p.Norms[4*i:]))}
		for j := range m {
			v.Terms[j] = binary.LittleEndian.Uint64(p.Terms[8*(off+j):])
			v.W[j] = math.Float32frombits(binary.LittleEndian.Uint32(p.Weights[4*(off+j):]))
		}
		off += m
		dst = append(dst, v)
	}
	if off != len(p.Terms)/8 {
		return dst, errors.New("related: more terms sent than the vector lengths say")
	}
	return dst, nil
}

// Related implements nodepb.NodeServer.
func (s *Server) Related(stream nodepb.Node_RelatedServer) error {
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	jb := first.GetJob()
	if jb == nil || jb.K < 1 || jb.Data < 0 || jb.Queries < 0 || (jb.Method != "exact" && jb.Method != "zolip") ||
		len(jb.Same) != 4*int(jb.Queries) {
		return badRequest(errors.New("related: the first part must carry a valid job"))
	}
	j := cluster.RelatedJob{K: int(jb.K), Method: jb.Method, Lambda: int(jb.Lambda), Sigma: jb.Sigma, Same: make([]int32, jb.Queries)}
	for i := range j.Same {
		if v := binary.LittleEndian.Uint32(jb.Same[4*i:]); v != noSame {
			if v >= uint32(jb.Data) {
				return badRequest(fmt.Errorf("related: query %d is data document %d of %d", i, v, jb.Data))
			}
			j.Same[i] = int32(v)
		} else {
			j.Same[i] = -1
		}
	}
	var all []related.Vector
	for p := first; ; {
		if all, err = unpackVectors(all, p); err != nil {
			return badRequest(err)
		}
		if p, err = stream.Recv(); err == io.EOF {
			break
		} else if err != nil {
			return err
		}
	}
	if len(all) != int(jb.Data+jb.Queries) {
		return badRequest(fmt.Errorf("related: %d vectors received, the job announced %d", len(all), jb.Data+jb.Queries))
	}
	j.Data, j.Queries = all[:jb.Data], all[jb.Data:]
	lists, err := cluster.RunRelated(stream.Context(), j)
	if err != nil {
		return err
	}
	for _, m := range packNeighbors(lists) {
		if err := stream.Send(m); err != nil {
			return err
		}
	}
	return nil
}

// packNeighbors splits lists into messages of about maxPart bytes.
func packNeighbors(lists [][]related.Neighbor) []*nodepb.RelatedLists {
	var out []*nodepb.RelatedLists
	cur := &nodepb.RelatedLists{}
	size := 0
	for _, l := range lists {
		if size > 0 && size+8*len(l) > maxPart {
			out, cur, size = append(out, cur), &nodepb.RelatedLists{}, 0
		}
		cur.Lens = binary.LittleEndian.AppendUint32(cur.Lens, uint32(len(l)))
		for _, n := range l {
			cur.Docs = binary.LittleEndian.AppendUint32(cur.Docs, uint32(n.Doc))
			cur.Sims = binary.LittleEndian.AppendUint32(cur.Sims, math.Float32bits(n.Sim))
		}
		size += 4 + 8*len(l)
	}
	if len(lists) > 0 {
		out = append(out, cur)
	}
	return out
}

// Related implements cluster.RelatedJoiner: the node runs the job.
func (c *Client) Related(ctx context.Context, j cluster.RelatedJob) ([][]related.Neighbor, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	out, err := c.related(ctx, j)
	return out, c.wrap("related", err)
}

func (c *Client) related(ctx context.Context, j cluster.RelatedJob) ([][]related.Neighbor, error) {
	stream, err := c.rpc.Related(ctx)
	if err != nil {
		return nil, err
	}
	job := &nodepb.RelatedJob{K: int32(j.K), Method: j.Method, Lambda: int32(j.Lambda), Sigma: j.Sigma,
		Data: int32(len(j.Data)), Queries: int32(len(j.Queries))}
	for i := range j.Queries {
		v := uint32(noSame)
		if j.Same != nil && j.Same[i] >= 0 {
			v = uint32(j.Same[i])
		}
		job.Same = binary.LittleEndian.AppendUint32(job.Same, v)
	}
	parts := append(packVectors(j.Data), packVectors(j.Queries)...)
	if len(parts) == 0 {
		parts = []*nodepb.RelatedPart{{}}
	}
	parts[0].Job = job
	for _, p := range parts {
		if err := stream.Send(p); err != nil {
			return nil, err
		}
	}
	if err := stream.CloseSend(); err != nil {
		return nil, err
	}
	var lists [][]related.Neighbor
	for {
		m, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(m.Lens)%4 != 0 || len(m.Docs) != len(m.Sims) || len(m.Docs)%4 != 0 {
			return nil, status.Error(codes.Internal, "related: malformed reply")
		}
		off := 0
		for i := 0; i < len(m.Lens); i += 4 {
			n := int(binary.LittleEndian.Uint32(m.Lens[i:]))
			if off+n > len(m.Docs)/4 {
				return nil, status.Error(codes.Internal, "related: reply lengths exceed its neighbours")
			}
			l := make([]related.Neighbor, n)
			for k := range l {
				l[k] = related.Neighbor{Doc: int32(binary.LittleEndian.Uint32(m.Docs[4*(off+k):])),
					Sim: math.Float32frombits(binary.LittleEndian.Uint32(m.Sims[4*(off+k):]))}
			}
			off += n
			lists = append(lists, l)
		}
	}
	if len(lists) != len(j.Queries) {
		return nil, status.Errorf(codes.Internal, "related: %d lists for %d queries", len(lists), len(j.Queries))
	}
	return lists, nil
}
