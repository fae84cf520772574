package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/invindex"
	"github.com/plagd/plagd/report"
	"github.com/plagd/plagd/store"
)

// storedIndex is one similarity_index row as the tests compare it (the
// run that wrote it left out: an incremental run and a full run write the
// same figures in different runs).
type storedIndex struct {
	Value             float64
	Sources, Versions int
	Top               int64
	TopShare          float64
}

// readIndexes reads similarity_index, and the documents still queued.
func readIndexes(t testing.TB, pool *pgxpool.Pool) (map[int64]storedIndex, map[int64]bool) {
	t.Helper()
	ctx := context.Background()
	got := map[int64]storedIndex{}
	rows, err := pool.Query(ctx, `select doc_id, value, sources, versions, coalesce(top_source, 0), top_share from similarity_index`)
	if err != nil {
		t.Fatal(err)
	}
	var id int64
	var s storedIndex
	if _, err := pgx.ForEachRow(rows, []any{&id, &s.Value, &s.Sources, &s.Versions, &s.Top, &s.TopShare}, func() error {
		got[id] = s
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	queued := map[int64]bool{}
	rows, err = pool.Query(ctx, `select doc_id from plagd_index_queue`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pgx.ForEachRow(rows, []any{&id}, func() error { queued[id] = true; return nil }); err != nil {
		t.Fatal(err)
	}
	return got, queued
}

// checkSimilarityIndex: every indexed document has a stored similarity
// index, and it is the one its report shows by default, computed here the
// plain way: the stored list and texts aligned by report.Build, one
// document at a time, with the common text found by counting every
// stored text's chunks (the index's df cap applied as the reference
// similarities apply it) and the registered templates left out. Documents
// still queued (a refresh cut short by a fault) are skipped; a run that
// returned without error leaves none (TestEngine_IncrementalEqualsFull).
func checkSimilarityIndex(t testing.TB, pool *pgxpool.Pool, cfg config.Config, when string) {
	t.Helper()
	want := referenceIndexes(t, pool, cfg)
	got, queued := readIndexes(t, pool)
	for id, w := range want {
		if queued[id] {
			continue
		}
		g, ok := got[id]
		if !ok {
			t.Fatalf("%s: document %d has no similarity index (want %+v)", when, id, w)
		}
		if g != w {
			t.Fatalf("%s: document %d: stored similarity index %+v, its report says %+v", when, id, g, w)
		}
	}
	for id := range got {
		if _, ok := want[id]; !ok && !queued[id] {
			t.Fatalf("%s: document %d has a similarity index but no stored text", when, id)
		}
	}
}

// referenceIndexes computes the similarity index of every live document
// with a stored text.
func referenceIndexes(t testing.TB, pool *pgxpool.Pool, cfg config.Config) map[int64]storedIndex {
	t.Helper()
	ctx := context.Background()
	var live int
	if err := pool.QueryRow(ctx, `select count(*) from documents where deleted_at is null`).Scan(&live); err != nil {
		t.Fatal(err)
	}
	rows, err := pool.Query(ctx, `select t.doc_id from document_texts t join documents d on d.id = t.doc_id where d.deleted_at is null order by 1`)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		t.Fatal(err)
	}
	texts, err := storedTexts(ctx, pool, ids)
	if err != nil {
		t.Fatal(err)
	}
	// The index's chunking, second chunk kind included: common text is a
	// chunk ID in more documents than the cap, whichever kind put it there.
	params := cfg.Engine.ParamsFor(live)
	tpl, err := loadTemplates(ctx, pool, params, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Document frequencies of the chunk IDs each document is indexed with.
	df := map[uint32]int{}
	tok := invindex.NewTokenizer(params)
	for _, id := range ids {
		t := texts[id]
		_, chunks, checks := tok.DocChunks(*t.body)
		if skip := tpl.skip(t.head.Kind); skip != nil {
			chunks, _ = filterChunks(chunks, checks, skip)
		}
		seen := map[uint32]bool{}
		for _, c := range chunks {
			if !seen[c] {
				seen[c] = true
				df[c]++
			}
		}
	}
	dfCap := cfg.Engine.DFCapFor(live)
	common := func(key uint64) (int, bool) {
		if n := df[invindex.KeyChunk(key)]; dfCap > 0 && n > dfCap {
			return n, true
		}
		return 0, true
	}
	out := map[int64]storedIndex{}
	for _, id := range ids {
		list, err := store.Similar(ctx, pool, id)
		if err != nil {
			t.Fatal(err)
		}
		doc := texts[id]
		opt := report.Options{Common: common}
		opt.Align.Suppress = func(key uint64) bool { n, _ := common(key); return n > 0 }
		tpl.applyTemplates(&opt, doc.head.Kind)
		need := []int64{}
		for _, r := range list {
			need = append(need, r.OtherID)
		}
		src, err := storedTexts(ctx, pool, need)
		if err != nil {
			t.Fatal(err)
		}
		rep := report.Build(ctx, cfg.Params(), *doc.body, sourceReports(list, src), opt)
		rep.Doc, rep.Header = id, doc.head
		x := rep.Index()
		out[id] = storedIndex{Value: x.Value, Sources: x.Sources, Versions: x.Versions, Top: x.Top, TopShare: x.TopShare}
	}
	return out
}

// TestSimilarityIndex_FollowsHeaders: an author or external id edit
// changes no text and starts no indexing, but whether a source is an
// earlier version depends on it: the edit queues the document and the
// lists naming it, and the next run (with nothing pending) stores their
// new index. A resubmission by the same author is left out of the index
// of the later version; under another author it counts.
func TestSimilarityIndex_FollowsHeaders(t *testing.T) {
	seed := enginetest.Seed(t)
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 1)
	e := NewEngine(cfg, pool, enginetest.Logger(t))
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, 31))
	c := enginetest.NewCorpus(seed)
	// A draft, and its resubmission: the draft with a third of it
	// rewritten, so that the two share 50-80 % of their chunks.
	draft := enginetest.EssayWords(rng, 900)
	final := append([]string{}, draft[:600]...)
	final = append(final, enginetest.EssayWords(rng, 300)...)
	var draftID, finalID int64
	if err := pool.QueryRow(ctx, `insert into documents (external_id, author, text) values ('essay-17', 'Jana Novakova', $1) returning id`,
		enginetest.Reformat(draft)).Scan(&draftID); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `insert into documents (external_id, author, text) values ('essay-18', 'Jana Novakova', $1) returning id`,
		enginetest.Reformat(final)).Scan(&finalID); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6; i++ {
		if _, err := pool.Exec(ctx, `insert into documents (external_id, text) values ($1, $2)`, fmt.Sprint("other-", i), c.Text()); err != nil {
			t.Fatal(err)
		}
	}
	mustRun(t, e, false)
	checkSimilarityIndex(t, pool, cfg, "after the first run")
	idx := func(id int64) storedIndex {
		got, _ := readIndexes(t, pool)
		return got[id]
	}
	if x := idx(finalID); x.Versions != 1 || x.Top == draftID || x.Value > 0.1 {
		t.Fatalf("the resubmission by the same author: index %+v, want its draft left out (versions 1)", x)
	}
	// Another author: the draft is a source again.
	if _, err := pool.Exec(ctx, `update documents set author = 'Petr Svoboda' where id = $1`, draftID); err != nil {
		t.Fatal(err)
	}
	if rep := mustRun(t, e, false); rep.Kind != "none" || rep.Indexes < 2 {
		t.Fatalf("run after a header edit: kind %s, %d indexes computed; want none with both documents' indexes", rep.Kind, rep.Indexes)
	}
	checkSimilarityIndex(t, pool, cfg, "after the author edit")
	if x := idx(finalID); x.Versions != 0 || x.Value < 0.5 || x.Top != draftID {
		t.Fatalf("after the author edit: index %+v, want the draft counted as the top source (%d)", x, draftID)
	}
	// The same external id family ("-v2") makes it a version whatever the author.
	if _, err := pool.Exec(ctx, `update documents set external_id = 'essay-17-v2' where id = $1`, finalID); err != nil {
		t.Fatal(err)
	}
	mustRun(t, e, false)
	checkSimilarityIndex(t, pool, cfg, "after the external id edit")
	if x := idx(finalID); x.Versions != 1 || x.Top == draftID || x.Value > 0.1 {
		t.Fatalf("after the external id edit: index %+v, want the draft left out as an earlier version", x)
	}
	if _, queued := readIndexes(t, pool); len(queued) != 0 {
		t.Fatalf("%d documents still queued after the runs", len(queued))
	}
}
