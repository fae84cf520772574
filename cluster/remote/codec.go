package remote

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/cluster/nodepb"
	"github.com/plagd/plagd/invindex"
)

// maxPart is the payload budget of one streamed message (about 1 MiB), well
// under gRPC's default 4 MiB receive limit.
var maxPart = 1 << 20 // a variable so that tests can force splitting

// putU32s appends vs as packed little-endian u32s.
func putU32s(dst []byte, vs []uint32) []byte {
	if nativeLE {
		return append(dst, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(vs))), 4*len(vs))...)
	}
	for _, v := range vs {
		dst = binary.LittleEndian.AppendUint32(dst, v)
	}
	return dst
}

// getU32s appends the packed little-endian u32s of b to dst.
func getU32s(dst []uint32, b []byte, what string) ([]uint32, error) {
	if len(b)%4 != 0 {
		return dst, fmt.Errorf("%s: %d bytes is not a whole number of u32s", what, len(b))
	}
	for i := 0; i < len(b); i += 4 {
		dst = append(dst, binary.LittleEndian.Uint32(b[i:]))
	}
	return dst, nil
}

var nativeLE = func() bool { x := uint16(1); return *(*byte)(unsafe.Pointer(&x)) == 1 }()

// piece is elements [from, to) of list `list`; cont marks a piece that does
// not start its list.
type piece struct {
	list, from, to int
}

