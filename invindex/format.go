package invindex

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"

	"github.com/plagd/plagd/internal/hugepage"
)

// The file format is described in the package documentation (doc.go,
// "Index file format"); keep the two in step and bump formatVersion, with a
// line in the version history there, on any change to the bytes.

// formatVersion is the only version this code reads and writes.
//
//	1: first format.
//	2: postings are doc<<8 | fingerprint (was: doc IDs); DocIDs < MaxDocs.
const formatVersion = 2

const (
	magicSlice   = "plagdidx"
	magicTable   = "plagddoc"
	trailerMagic = "plagdend"
	maxInstance  = 4096 // bytes of Header.Instance
	flagStrip    = 1    // Params.StripDiacritics
	// Params.ExtraWindowWords is kept in bits 8-15 of the flags; 0 in files
	// written before it existed, which is what "off" means.
	flagExtraShift = 8
	flagExtraMask  = 0xff << flagExtraShift
)

// Errors returned by ReadSlice and ReadDocTable, wrapped with detail; test
// them with errors.Is. Every one means "rebuild this index by a full run",
// the index being derived data; they differ so the log says why.
var (
	// ErrNotIndex is returned when the file does not start with the magic
	// of the expected kind of plagd index file.
	ErrNotIndex = errors.New("invindex: not a plagd index file of this kind")
	// ErrVersion is returned when the file's format version is not the one
	// this plagd reads (an older or newer plagd wrote it).
	ErrVersion = errors.New("invindex: unsupported index format version")
	// ErrChecksum is returned when a CRC-32C does not match or the trailer
	// is damaged: the bytes changed after they were written.
	ErrChecksum = errors.New("invindex: index file checksum mismatch")
	// ErrTruncated is returned when the file ends before its last byte.
	ErrTruncated = errors.New("invindex: index file truncated")
	// ErrCorrupt is returned when the checksums match but the content breaks
	// an invariant (unsorted keys, offsets out of range...): a writer bug or
	// a crafted file. It is never misread.
	ErrCorrupt = errors.New("invindex: index file content is inconsistent")
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Header is written into every index file and returned by the readers, so
// the daemon can refuse files of another database (Instance), another run
// (Generation) or other chunking (Params, HashVersion).
type Header struct {
	Params      Params
	HashVersion int
	Generation  int64
	Instance    string
	Lo, Hi      uint64 // the slice's range; WriteSlice takes them from the slice
}

// WriteSlice writes s as a slice file. h.Lo and h.Hi are replaced by s's
// range. Errors come from w or from a Header that cannot be encoded.
func WriteSlice(w io.Writer, h Header, s *Slice) error {
	h.Lo, h.Hi = s.lo, s.hi
	e := newEncoder(w)
	e.header(magicSlice, h, uint32(len(s.keys)), uint32(len(s.docs)))
	e.u32s(s.keys)
	e.u32s(s.offs)
	e.u32s(s.docs)
	e.endSection()
	e.raw([]byte(trailerMagic))
	return e.finish()
}

// ReadSlice reads a slice file written by WriteSlice. It reads exactly the
// file's bytes from r and refuses, with one of the sentinel errors above,
// anything it cannot read exactly.
func ReadSlice(r io.Reader) (Header, *Slice, error) {
	d := newDecoder(r)
	h, nk, np := d.header(magicSlice)
	if d.err != nil {
		return Header{}, nil, d.err
	}
	if nk > np || uint64(nk) > h.Hi-h.Lo {
		return Header{}, nil, fmt.Errorf("%w: %d keys, %d postings in [%d, %d)", ErrCorrupt, nk, np, h.Lo, h.Hi)
	}
	s := &Slice{lo: h.Lo, hi: h.Hi}
	s.keys = d.u32s(int(nk), "keys")
	s.offs = d.u32s(int(nk)+1, "offsets")
	s.docs = d.u32s(int(np), "postings")
	d.endSection("body")
	d.trailer()
	if d.err != nil {
		return Header{}, nil, d.err
	}
	if err := s.validate(); err != nil {
		return Header{}, nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	s.finish()
	return h, s, nil
}

// WriteDocTable writes t as a document-table file.
func WriteDocTable(w io.Writer, h Header, t *DocTable) error {
	e := newEncoder(w)
	e.header(magicTable, h, uint32(len(t.ext)), uint32(t.Len()))
	for _, x := range t.ext {
		e.u64(uint64(x))
	}
	e.u32s(t.chunks)
	e.endSection()
	e.raw([]byte(trailerMagic))
	return e.finish()
}

// ReadDocTable reads a document-table file written by WriteDocTable.
func ReadDocTable(r io.Reader) (Header, *DocTable, error) {
	d := newDecoder(r)
	h, n, live := d.header(magicTable)
	if d.err != nil {
		return Header{}, nil, d.err
	}
	if live > n || n > MaxDocs {
		return Header{}, nil, fmt.Errorf("%w: %d live documents among %d ids (at most %d)", ErrCorrupt, live, n, MaxDocs)
	}
	t := &DocTable{ext: make([]int64, n)}
	for i := range t.ext {
		t.ext[i] = int64(d.u64("external ids"))
	}
	t.chunks = d.u32s(int(n), "chunk counts")
	d.endSection("body")
	d.trailer()
	if d.err != nil {
		return Header{}, nil, d.err
	}
	if err := t.rebuild(); err != nil {
		return Header{}, nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if t.Len() != int(live) {
		return Header{}, nil, fmt.Errorf("%w: %d live documents, header says %d", ErrCorrupt, t.Len(), live)
	}
	return h, t, nil
}

// encoder is a sticky-error little-endian writer that checksums what it
// writes: after the first error every call is a no-op and finish reports it,
// so the writing code reads as a list of fields.
type encoder struct {
	w   io.Writer
	buf []byte
	crc uint32
	err error
}

func newEncoder(w io.Writer) *encoder { return &encoder{w: w, buf: make([]byte, 0, 64<<10)} }

func (e *encoder) u32(v uint32) { e.buf = binary.LittleEndian.AppendUint32(e.buf, v); e.spill() }
func (e *encoder) u64(v uint64) { e.buf = binary.LittleEndian.AppendUint64(e.buf, v); e.spill() }

func (e *encoder) bytes(b []byte) {
	e.buf = append(e.buf, b...)
	e.spill()
}

func (e *encoder) u32s(vs []uint32) {
	for len(vs) > 0 {
		n := min(len(vs), (cap(e.buf)-len(e.buf))/4)
		if n == 0 {
			e.flush()
			continue
		}
		for _, v := range vs[:n] {
			e.buf = binary.LittleEndian.AppendUint32(e.buf, v)
		}
		vs = vs[n:]
	}
}

func (e *encoder) spill() {
	if len(e.buf) >= cap(e.buf)-64 {
		e.flush()
	}
}

// flush writes the buffer out, checksumming it.
func (e *encoder) flush() {
	if e.err == nil && len(e.buf) > 0 {
		e.crc = crc32.Update(e.crc, castagnoli, e.buf)
		_, e.err = e.w.Write(e.buf)
	}
	e.buf = e.buf[:0]
}

// raw writes b outside every checksum.
func (e *encoder) raw(b []byte) {
	e.flush()
	if e.err == nil {
		_, e.err = e.w.Write(b)
	}
}

// endSection writes the CRC-32C of the bytes since the previous section end
// and starts a new section.
func (e *encoder) endSection() {
	e.flush()
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], e.crc)
	e.raw(b[:])
	e.crc = 0
}

func (e *encoder) finish() error {
	e.flush()
	return e.err
}

// header writes magic, version, the Header and two kind-specific counts,
// then the header checksum.
func (e *encoder) header(magic string, h Header, n1, n2 uint32) {
	if err := checkHeader(h); err != nil {
		e.err = err
		return
	}
	e.bytes([]byte(magic))
	e.u32(formatVersion)
	e.u32(uint32(h.Params.WindowWords))
	e.u32(uint32(h.Params.ChunkBits))
	var flags uint32
	if h.Params.StripDiacritics {
		flags |= flagStrip
	}
	flags |= uint32(h.Params.ExtraWindowWords) << flagExtraShift & flagExtraMask
	e.u32(flags)
	e.u32(uint32(h.HashVersion))
	e.u64(uint64(h.Generation))
	e.u64(h.Lo)
	e.u64(h.Hi)
	e.u32(uint32(len(h.Instance)))
	e.bytes([]byte(h.Instance))
	e.u32(n1)
	e.u32(n2)
	e.endSection()
}

func checkHeader(h Header) error {
	switch {
	case h.Params.WindowWords < 0 || h.Params.WindowWords > math.MaxInt32:
		return fmt.Errorf("invindex: cannot encode window_words %d", h.Params.WindowWords)
	case h.Params.ExtraWindowWords < 0 || h.Params.ExtraWindowWords > 0xff:
		return fmt.Errorf("invindex: cannot encode extra_window_words %d", h.Params.ExtraWindowWords)
	case h.Params.ChunkBits > math.MaxInt32:
		return fmt.Errorf("invindex: cannot encode chunk_bits %d", h.Params.ChunkBits)
	case h.HashVersion < 0 || h.HashVersion > math.MaxInt32:
		return fmt.Errorf("invindex: cannot encode hash version %d", h.HashVersion)
	case len(h.Instance) > maxInstance:
		return fmt.Errorf("invindex: instance name longer than %d bytes", maxInstance)
	case h.Lo > h.Hi || h.Hi > MaxSpace:
		return fmt.Errorf("invindex: bad range [%d, %d) in header", h.Lo, h.Hi)
	}
	return nil
}

// decoder is the reading twin of encoder: sticky errors mapped to the
// sentinels, and a running CRC-32C over each section.
type decoder struct {
	r   io.Reader
	buf []byte
	crc uint32
	err error
}

func newDecoder(r io.Reader) *decoder { return &decoder{r: r, buf: make([]byte, 64<<10)} }

// read returns the next n bytes (n <= len(d.buf)), checksummed unless raw.
// The result is valid until the next call; after an error it is zeros.
func (d *decoder) read(n int, what string, raw bool) []byte {
	b := d.buf[:n]
	if d.err != nil {
		clear(b)
		return b
	}
	if _, err := io.ReadFull(d.r, b); err != nil {
		clear(b)
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			d.err = fmt.Errorf("%w: reading %s", ErrTruncated, what)
		} else {
			d.err = fmt.Errorf("invindex: reading %s: %w", what, err)
		}
		return b
	}
	if !raw {
		d.crc = crc32.Update(d.crc, castagnoli, b)
	}
	return b
}

