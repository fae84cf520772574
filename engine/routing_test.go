package engine

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/report"
	"github.com/plagd/plagd/routing"
	"github.com/plagd/plagd/store"
)

// checkRouting: after a committed run routing_features holds exactly the
// indexed documents, each with the features of its stored text.
func checkRouting(t testing.TB, pool *pgxpool.Pool, when string) {
	t.Helper()
	ctx := context.Background()
	want := map[int64][]uint64{}
	rows, _ := pool.Query(ctx, `select t.doc_id, t.body from document_texts t join documents d on d.id = t.doc_id where d.deleted_at is null`)
	var id int64
	var body string
	if _, err := pgx.ForEachRow(rows, []any{&id, &body}, func() error {
		want[id] = routing.Features([]byte(body), routing.DefaultParams)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	got := map[int64][]uint64{}
	var b []byte
	rows, _ = pool.Query(ctx, `select doc_id, features from routing_features where version = $1`, routing.FeatureVersion)
	if _, err := pgx.ForEachRow(rows, []any{&id, &b}, func() error {
		fs, err := decodeFeatures(b)
		got[id] = fs
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d documents with routing features, %d indexed", when, len(got), len(want))
	}
	for id, fs := range want {
		if !slices.Equal(got[id], fs) {
			t.Fatalf("%s: document %d: stored routing features differ from its text's", when, id)
		}
	}
}

// TestCheckText_Routed: with routing on, a live check finds a near copy of
// an indexed document through its few partitions, with the figures the
// whole-index check gives for it; deleted documents drop out after the
// run; all_partitions finds what the routed partitions may miss.
func TestCheckText_Routed(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(enginetest.Seed(t), 17))
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 2)
	var texts []string
	for i := range 40 {
		texts = append(texts, strings.Join(enginetest.EssayWords(r, 400), " "))
		createText(t, pool, "d"+string(rune('a'+i%26))+strings.Repeat("x", i/26), texts[i])
	}
	e := NewEngine(cfg, pool, enginetest.Logger(t))
	mustRun(t, e, false)
	checkRouting(t, pool, "after the first run")

	copyText := "Resubmitted.\n" + texts[7]
	plain, err := e.CheckText(ctx, copyText, 5, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Routing.Enabled = true
	routed := NewEngine(cfg, pool, enginetest.Logger(t))
	rep, err := routed.CheckText(ctx, copyText, 5, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Sources) == 0 || len(plain.Sources) == 0 || rep.Sources[0].ID != plain.Sources[0].ID ||
		rep.Sources[0].Shared != plain.Sources[0].Shared || rep.Sources[0].Reverse != plain.Sources[0].Reverse {
		t.Fatalf("routed check: %+v; whole-index check: %+v", head(rep.Sources), head(plain.Sources))
	}
	// Delete the source: after the run the routed check no longer offers it.
	if err := store.DeleteDocument(ctx, pool, rep.Sources[0].ID); err != nil {
		t.Fatal(err)
	}
	mustRun(t, e, false)
	checkRouting(t, pool, "after the deleting run")
	rep2, err := routed.CheckText(ctx, copyText, 5, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rep2.Sources {
		if s.ID == rep.Sources[0].ID {
			t.Fatalf("deleted document %d still offered by the routed check", s.ID)
		}
	}
	// A text copying half of two documents: every partition finds both.
	half := func(s string) string { ws := strings.Fields(s); return strings.Join(ws[:len(ws)/2], " ") }
	mixed := half(texts[3]) + "\n" + half(texts[11])
	cfg.Routing.AllPartitions = true
	all, err := NewEngine(cfg, pool, enginetest.Logger(t)).CheckText(ctx, mixed, 5, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Sources) < 2 {
		t.Fatalf("all partitions: %d sources for a text copying two documents", len(all.Sources))
	}
}

func head(s []report.SourceReport) []int64 {
	var ids []int64
	for _, x := range s {
		ids = append(ids, x.ID)
	}
	return ids
}

// TestRun_EveryDocumentChanged: an incremental run that changes every
// indexed document (no untouched one is left to join with) commits, and the
// derived tables stay in step.
func TestRun_EveryDocumentChanged(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(enginetest.Seed(t), 19))
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 1)
	a := createText(t, pool, "a", strings.Join(enginetest.EssayWords(r, 300), " "))
	b := createText(t, pool, "b", strings.Join(enginetest.EssayWords(r, 300), " "))
	e := NewEngine(cfg, pool, enginetest.Logger(t))
	mustRun(t, e, false)
	for _, id := range []int64{a, b} {
		if _, err := pool.Exec(ctx, `update documents set text = $2 where id = $1`, id, strings.Join(enginetest.EssayWords(r, 300), " ")); err != nil {
			t.Fatal(err)
		}
	}
	if rep := mustRun(t, e, false); rep.Kind != "incremental" || rep.Indexed != 2 {
		t.Fatalf("run after changing every document: %+v", rep)
	}
	checkAgainstReference(t, pool, cfg, "after changing every document")
	if err := store.DeleteDocument(ctx, pool, a); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `delete from documents where id = $1`, b); err != nil {
		t.Fatal(err)
	}
	mustRun(t, e, false)
	checkAgainstReference(t, pool, cfg, "after deleting every document")
}