// split groups the elements of lists with the given lengths into messages of
// at most about limit bytes, perList bytes per list header and perElem per
// element. Every list appears (an empty list as an empty piece); a list too
// long for one message is cut across messages. No lists, no messages.
func split(lens []int, perList, perElem, limit int) [][]piece {
	var out [][]piece
	var cur []piece
	used := 0
	for i, n := range lens {
		from := 0
		for {
			room := (limit - used - perList) / perElem
			if len(cur) > 0 && (room <= 0 || room < n-from && room < 64) {
				out, cur, used = append(out, cur), nil, 0 // flush rather than cut a list into slivers
				continue
			}
			room = max(room, 1)
			to := min(n, from+room)
			cur = append(cur, piece{list: i, from: from, to: to})
			used += perList + (to-from)*perElem
			if to == n {
				break
			}
			from = to
			out, cur, used = append(out, cur), nil, 0
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// packChunkLists packs chunk lists (with word counts when words is not nil)
// into Lists messages of at most about maxPart bytes.
func packChunkLists(docs []invindex.DocChunks, words []int) []*nodepb.Lists {
	lens := make([]int, len(docs))
	for i, d := range docs {
		lens[i] = len(d.Chunks)
	}
	var out []*nodepb.Lists
	for _, msg := range split(lens, 12, 5, maxPart) {
		m := &nodepb.Lists{Cont: msg[0].from > 0}
		for _, p := range msg {
			d := docs[p.list]
			m.Docs = binary.LittleEndian.AppendUint32(m.Docs, d.Doc)
			m.Lens = binary.LittleEndian.AppendUint32(m.Lens, uint32(p.to-p.from))
			if words != nil {
				m.Words = binary.LittleEndian.AppendUint32(m.Words, uint32(words[p.list]))
			}
			m.Chunks = putU32s(m.Chunks, d.Chunks[p.from:p.to])
			m.Checks = append(m.Checks, d.Checks[p.from:p.to]...)
		}
		out = append(out, m)
	}
	return out
}

// chunkUnpacker reassembles chunk lists from Lists messages.
type chunkUnpacker struct {
	docs  []invindex.DocChunks
	words []int
}

func (u *chunkUnpacker) add(m *nodepb.Lists) error {
	docs, err := getU32s(nil, m.Docs, "docs")
	if err != nil {
		return err
	}
	lens, err := getU32s(nil, m.Lens, "lens")
	if err != nil {
		return err
	}
	chunks, err := getU32s(nil, m.Chunks, "chunks")
	if err != nil {
		return err
	}
	var words []uint32
	if len(m.Words) > 0 {
		if words, err = getU32s(nil, m.Words, "words"); err != nil {
			return err
		}
	}
	switch {
	case len(docs) != len(lens) || (words != nil && len(words) != len(docs)):
		return fmt.Errorf("lists: %d docs, %d lengths, %d word counts", len(docs), len(lens), len(words))
	case len(chunks) != len(m.Checks):
		return fmt.Errorf("lists: %d chunks but %d fingerprints", len(chunks), len(m.Checks))
	case len(docs) == 0:
		return fmt.Errorf("lists: empty message")
	}
	off := 0
	for i, d := range docs {
		n := int(lens[i])
		if n > len(chunks)-off {
			return fmt.Errorf("lists: lengths exceed the %d chunks of the message", len(chunks))
		}
		c, k := chunks[off:off+n:off+n], m.Checks[off:off+n:off+n]
		off += n
		if i == 0 && m.Cont {
			if len(u.docs) == 0 || u.docs[len(u.docs)-1].Doc != d {
				return fmt.Errorf("lists: continuation of document %d does not follow it", d)
			}
			last := &u.docs[len(u.docs)-1]
			last.Chunks = append(last.Chunks, c...)
			last.Checks = append(last.Checks, k...)
			continue
		}
		u.docs = append(u.docs, invindex.DocChunks{Doc: d, Chunks: c, Checks: k})
		if words != nil {
			u.words = append(u.words, int(words[i]))
		}
	}
	if off != len(chunks) {
		return fmt.Errorf("lists: %d chunks left over", len(chunks)-off)
	}
	return nil
}

// packPairLists packs count lists (lists[i] belongs to docs[i]).
func packPairLists(docs []invindex.DocID, lists [][]invindex.Pair) []*nodepb.Lists {
	lens := make([]int, len(lists))
	for i, l := range lists {
		lens[i] = len(l)
	}
	var out []*nodepb.Lists
	for _, msg := range split(lens, 8, 8, maxPart) {
		m := &nodepb.Lists{Cont: msg[0].from > 0}
		for _, p := range msg {
			m.Docs = binary.LittleEndian.AppendUint32(m.Docs, docs[p.list])
			m.Lens = binary.LittleEndian.AppendUint32(m.Lens, uint32(p.to-p.from))
			for _, pr := range lists[p.list][p.from:p.to] {
				m.Others = binary.LittleEndian.AppendUint32(m.Others, pr.Other)
				m.Shared = binary.LittleEndian.AppendUint32(m.Shared, pr.Shared)
			}
		}
		out = append(out, m)
	}
	return out
}

// pairUnpacker reassembles count lists.
type pairUnpacker struct {
	docs  []invindex.DocID
	lists [][]invindex.Pair
}

func (u *pairUnpacker) add(m *nodepb.Lists) error {
	docs, err := getU32s(nil, m.Docs, "docs")
	if err != nil {
		return err
	}
	lens, err := getU32s(nil, m.Lens, "lens")
	if err != nil {
		return err
	}
	others, err := getU32s(nil, m.Others, "others")
	if err != nil {
		return err
	}
	shared, err := getU32s(nil, m.Shared, "shared")
	if err != nil {
		return err
	}
	switch {
	case len(docs) != len(lens):
		return fmt.Errorf("lists: %d docs, %d lengths", len(docs), len(lens))
	case len(others) != len(shared):
		return fmt.Errorf("lists: %d others but %d counts", len(others), len(shared))
	case len(docs) == 0:
		return fmt.Errorf("lists: empty message")
	}
	off := 0
	for i, d := range docs {
		n := int(lens[i])
		if n > len(others)-off {
			return fmt.Errorf("lists: lengths exceed the %d pairs of the message", len(others))
		}
		ps := make([]invindex.Pair, n)
		for j := range ps {
			ps[j] = invindex.Pair{Other: others[off+j], Shared: shared[off+j]}
		}
		off += n
		if i == 0 && m.Cont {
			if len(u.docs) == 0 || u.docs[len(u.docs)-1] != d {
				return fmt.Errorf("lists: continuation of document %d does not follow it", d)
			}
			u.lists[len(u.lists)-1] = append(u.lists[len(u.lists)-1], ps...)
			continue
		}
		u.docs = append(u.docs, d)
		u.lists = append(u.lists, ps)
	}
	if off != len(others) {
		return fmt.Errorf("lists: %d pairs left over", len(others)-off)
	}
	return nil
}

// packTexts cuts a batch of texts into messages of at most about maxPart
// bytes of text; a long text continues over several parts.
func packTexts(batch []cluster.Text) [][]*nodepb.TextPart {
	lens := make([]int, len(batch))
	for i, t := range batch {
		lens[i] = len(t.Text)
	}
	var out [][]*nodepb.TextPart
	for _, msg := range split(lens, 8, 1, maxPart) {
		parts := make([]*nodepb.TextPart, len(msg))
		for i, p := range msg {
			t := batch[p.list]
			parts[i] = &nodepb.TextPart{Doc: t.Doc, Text: []byte(t.Text[p.from:p.to]), Cont: p.from > 0}
		}
		out = append(out, parts)
	}
	return out
}

// unpackTexts reassembles texts from their parts, in order.
func unpackTexts(parts []*nodepb.TextPart) ([]cluster.Text, error) {
	var out []cluster.Text
	var buf []byte
	flush := func() {
		if len(out) > 0 {
			out[len(out)-1].Text = string(buf)
		}
		buf = buf[:0]
	}
	for _, p := range parts {
		if p.Cont {
			if len(out) == 0 || out[len(out)-1].Doc != p.Doc {
				return nil, fmt.Errorf("texts: continuation of document %d does not follow it", p.Doc)
			}
			buf = append(buf, p.Text...)
			continue
		}
		flush()
		out = append(out, cluster.Text{Doc: p.Doc})
		buf = append(buf, p.Text...)
	}
	flush()
	return out, nil
}
