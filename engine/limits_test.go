package engine

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/internal/testtext"
	"github.com/plagd/plagd/invindex"
)

// TestExtraWindows_AutoCrossesThreshold: with engine.extra_window_words
// auto, an archive below 2,000 documents is indexed with 3-word windows as
// a second chunk kind, and a reworded copy that keeps no 5-word run of its
// source (every fourth word replaced) is on the source's list; when the
// archive grows past the threshold the next run is full, without the
// second kind, and the pair is gone; when it shrinks below again, the pair
// is back. The automatic df cap steps at the same size (50 to 100). After
// each run the similarities equal the reference's, and a
// fresh engine (another process: plagd check) chunks a checked text as
// the committed index was chunked. With remote nodes the parameters
// travel with each run to the nodes, and the master's disk copy of the
// index (no df cap) is written and read with the run's.
func TestExtraWindows_AutoCrossesThreshold(t *testing.T) {
	t.Run("in-process", func(t *testing.T) {
		url := pgtest.NewDB(t)
		crossThreshold(t, url, enginetest.Config(t, url, 2), true)
	})
	t.Run("remote nodes, disk copy", func(t *testing.T) {
		url := pgtest.NewDB(t)
		servers := []*nodeServer{startNodeServer(t, "127.0.0.1:0"), startNodeServer(t, "127.0.0.1:0")}
		cfg := clusterConfig(t, url, []string{servers[0].addr, servers[1].addr})
		cfg.Engine.DFCap = -1 // every chunk counted: the master's copy is on disk
		crossThreshold(t, url, cfg, false)
	})
}

// crossThreshold is TestExtraWindows_AutoCrossesThreshold on one
// configuration; autoCap: df_cap is auto, and steps with the threshold.
func crossThreshold(t *testing.T, url string, cfg config.Config, autoCap bool) {
	seed := enginetest.Seed(t)
	pool := pgtest.Pool(t, url)
	cfg.Engine.ExtraWindowWords = 0 // auto
	ctx := context.Background()
	g := testtext.NewWordGen(seed)
	vocab := strings.Fields(g.Words("v", 60))
	random := func(prefix string, n int) ([]string, []string) {
		var exts, texts []string
		for i := range n {
			ws := make([]string, 20)
			for j := range ws {
				ws[j] = vocab[g.IntN(len(vocab))]
			}
			exts, texts = append(exts, prefix+strconv.Itoa(i)), append(texts, strings.Join(ws, " "))
		}
		return exts, texts
	}
	source := strings.Fields(g.Words("s", 24))
	reworded := slices.Clone(source)
	for i := 3; i < len(reworded); i += 4 {
		reworded[i] = g.Words("r", 1)
	}
	exts, texts := random("doc-", config.AutoExtraWindowsBelow-10)
	insertDocs(t, pool, append(exts, "source", "reworded"), append(texts, strings.Join(source, " "), strings.Join(reworded, " ")))
	var src, cp int64
	if err := pool.QueryRow(ctx, `select (select id from documents where external_id = 'source'),
		(select id from documents where external_id = 'reworded')`).Scan(&src, &cp); err != nil {
		t.Fatal(err)
	}

	e := NewEngine(cfg, pool, enginetest.Logger(t))
	defer e.Close()
	if !autoCap && e.files == nil {
		t.Fatal("remote nodes without a df cap: the master's copy should be on disk")
	}
	step := func(when string, kind string, extra int, paired bool) {
		t.Helper()
		rep := mustRun(t, e, false)
		if rep.Kind != kind || e.params().ExtraWindowWords != extra {
			t.Fatalf("%s: run %s (%s) with extra windows of %d words, want %s with %d", when, rep.Kind, rep.Reason, e.params().ExtraWindowWords, kind, extra)
		}
		// The automatic df cap steps at the same size (config.AutoDFCap):
		// the crossing runs change both.
		if wantCap := map[bool]int{true: 50, false: 100}[extra > 0]; autoCap && e.DFCap() != wantCap {
			t.Fatalf("%s: df cap %d, want %d", when, e.DFCap(), wantCap)
		}
		if kind == "full" && rep.ID > 1 && !strings.Contains(rep.Reason, "settings changed") {
			t.Fatalf("%s: full run for %q, want changed settings", when, rep.Reason)
		}
		got, want := enginetest.Stored(t, pool), enginetest.Reference(t, pool, cfg)
		if d := enginetest.DiffRows(got, want); d != "" {
			t.Fatalf("%s: similarities differ from the reference:\n%s", when, d)
		}
		shared := 0
		for _, r := range got {
			if r.Doc == cp && r.Other == src {
				shared = r.Shared
			}
		}
		// Every fourth word replaced leaves six 3-word runs of the source.
		if paired != (shared == 6) || !paired && shared != 0 {
			t.Fatalf("%s: the reworded copy shares %d chunks with its source, want paired=%v (6)", when, shared, paired)
		}
		// Another process chunks a checked text as the committed index was,
		// loaded from the files the run saved.
		e.WaitSaved()
		fresh := NewEngine(cfg, pool, enginetest.Logger(t))
		defer fresh.Close()
		p, err := fresh.queryParams(ctx)
		if err != nil || p.ExtraWindowWords != extra {
			t.Fatalf("%s: a fresh engine's query parameters %+v (%v), want extra windows of %d words", when, p, err, extra)
		}
		_, chunks, checks := invindex.NewTokenizer(p).DocChunks(strings.Join(reworded, " "))
		ms, err := fresh.Query(ctx, chunks, checks, 10)
		if err != nil {
			t.Fatal(err)
		}
		found := 0
		for _, m := range ms {
			if m.ID == src {
				found = m.Shared
			}
		}
		if found != shared {
			t.Fatalf("%s: a check of the reworded text shares %d chunks with the source, the run stored %d", when, found, shared)
		}
	}
	step("below the threshold", "full", 3, true)
	more, moreTexts := random("more-", 20)
	insertDocs(t, pool, more, moreTexts)
	step("past the threshold", "full", 0, false)
	if _, err := pool.Exec(ctx, `update documents set deleted_at = now() where external_id like 'more-%'`); err != nil {
		t.Fatal(err)
	}
	step("below it again", "full", 3, true)
	if _, err := pool.Exec(ctx, `update documents set text = text || ' and more' where external_id in ('doc-1', 'doc-2')`); err != nil {
		t.Fatal(err)
	}
	step("an incremental run below it", "incremental", 3, true)
}

// insertDocs adds plain-text documents in one statement.
func insertDocs(t testing.TB, pool *pgxpool.Pool, exts, texts []string) {
	t.Helper()
	if _, err := pool.Exec(context.Background(), `insert into documents (external_id, title, text)
		select e, e, x from unnest($1::text[], $2::text[]) as u(e, x)`, exts, texts); err != nil {
		t.Fatal(err)
	}
}
