package invindex

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"testing"
)

func testHeader() Header {
	return Header{
		Params:      Params{WindowWords: 5, ChunkBits: 28, StripDiacritics: true},
		HashVersion: 3,
		Generation:  -42,
		Instance:    "0b6f3c2e-plagd-test",
	}
}

func TestWriteReadSlice_RoundTrip(t *testing.T) {
	rng := testRand(t)
	for iter := range 100 {
		g := newCorpusGen(rng)
		r := g.corpus(rng.IntN(100))
		if iter == 0 {
			r = newRef(0, MaxSpace)
		}
		s := BuildSlice(r.lo, r.hi, r.input(rng))
		var buf bytes.Buffer
		h := testHeader()
		h.Lo, h.Hi = 1, 2 // replaced by the slice's range
		if err := WriteSlice(&buf, h, s); err != nil {
			t.Fatal(err)
		}
		if want := 68 + len(h.Instance) + 4*(2*s.Keys()+1+s.Postings()) + 12; buf.Len() != want {
			t.Fatalf("file is %d bytes, format says %d", buf.Len(), want)
		}
		gh, gs, err := ReadSlice(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		h.Lo, h.Hi = s.Lo(), s.Hi()
		if gh != h {
			t.Fatalf("header %+v, want %+v", gh, h)
		}
		if d := sliceDiff(gs, s); d != "" {
			t.Fatalf("round trip: %s", d)
		}
	}
}

// TestSliceFile_Example pins the bytes of the worked example in doc.go.
func TestSliceFile_Example(t *testing.T) {
	s := BuildSlice(0, 16, []DocChunks{
		{1, []uint32{3}, []uint8{0xaa}},
		{5, []uint32{3}, []uint8{0x01}},
		{2, []uint32{9}, []uint8{0x00}},
	})
	var buf bytes.Buffer
	if err := WriteSlice(&buf, Header{}, s); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	if string(b[:8]) != "plagdidx" || binary.LittleEndian.Uint32(b[8:]) != 2 {
		t.Fatalf("magic/version % x", b[:12])
	}
	if got := binary.LittleEndian.Uint64(b[44:]); got != 16 {
		t.Fatalf("hi at offset 44 = %d", got)
	}
	body := fmt.Sprintf("% x", b[68:68+32])
	want := "03 00 00 00 09 00 00 00 00 00 00 00 02 00 00 00 03 00 00 00 aa 01 00 00 01 05 00 00 00 02 00 00"
	if body != want {
		t.Fatalf("body\n %s\nwant\n %s", body, want)
	}
	if string(b[len(b)-8:]) != "plagdend" {
		t.Fatalf("trailer %q", b[len(b)-8:])
	}
}

func sampleFiles(t *testing.T) (slice, table []byte) {
	var sb, tb bytes.Buffer
	s := BuildSlice(100, 1<<20, []DocChunks{
		{1, []uint32{200, 300, 400}, []uint8{1, 2, 3}},
		{7, []uint32{300, 5000}, []uint8{2, 0xff}},
		{3, []uint32{300}, []uint8{9}},
	})
	if err := WriteSlice(&sb, testHeader(), s); err != nil {
		t.Fatal(err)
	}
	dt := NewDocTable()
	mustAssign(t, dt, 100, 3)
	mustAssign(t, dt, 200, 2)
	dt.Free(mustAssign(t, dt, 300, 1))
	mustAssign(t, dt, -5, 9)
	if err := WriteDocTable(&tb, testHeader(), dt); err != nil {
		t.Fatal(err)
	}
	return sb.Bytes(), tb.Bytes()
}

type fileReader func(io.Reader) error

var readers = map[string]fileReader{
	"slice": func(r io.Reader) error { _, _, err := ReadSlice(r); return err },
	"table": func(r io.Reader) error { _, _, err := ReadDocTable(r); return err },
}

// TestReadFile_CorruptByte flips every bit of every byte: each must be
// refused with the sentinel of the region it hit, never accepted, never a
// panic.
func TestReadFile_CorruptByte(t *testing.T) {
	sf, tf := sampleFiles(t)
	instLen := len(testHeader().Instance)
	for name, file := range map[string][]byte{"slice": sf, "table": tf} {
		read := readers[name]
		for i := range file {
			for bit := range 8 {
				b := bytes.Clone(file)
				b[i] ^= 1 << bit
				err := read(bytes.NewReader(b))
				var want []error
				switch {
				case i < 8:
					want = []error{ErrNotIndex}
				case i < 12:
					want = []error{ErrVersion}
				case i >= 52 && i < 56: // instance length: may run past the end
					want = []error{ErrChecksum, ErrTruncated}
				default:
					want = []error{ErrChecksum}
				}
				ok := false
				for _, w := range want {
					ok = ok || errors.Is(err, w)
				}
				if !ok {
					t.Fatalf("%s: flipping bit %d of byte %d (instance length %d): %v, want %v", name, bit, i, instLen, err, want)
				}
			}
		}
	}
}

func TestReadFile_Truncated(t *testing.T) {
	sf, tf := sampleFiles(t)
	for name, file := range map[string][]byte{"slice": sf, "table": tf} {
		for n := range len(file) {
			if err := readers[name](bytes.NewReader(file[:n])); !errors.Is(err, ErrTruncated) {
				t.Fatalf("%s cut to %d of %d bytes: %v, want ErrTruncated", name, n, len(file), err)
			}
		}
		if err := readers[name](bytes.NewReader(file)); err != nil {
			t.Fatalf("%s: intact file: %v", name, err)
		}
	}
}

func TestReadFile_WrongMagicAndVersion(t *testing.T) {
	sf, tf := sampleFiles(t)
	if _, _, err := ReadSlice(bytes.NewReader(tf)); !errors.Is(err, ErrNotIndex) {
		t.Fatalf("table read as slice: %v", err)
	}
	if _, _, err := ReadDocTable(bytes.NewReader(sf)); !errors.Is(err, ErrNotIndex) {
		t.Fatalf("slice read as table: %v", err)
	}
	if _, _, err := ReadSlice(bytes.NewReader([]byte("%PDF-1.7 and a lot more bytes after it"))); !errors.Is(err, ErrNotIndex) {
		t.Fatalf("pdf: %v", err)
	}
	for _, v := range []uint32{0, 1, 3, 1 << 31} { // 1: before fingerprints
		for name, file := range map[string][]byte{"slice": sf, "table": tf} {
			b := bytes.Clone(file)
			binary.LittleEndian.PutUint32(b[8:], v)
			err := readers[name](bytes.NewReader(b))
			if !errors.Is(err, ErrVersion) || errors.Is(err, ErrChecksum) {
				t.Fatalf("%s version %d: %v", name, v, err)
			}
		}
	}
}

// TestReadSlice_Inconsistent writes slices that break invariants with valid
// checksums: the reader must refuse them with ErrCorrupt.
func TestReadSlice_Inconsistent(t *testing.T) {
	bad := map[string]*Slice{
		"unsorted keys":     {lo: 0, hi: 100, keys: []uint32{5, 3}, offs: []uint32{0, 1, 2}, docs: []DocID{1, 1}},
		"key out of range":  {lo: 0, hi: 100, keys: []uint32{5, 300}, offs: []uint32{0, 1, 2}, docs: []DocID{1, 1}},
		"empty posting":     {lo: 0, hi: 100, keys: []uint32{5, 6}, offs: []uint32{0, 0, 2}, docs: []DocID{1, 2}},
		"offset past end":   {lo: 0, hi: 100, keys: []uint32{5, 6}, offs: []uint32{0, 9, 2}, docs: []DocID{1, 2}},
		"last offset wrong": {lo: 0, hi: 100, keys: []uint32{5}, offs: []uint32{0, 1}, docs: []DocID{1, 2}},
		"unsorted docs":     {lo: 0, hi: 100, keys: []uint32{5}, offs: []uint32{0, 2}, docs: []Posting{2 << 8, 1 << 8}},
		"repeated doc":      {lo: 0, hi: 100, keys: []uint32{5}, offs: []uint32{0, 2}, docs: []Posting{2 << 8, 2 << 8}},
		"doc twice, 2 fps":  {lo: 0, hi: 100, keys: []uint32{5}, offs: []uint32{0, 2}, docs: []Posting{2<<8 | 1, 2<<8 | 7}},
	}
	for name, s := range bad {
		var buf bytes.Buffer
		if err := WriteSlice(&buf, Header{}, s); err != nil {
			t.Fatal(err)
		}
		if _, _, err := ReadSlice(&buf); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("%s: %v, want ErrCorrupt", name, err)
		}
	}
	dup := &DocTable{ext: []int64{7, 7}, chunks: []uint32{1, 1}}
	var buf bytes.Buffer
	if err := WriteDocTable(&buf, Header{}, dup); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadDocTable(&buf); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("duplicate external ids: %v, want ErrCorrupt", err)
	}
}

// failWriter fails after n bytes, as a full disk does.
type failWriter struct{ n int }

var errDiskFull = errors.New("disk full")

func (w *failWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, errDiskFull
	}
	w.n -= len(p)
	return len(p), nil
}

func TestWriteFile_Errors(t *testing.T) {
	rng := testRand(t)
	var docs []DocChunks
	for d := range DocID(300) {
		docs = append(docs, DocChunks{d, []uint32{rng.Uint32N(1000), 1000 + rng.Uint32N(1000)}, []uint8{uint8(d), 7}})
	}
	s := BuildSlice(0, 1<<20, docs)
	for _, n := range []int{0, 10, 70, 1000, 4000} {
		if err := WriteSlice(&failWriter{n}, testHeader(), s); !errors.Is(err, errDiskFull) {
			t.Fatalf("fail after %d bytes: %v", n, err)
		}
	}
	h := testHeader()
	h.Instance = string(make([]byte, 5000))
	if err := WriteSlice(io.Discard, h, s); err == nil {
		t.Fatal("oversized instance name accepted")
	}
	h = testHeader()
	h.HashVersion = -1
	if err := WriteDocTable(io.Discard, h, NewDocTable()); err == nil {
		t.Fatal("negative hash version accepted")
	}
}
