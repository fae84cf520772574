package invindex

import (
	"fmt"
	"io"
)

// magicDelta marks a delta file: the changes a node applied on top of a base
// slice since that base was written (see WriteDelta).
const magicDelta = "plagddlt"

// Delta is what separates a node's current index from its base slice: the
// documents whose base postings are dead (Tombs: deleted, modified, or their
// DocID recycled) and the current chunk lists of every document indexed since
// the base (Docs). The live index is (base minus Tombs) plus Docs. Saving a
// Delta instead of the whole slice makes the cost of a run's files follow the
// size of the change, not of the archive.
type Delta struct {
	Base     int64   // generation of the base slice the delta applies to
	BaseDocs int     // documents with postings in that base (an estimate once tombstoned)
	Tombs    []DocID // sorted, distinct
	Docs     []DocChunks
}

// Postings counts the postings the delta adds.
func (d *Delta) Postings() int {
	n := 0
	for _, dc := range d.Docs {
		n += len(dc.Chunks)
	}
	return n
}

// WriteDelta writes d for the range [h.Lo, h.Hi). Header counts (covered by
// the header checksum, so a damaged file cannot make the reader allocate
// wildly): the number of documents and of postings. Body: base generation,
// tombstone count and DocIDs, then per document its DocID, chunk count,
// chunk IDs and fingerprints; then the body checksum and trailer.
func WriteDelta(w io.Writer, h Header, d *Delta) error {
	e := newEncoder(w)
	e.header(magicDelta, h, uint32(len(d.Docs)), uint32(d.Postings()))
	e.u64(uint64(d.Base))
	e.u32(uint32(d.BaseDocs))
	e.u32(uint32(len(d.Tombs)))
	e.u32s(d.Tombs)
	for _, dc := range d.Docs {
		e.u32(dc.Doc)
		e.u32(uint32(len(dc.Chunks)))
		e.u32s(dc.Chunks)
		e.bytes(dc.Checks)
	}
	e.endSection()
	e.raw([]byte(trailerMagic))
	return e.finish()
}

// ReadDelta reads a delta file written by WriteDelta, refusing with the
// package's sentinel errors anything it cannot read exactly.
func ReadDelta(r io.Reader) (Header, *Delta, error) {
	dec := newDecoder(r)
	h, ndocs, npost := dec.header(magicDelta)
	if dec.err != nil {
		return Header{}, nil, dec.err
	}
	if ndocs > MaxDocs {
		return Header{}, nil, fmt.Errorf("%w: %d documents in a delta", ErrCorrupt, ndocs)
	}
	d := &Delta{Base: int64(dec.u64("base generation"))}
	d.BaseDocs = int(dec.u32("base documents"))
	ntomb := dec.u32("tombstones")
	if dec.err == nil && ntomb > MaxDocs {
		return Header{}, nil, fmt.Errorf("%w: %d tombstones", ErrCorrupt, ntomb)
	}
	d.Tombs = dec.u32s(int(ntomb), "tombstones")
	left := npost
	d.Docs = make([]DocChunks, 0, ndocs)
	for i := uint32(0); i < ndocs && dec.err == nil; i++ {
		doc := dec.u32("document")
		n := dec.u32("chunk count")
		if dec.err == nil && n > left {
			return Header{}, nil, fmt.Errorf("%w: document %d has %d chunks, %d postings left", ErrCorrupt, doc, n, left)
		}
		left -= n
		dc := DocChunks{Doc: doc, Chunks: dec.u32s(int(n), "chunks")}
		dc.Checks = readBytes(dec, int(n), "fingerprints")
		d.Docs = append(d.Docs, dc)
	}
	dec.endSection("body")
	dec.trailer()
	if dec.err != nil {
		return Header{}, nil, dec.err
	}
	if err := d.validate(h.Lo, h.Hi); err != nil {
		return Header{}, nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return h, d, nil
}

// readBytes reads n bytes in pieces no larger than the decoder's buffer.
func readBytes(dec *decoder, n int, what string) []byte {
	out := make([]byte, 0, n)
	for len(out) < n && dec.err == nil {
		out = append(out, dec.read(min(n-len(out), len(dec.buf)), what, false)...)
	}
	return out
}

func (d *Delta) validate(lo, hi uint64) error {
	for i, t := range d.Tombs {
		if t >= MaxDocs || (i > 0 && t <= d.Tombs[i-1]) {
			return fmt.Errorf("tombstones unsorted or out of range at %d", i)
		}
	}
	seen := make(map[DocID]bool, len(d.Docs))
	for _, dc := range d.Docs {
		if dc.Doc >= MaxDocs || seen[dc.Doc] {
			return fmt.Errorf("document %d repeated or out of range", dc.Doc)
		}
		seen[dc.Doc] = true
		for j, c := range dc.Chunks {
			if uint64(c) < lo || uint64(c) >= hi || (j > 0 && c <= dc.Chunks[j-1]) {
				return fmt.Errorf("document %d: chunks unsorted or outside [%d, %d)", dc.Doc, lo, hi)
			}
		}
	}
	return nil
}
