package engine

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/plagd/plagd/disguise"
	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/internal/testtext"
	"github.com/plagd/plagd/report"
)

// TestFlags_Reports: a disguised document's report carries the flags its
// run stored, with spans into the report's text; a modified document gets
// its new ones and a deleted one none; a checked text carries its own.
func TestFlags_Reports(t *testing.T) {
	ctx := context.Background()
	seed := enginetest.Seed(t)
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 1)
	e := NewEngine(cfg, pool, enginetest.Logger(t))
	defer e.Close()
	words := strings.Fields(testtext.NewWordGen(seed).Words("w", 200))
	for i := 5; i < len(words); i += 20 {
		words[i] = words[i][:1] + "\u200b" + words[i][1:]
	}
	disguised := strings.Join(words, " ")
	id := insertDoc(t, pool, "disguised", disguised)
	mustRun(t, e, false)
	rep, err := Passages(ctx, pool, cfg, id, 0, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := disguise.Of(nil, disguised)
	if len(want) != 1 || want[0].Kind != disguise.Invisible || want[0].Count != 10 || !reflect.DeepEqual(rep.Flags, want) {
		t.Fatalf("report flags %+v, want %+v", rep.Flags, want)
	}
	for _, s := range rep.Flags[0].Spans {
		if !strings.Contains(rep.Text[s.Start:s.End], "\u200b") {
			t.Fatalf("span %+v covers %q of the report's text", s, rep.Text[s.Start:s.End])
		}
	}
	if f := rep.Filter(report.Filter{}).Flags; !reflect.DeepEqual(f, want) {
		t.Fatalf("a filtered report lost its flags: %+v", f)
	}
	checked, err := e.CheckText(ctx, disguised, 0, report.Options{})
	if err != nil || !reflect.DeepEqual(checked.Flags, want) {
		t.Fatalf("checked text: flags %+v (%v), want %+v", checked.Flags, err, want)
	}

	hyphens := strings.ReplaceAll(disguised, "\u200b", "") + " the p\u00adla\u00adgia\u00adri\u00adsm"
	pgtest.Exec(t, pool, `update documents set text = $2 where id = $1`, id, hyphens)
	mustRun(t, e, false)
	if rep, err = Passages(ctx, pool, cfg, id, 0, report.Options{}); err != nil || len(rep.Flags) != 1 || rep.Flags[0].Kind != disguise.Invisible ||
		!reflect.DeepEqual(rep.Flags, disguise.Of(nil, hyphens)) || reflect.DeepEqual(rep.Flags, want) {
		t.Fatalf("modified document: flags %+v (%v), want its new soft hyphens %+v", rep.Flags, err, disguise.Of(nil, hyphens))
	}
	pgtest.Exec(t, pool, `update documents set deleted_at = now() where id = $1`, id)
	mustRun(t, e, false)
	var n int
	if err := pool.QueryRow(ctx, `select count(*) from document_texts where flags is not null`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d flagged texts left after the deletion (%v)", n, err)
	}
}
