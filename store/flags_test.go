package store

import (
	"context"
	"reflect"
	"testing"

	"github.com/plagd/plagd/disguise"
	"github.com/plagd/plagd/internal/pgtest"
)

// TestFlags: a document's flags, as document_texts holds them, reach its
// Document, the flagged filter of the list and the status's counts per
// kind; deleted documents and documents without a stored text have none.
func TestFlags(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Pool(t, pgtest.NewDB(t))
	f := newReportFixture(t, pool)
	inv := []disguise.Flag{{Kind: disguise.Invisible, Count: 3, Spans: []disguise.Span{{Start: 2, End: 5}}, Detail: "zero-width space ×3"}}
	both := disguise.Merge(inv, []disguise.Flag{{Kind: disguise.Confusable, Count: 412, Spans: []disguise.Span{{Start: 0, End: 2}}}})
	text := func(id int64, flags []disguise.Flag) {
		v, err := FlagsValue(flags)
		if err != nil {
			t.Fatal(err)
		}
		pgtest.Exec(t, pool, `insert into document_texts (doc_id, body, run_id, flags) values ($1, 'some text', 1, $2)`, id, v)
	}
	text(f.indexed, inv)
	text(f.indexed2, both)
	text(f.indexed3, nil)
	text(f.deleted, both) // soft-deleted, not yet handled by a run

	for id, want := range map[int64][]disguise.Flag{f.indexed: inv, f.indexed2: both, f.indexed3: nil, f.pending: nil} {
		d, err := GetDocument(ctx, pool, id)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(d.Flags, want) {
			t.Errorf("document %d: Flags = %+v, want %+v", id, d.Flags, want)
		}
	}
	docs, _, err := ListDocuments(ctx, pool, DocumentQuery{Flagged: true, Status: "indexed"})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || docs[0].ID != f.indexed2 || docs[1].ID != f.indexed || len(docs[0].Flags) != 2 {
		t.Errorf("flagged documents = %+v, want %d and %d", docs, f.indexed2, f.indexed)
	}

	st, err := LoadStatus(ctx, NewDB(pool), 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := FlagSummary{Documents: 2, Kinds: []FlagCount{
		{Kind: disguise.Invisible, Documents: 2, Count: 6, First: []int64{f.indexed, f.indexed2}},
		{Kind: disguise.Confusable, Documents: 1, Count: 412, First: []int64{f.indexed2}},
	}}
	if !reflect.DeepEqual(st.Flagged, want) {
		t.Errorf("Flagged = %+v, want %+v", st.Flagged, want)
	}
}

func TestParseFlags(t *testing.T) {
	for _, b := range []string{"", "null", "[]"} {
		if f, err := ParseFlags([]byte(b)); err != nil || f != nil {
			t.Errorf("ParseFlags(%q) = %+v, %v; want none", b, f, err)
		}
	}
	if v, err := FlagsValue(nil); v != nil || err != nil {
		t.Errorf("FlagsValue(nil) = %v, %v; want NULL", v, err)
	}
}
