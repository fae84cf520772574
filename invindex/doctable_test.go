package invindex

import (
	"bytes"
	"errors"
	"slices"
	"testing"
)

func mustAssign(t testing.TB, dt *DocTable, ext int64, chunks uint32) DocID {
	t.Helper()
	d, err := dt.Assign(ext, chunks)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestDocTable_Limit checks that Assign refuses a DocID at MaxDocs (lowered
// here so the table stays small) with ErrTooManyDocs, changing nothing, and
// works again once an id is freed; and that a table file claiming more ids
// than MaxDocs is refused.
func TestDocTable_Limit(t *testing.T) {
	dt := NewDocTable()
	dt.limit = 3
	for i := range 3 {
		mustAssign(t, dt, int64(10+i), 1)
	}
	c := dt.Clone()
	for _, tbl := range []*DocTable{dt, c} {
		d, err := tbl.Assign(99, 1)
		if !errors.Is(err, ErrTooManyDocs) || d != 0 {
			t.Fatalf("Assign past the limit: %d, %v; want ErrTooManyDocs", d, err)
		}
		if _, ok := tbl.Lookup(99); ok || tbl.Len() != 3 || tbl.MaxID() != 3 {
			t.Fatalf("refused Assign changed the table: len %d max %d", tbl.Len(), tbl.MaxID())
		}
		if d := mustAssign(t, tbl, 11, 5); d != 1 { // present: still fine
			t.Fatalf("re-assign at the limit: %d", d)
		}
	}
	dt.Free(1)
	if d := mustAssign(t, dt, 99, 1); d != 1 {
		t.Fatalf("after a free: %d, want the freed id 1", d)
	}
	// Default limit.
	if NewDocTable().limit != 0 || MaxDocs != 1<<24 {
		t.Fatal("default limit is not MaxDocs = 2^24")
	}
	// A file with more ids than MaxDocs (consistent checksums) is corrupt.
	var buf bytes.Buffer
	e := newEncoder(&buf)
	e.header(magicTable, testHeader(), MaxDocs+1, 0)
	e.endSection()
	if err := e.finish(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadDocTable(&buf); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("table of MaxDocs+1 ids: %v, want ErrCorrupt", err)
	}
}

func TestDocTable_Recycling(t *testing.T) {
	dt := NewDocTable()
	for i := range 5 {
		if d := mustAssign(t, dt, int64(100+i), uint32(i+1)); d != DocID(i) {
			t.Fatalf("Assign %d = %d", i, d)
		}
	}
	dt.Free(3)
	dt.Free(1)
	dt.Free(1) // twice: no-op
	dt.Free(99)
	if dt.Len() != 3 || dt.MaxID() != 5 || dt.Ext(1) != 0 || dt.Chunks(3) != 0 {
		t.Fatalf("after free: len %d max %d", dt.Len(), dt.MaxID())
	}
	if _, ok := dt.Lookup(101); ok {
		t.Fatal("freed ext still found")
	}
	// Lowest free first, then new ids.
	for _, want := range []DocID{1, 3, 5} {
		if d := mustAssign(t, dt, int64(200+want), 7); d != want {
			t.Fatalf("Assign = %d, want %d", d, want)
		}
	}
	// Assigning a present ext updates it.
	if d := mustAssign(t, dt, 100, 42); d != 0 || dt.Chunks(0) != 42 {
		t.Fatalf("re-assign: %d %d", d, dt.Chunks(0))
	}
	dt.Set(2, 11)
	dt.Set(77, 11) // unknown: no-op
	if dt.Chunks(2) != 11 || dt.Ext(2) != 102 {
		t.Fatal("Set")
	}
	var seen []DocID
	dt.Each(func(d DocID, ext int64, chunks uint32) {
		if dt.Ext(d) != ext || dt.Chunks(d) != chunks {
			t.Fatalf("Each(%d) disagrees", d)
		}
		seen = append(seen, d)
	})
	if !slices.Equal(seen, []DocID{0, 1, 2, 3, 4, 5}) {
		t.Fatalf("Each order %v", seen)
	}
}

func TestDocTable_CloneIsIndependent(t *testing.T) {
	dt := NewDocTable()
	mustAssign(t, dt, 1, 1)
	mustAssign(t, dt, 2, 2)
	dt.Free(0)
	c := dt.Clone()
	mustAssign(t, c, 3, 3) // takes id 0 in the clone only
	c.Set(1, 99)
	c.Free(1)
	if dt.Ext(0) != 0 || dt.Chunks(1) != 2 || dt.Len() != 1 {
		t.Fatal("clone mutated the original")
	}
	if d := mustAssign(t, dt, 4, 4); d != 0 {
		t.Fatalf("original's free list changed: got %d", d)
	}
}

// TestDocTable_Model runs random operations against a map model, with a
// file round trip now and then.
func TestDocTable_Model(t *testing.T) {
	rng := testRand(t)
	dt := NewDocTable()
	model := map[int64]uint32{} // ext → chunks
	ids := map[int64]DocID{}
	for step := range 5000 {
		switch rng.IntN(3) {
		case 0, 1:
			ext := int64(rng.IntN(500)) - 250
			if ext == 0 {
				continue
			}
			n := rng.Uint32()
			d := mustAssign(t, dt, ext, n)
			if old, ok := ids[ext]; ok && old != d {
				t.Fatalf("re-assign moved %d from %d to %d", ext, old, d)
			}
			if _, ok := ids[ext]; !ok {
				// The lowest free id: no live id below d is free.
				for x := DocID(0); x < d; x++ {
					if dt.Ext(x) == 0 {
						t.Fatalf("assigned %d while %d is free", d, x)
					}
				}
			}
			ids[ext], model[ext] = d, n
		case 2:
			for ext, d := range ids {
				dt.Free(d)
				delete(ids, ext)
				delete(model, ext)
				break
			}
		}
		if step%500 == 0 {
			var buf bytes.Buffer
			if err := WriteDocTable(&buf, testHeader(), dt); err != nil {
				t.Fatal(err)
			}
			h, rt, err := ReadDocTable(&buf)
			if err != nil || h != testHeader() {
				t.Fatalf("round trip: %v %+v", err, h)
			}
			dt = rt // continue on the read copy: its free list must work too
		}
		if dt.Len() != len(model) {
			t.Fatalf("Len %d, want %d", dt.Len(), len(model))
		}
		for ext, d := range ids {
			if got, ok := dt.Lookup(ext); !ok || got != d || dt.Ext(d) != ext || dt.Chunks(d) != model[ext] {
				t.Fatalf("ext %d: lookup %d %v", ext, got, ok)
			}
		}
	}
}