// TestCluster_RoutedCheckOnNodes: with remote nodes the routed partitions
// are served by the nodes (partition p by node p mod n). A live check finds
// the same sources as the same check in one process, the nodes answer it,
// and a document added by a later run reaches them by a delta sync.
func TestCluster_RoutedCheckOnNodes(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(enginetest.Seed(t), 23))
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	var addrs []string
	var nodes []*nodeServer
	for range 3 {
		n := startNodeServer(t, "127.0.0.1:0")
		nodes, addrs = append(nodes, n), append(addrs, n.addr)
	}
	cfg := clusterConfig(t, url, addrs)
	cfg.Routing.Enabled, cfg.Routing.Partitions, cfg.Routing.M = true, 16, 2
	var texts []string
	for i := range 30 {
		texts = append(texts, strings.Join(enginetest.EssayWords(r, 300), " "))
		createText(t, pool, "c"+strings.Repeat("x", i), texts[i])
	}
	e := NewEngine(cfg, pool, enginetest.Logger(t))
	defer e.Close()
	mustRun(t, e, false)
	local := cfg
	local.Cluster = config.Default().Cluster
	check := func(text, when string) {
		t.Helper()
		got, err := e.CheckText(ctx, text, 5, report.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want, err := NewEngine(local, pool, enginetest.Logger(t)).CheckText(ctx, text, 5, report.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(head(got.Sources), head(want.Sources)) || len(got.Sources) == 0 {
			t.Fatalf("%s: sources on nodes %v, in one process %v", when, head(got.Sources), head(want.Sources))
		}
	}
	check("Again.\n"+texts[4], "after the first run")
	if e.routed.remoteQueries.Load() == 0 {
		t.Fatal("no routing query was answered by a node")
	}
	fresh := strings.Join(enginetest.EssayWords(r, 300), " ")
	createText(t, pool, "late", fresh)
	mustRun(t, e, false)
	before := e.routed.remoteQueries.Load()
	check("Again.\n"+fresh, "after a document was added")
	if e.routed.remoteQueries.Load() == before {
		t.Fatal("the check after the delta sync was not answered by the nodes")
	}
	// A node restarts empty: the master answers for it, then loads it again.
	// The checks are ones routed to the restarted node's partitions: a
	// check that misses them cannot tell (with some seeds, the three checks
	// after the restart missed them and the fourth reached only them).
	var onRestarted []string
	for _, text := range texts[10:] {
		q := "Again.\n" + text
		for _, p := range routing.Route(routing.Features([]byte(q), routing.DefaultParams), cfg.Routing.Partitions, cfg.Routing.M, nil) {
			if p%len(addrs) == 1 {
				onRestarted = append(onRestarted, q)
				break
			}
		}
	}
	if len(onRestarted) < 2 {
		t.Fatalf("%d of 20 checks routed to node 1's partitions, want 2", len(onRestarted))
	}
	nodes[1].srv.Stop()
	startNodeServer(t, addrs[1])
	check(onRestarted[0], "after a node restarted")
	before = e.routed.remoteQueries.Load()
	check(onRestarted[1], "after the restarted node was loaded again")
	if e.routed.remoteQueries.Load() == before {
		t.Fatal("no node answered after the restart")
	}
}

// TestRouting_StaleFeaturesRebuilt: an incremental run rebuilds every
// document's routing features when an untouched document has none (an
// archive indexed before routing existed) and when the stored ones are of
// another routing.FeatureVersion, and only then.
func TestRouting_StaleFeaturesRebuilt(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(enginetest.Seed(t), 23))
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 2)
	var ids []int64
	for i := range 12 {
		ids = append(ids, createText(t, pool, "r"+string(rune('a'+i)), strings.Join(enginetest.EssayWords(r, 200), " ")))
	}
	e := NewEngine(cfg, pool, enginetest.Logger(t))
	mustRun(t, e, true)
	checkRouting(t, pool, "after the full run")
	seqOf := func(id int64) int64 {
		var s int64
		if err := pool.QueryRow(ctx, `select seq from routing_features where doc_id = $1`, id).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	untouched := seqOf(ids[5])

	// A change elsewhere leaves the untouched documents' rows alone.
	createText(t, pool, "new1", strings.Join(enginetest.EssayWords(r, 200), " "))
	mustRun(t, e, false)
	checkRouting(t, pool, "after adding a document")
	if seqOf(ids[5]) != untouched {
		t.Fatal("an incremental run with current features rewrote an untouched document's")
	}

	// An untouched document without features: the next run writes them all.
	if _, err := pool.Exec(ctx, `delete from routing_features where doc_id = $1`, ids[3]); err != nil {
		t.Fatal(err)
	}
	createText(t, pool, "new2", strings.Join(enginetest.EssayWords(r, 200), " "))
	mustRun(t, e, false)
	checkRouting(t, pool, "after a document's features went missing")
	if seqOf(ids[5]) == untouched {
		t.Fatal("missing features did not make the run rewrite every document's")
	}

	// Features of another version: rewritten too. A document deleted in
	// the same run must not hide the difference.
	if _, err := pool.Exec(ctx, `update routing_features set version = version + 1`); err != nil {
		t.Fatal(err)
	}
	if err := store.DeleteDocument(ctx, pool, ids[0]); err != nil {
		t.Fatal(err)
	}
	mustRun(t, e, false)
	checkRouting(t, pool, "after the stored features' version changed")
}
