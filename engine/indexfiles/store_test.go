package indexfiles

import (
	"os"
	"testing"

	"github.com/plagd/plagd/invindex"
)

// TestIndexStore_ReusesOnlyItsOwnFiles is the store's side of item 14,
// without a database: a base file under the very name and header this
// database would write (a restored backup's old history) is neither
// reported by HasBase (the master's disk copy would keep it) nor kept by
// save, and files the store does not know are pruned.
func TestIndexStore_ReusesOnlyItsOwnFiles(t *testing.T) {
	dir := t.TempDir()
	p := invindex.DefaultParams()
	const instance = "abc/123"
	hi := p.SpaceSize()
	stale := invindex.BuildSlice(0, hi, []invindex.DocChunks{{Doc: 0, Chunks: []uint32{1, 2, 3}, Checks: []uint8{1, 2, 3}}})
	ours := invindex.BuildSlice(0, hi, []invindex.DocChunks{{Doc: 0, Chunks: []uint32{7, 8}, Checks: []uint8{7, 8}}})
	h := invindex.Header{Params: p, HashVersion: invindex.HashVersion, Instance: instance}

	// The old history (another process) wrote generation 1 and a later base.
	old := &Store{dir: dir}
	if err := old.writeBase(h, stale, 1, true); err != nil {
		t.Fatal(err)
	}
	if err := old.writeBase(h, stale, 99, true); err != nil {
		t.Fatal(err)
	}

	s := &Store{dir: dir}
	files := &Files{s: s, params: func() invindex.Params { return p }, instance: func() string { return instance }}
	if files.HasBase(0, hi, 1) {
		t.Fatal("HasBase reports a file this store neither wrote nor checked")
	}
	docs := invindex.NewDocTable()
	docs.Assign(1, 2)
	if err := s.Save(1, instance, p, docs, []Range{{lo: 0, hi: hi, baseGen: 1, base: ours,
		delta: &invindex.Delta{Base: 1, BaseDocs: 1}}}); err != nil {
		t.Fatal(err)
	}
	got, err := files.ReadBase(0, hi, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got.Postings() != ours.Postings() {
		t.Fatalf("base of generation 1 has %d postings, want this run's %d: the stale file was kept", got.Postings(), ours.Postings())
	}
	if !files.HasBase(0, hi, 1) {
		t.Fatal("HasBase does not report the base this store wrote")
	}
	if _, err := os.Stat(sliceFile(dir, 0, hi, 99)); !os.IsNotExist(err) {
		t.Fatalf("a base file the store does not know survived the save: %v", err)
	}
}