func (d *decoder) u32(what string) uint32 { return binary.LittleEndian.Uint32(d.read(4, what, false)) }
func (d *decoder) u64(what string) uint64 { return binary.LittleEndian.Uint64(d.read(8, what, false)) }

// u32s reads n little-endian uint32s. n was checked against the header
// checksum before the allocation, so a damaged count cannot ask for memory.
func (d *decoder) u32s(n int, what string) []uint32 {
	if d.err != nil {
		return nil
	}
	out := hugepage.Make[uint32](n)
	for i := 0; i < n && d.err == nil; {
		m := min(n-i, len(d.buf)/4)
		b := d.read(4*m, what, false)
		for j := range m {
			out[i+j] = binary.LittleEndian.Uint32(b[4*j:])
		}
		i += m
	}
	return out
}

// endSection checks the stored CRC-32C of the section just read.
func (d *decoder) endSection(what string) {
	want := d.crc
	got := binary.LittleEndian.Uint32(d.read(4, what+" checksum", true))
	if d.err == nil && got != want {
		d.err = fmt.Errorf("%w: %s stored %08x, computed %08x", ErrChecksum, what, got, want)
	}
	d.crc = 0
}

func (d *decoder) trailer() {
	b := d.read(len(trailerMagic), "trailer", true)
	if d.err == nil && string(b) != trailerMagic {
		d.err = fmt.Errorf("%w: damaged trailer %q", ErrChecksum, b)
	}
}

// header reads and checks everything up to the header checksum. Order
// matters: the magic says what the file is, the version how to read the
// rest, and only then can the header be parsed and its checksum verified.
func (d *decoder) header(magic string) (h Header, n1, n2 uint32) {
	m := string(d.read(len(magic), "magic", false))
	if d.err != nil {
		return
	}
	if m != magic {
		kind := "unknown"
		switch m {
		case magicSlice:
			kind = "a slice file"
		case magicTable:
			kind = "a document-table file"
		case magicDelta:
			kind = "a delta file"
		}
		d.err = fmt.Errorf("%w: magic %q (%s), want %q", ErrNotIndex, m, kind, magic)
		return
	}
	if v := d.u32("version"); d.err == nil && v != formatVersion {
		d.err = fmt.Errorf("%w: file has version %d, this plagd reads %d; rebuild the index with a full run", ErrVersion, v, formatVersion)
		return
	}
	h.Params.WindowWords = int(d.u32("header"))
	h.Params.ChunkBits = uint(d.u32("header"))
	flags := d.u32("header")
	h.Params.StripDiacritics = flags&flagStrip != 0
	h.Params.ExtraWindowWords = int(flags&flagExtraMask) >> flagExtraShift
	h.HashVersion = int(d.u32("header"))
	h.Generation = int64(d.u64("header"))
	h.Lo = d.u64("header")
	h.Hi = d.u64("header")
	n := d.u32("header")
	if d.err == nil && n > maxInstance {
		d.err = fmt.Errorf("%w: header damaged (instance length %d)", ErrChecksum, n)
		return
	}
	h.Instance = string(d.read(int(n), "header", false))
	n1 = d.u32("header")
	n2 = d.u32("header")
	d.endSection("header")
	if d.err != nil {
		return
	}
	if flags&^(flagStrip|flagExtraMask) != 0 || h.Lo > h.Hi || h.Hi > MaxSpace {
		d.err = fmt.Errorf("%w: header flags %x, range [%d, %d)", ErrCorrupt, flags, h.Lo, h.Hi)
	}
	return
}
