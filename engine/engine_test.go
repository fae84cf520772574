package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/disguise"
	"github.com/plagd/plagd/invindex"
	"github.com/plagd/plagd/store"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/pgtest"
)

func mustRun(t testing.TB, e *Engine, full bool) RunReport {
	t.Helper()
	rep, err := e.Run(context.Background(), full)
	if err != nil {
		t.Fatalf("run (full=%v): %v", full, err)
	}
	return rep
}

func checkAgainstReference(t testing.TB, pool *pgxpool.Pool, cfg config.Config, when string) []enginetest.SimRow {
	t.Helper()
	got, want := enginetest.Stored(t, pool), enginetest.Reference(t, pool, cfg)
	if d := enginetest.DiffRows(got, want); d != "" {
		t.Fatalf("%s: similarities differ from the reference (%d rows stored, %d expected):\n%s", when, len(got), len(want), d)
	}
	enginetest.CheckFlags(t, pool, when)
	checkSimhashes(t, pool, cfg, when)
	checkRelated(t, pool, cfg, when)
	checkRouting(t, pool, when)
	checkSimilarityIndex(t, pool, cfg, when)
	return got
}

// TestEngine_IncrementalEqualsFull is the design's first invariant (incremental equals full): after any
// sequence of adds, modifications and deletions, incremental runs leave the
// table equal, row for row, to the reference and to a full recomputation,
// and the texts' flags equal to those of a full run (a third of the texts
// are disguised), for
// any number of nodes, and on an archive where half the documents share
// template paragraphs (chunks of high document frequency), once under the
// automatic df cap (never reached at this size) and once with a cap of 4,
// which the template chunks cross up and down as documents come and go.
func TestEngine_IncrementalEqualsFull(t *testing.T) {
	for _, tc := range []struct {
		k         int
		templates bool // half the texts open with one of three shared paragraphs
		dfCap     int  // engine.df_cap; 0: auto
		extra     int  // engine.extra_window_words; 0: auto (3-word windows at this size), -1: off, as in a large archive
	}{{1, false, 0, 0}, {2, false, 0, -1}, {4, false, 0, 0}, {2, true, 0, 0}, {2, true, 4, -1}} {
		name := "nodes=" + strconv.Itoa(tc.k)
		if tc.templates {
			name += ",templates"
		}
		if tc.dfCap > 0 {
			name += ",df_cap=" + strconv.Itoa(tc.dfCap)
		}
		if tc.extra < 0 {
			name += ",no_extra_windows"
		}
		t.Run(name, func(t *testing.T) {
			seed := enginetest.Seed(t)
			url := pgtest.NewDB(t)
			pool := pgtest.Pool(t, url)
			cfg := enginetest.Config(t, url, tc.k)
			cfg.Engine.DFCap = tc.dfCap
			cfg.Engine.ExtraWindowWords = tc.extra
			cfg.Related.Margin = int(seed % 3) // none, or one the changes use up
			e := NewEngine(cfg, pool, enginetest.Logger(t))
			c := enginetest.NewCorpus(seed).WithDisguise(0.3)
			if tc.templates {
				c.WithTemplates(3, 0.5)
			}
			m := &enginetest.Mutator{T: t, Pool: pool, C: c, Rng: rand.New(rand.NewPCG(seed, 7))}
			for i := 0; i < 25; i++ {
				m.Step()
			}
			if rep := mustRun(t, e, false); rep.Kind != "full" {
				t.Fatalf("first run is %s, want full (no index yet)", rep.Kind)
			}
			checkAgainstReference(t, pool, cfg, "after the first run")
			holes := 0
			for run := 0; run < 12; run++ {
				for i := m.Rng.IntN(8); i >= 0; i-- {
					m.Step()
				}
				rep := mustRun(t, e, false)
				if rep.Kind != "incremental" && rep.Kind != "none" {
					t.Fatalf("run %d is %s (%s), want incremental", run, rep.Kind, rep.Reason)
				}
				holes += rep.Recomputed - rep.Indexed
				checkAgainstReference(t, pool, cfg, "after incremental run "+strconv.Itoa(run))
			}
			incr, incrFlags := enginetest.Stored(t, pool), enginetest.CheckFlags(t, pool, "before the full run")
			incrIndex, queued := readIndexes(t, pool)
			if len(queued) > 0 {
				t.Fatalf("%d similarity indexes still queued after the incremental runs", len(queued))
			}
			mustRun(t, e, true)
			if fullIndex, _ := readIndexes(t, pool); !reflect.DeepEqual(fullIndex, incrIndex) {
				t.Fatalf("full run's similarity indexes differ from the incremental result:\n%v\n%v", fullIndex, incrIndex)
			}
			enginetest.CheckSimilarityKeys(t, pool)
			if d := enginetest.DiffRows(enginetest.Stored(t, pool), incr); d != "" {
				t.Fatalf("full run differs from the incremental result:\n%s", d)
			}
			if full := enginetest.CheckFlags(t, pool, "after the full run"); !reflect.DeepEqual(full, incrFlags) {
				t.Fatalf("full run's flags differ from the incremental result:\n%v\n%v", full, incrFlags)
			}
			t.Logf("flagged documents by kind at the end: %v", countFlagged(incrFlags))
			if holes == 0 {
				t.Logf("no unchanged list was recomputed in this sequence (seed %d)", seed)
			}
		})
	}
}

// TestEngine_ExtraWindows: with the extra chunk kind on, incremental runs
// stay equal to the reference and to a full run.
func TestEngine_ExtraWindows(t *testing.T) {
	seed := enginetest.Seed(t)
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 2)
	cfg.Engine.ExtraWindowWords = 3
	e := NewEngine(cfg, pool, enginetest.Logger(t))
	m := &enginetest.Mutator{T: t, Pool: pool, C: enginetest.NewCorpus(seed), Rng: rand.New(rand.NewPCG(seed, 13))}
	for i := 0; i < 20; i++ {
		m.Step()
	}
	mustRun(t, e, false)
	for run := 0; run < 6; run++ {
		for i := m.Rng.IntN(6); i >= 0; i-- {
			m.Step()
		}
		mustRun(t, e, false)
		checkAgainstReference(t, pool, cfg, "extra windows, run "+strconv.Itoa(run))
	}
	incr := enginetest.Stored(t, pool)
	mustRun(t, e, true)
	if d := enginetest.DiffRows(enginetest.Stored(t, pool), incr); d != "" {
		t.Fatalf("full run differs from the incremental result:\n%s", d)
	}
}

// TestEngine_DFCap checks exactness when chunks cross the document-frequency cap.
func TestEngine_DFCap(t *testing.T) {
	seed := enginetest.Seed(t)
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 2)
	cfg.Engine.DFCap = 3
	e := NewEngine(cfg, pool, enginetest.Logger(t))
	m := &enginetest.Mutator{T: t, Pool: pool, C: enginetest.NewCorpus(seed), Rng: rand.New(rand.NewPCG(seed, 9))}
	boiler := m.C.Words(30)
	for i := 0; i < 10; i++ {
		m.Step()
	}
	mustRun(t, e, false)
	for run := 0; run < 10; run++ {
		for i := m.Rng.IntN(5); i >= 0; i-- {
			m.Step()
		}
		// A template paragraph comes and goes, pushing its chunks across the cap.
		if _, err := pool.Exec(context.Background(), `insert into documents (external_id, text) values ($1, $2)`,
			"tpl-"+strconv.Itoa(run), m.C.Text()+"\n"+boiler); err != nil {
			t.Fatal(err)
		}
		if id, ok := m.Pick("external_id like 'tpl-%' and deleted_at is null"); ok && m.Rng.IntN(2) == 0 {
			pgtest.Exec(t, pool, `delete from documents where id = $1`, id)
		}
		mustRun(t, e, false)
		checkAgainstReference(t, pool, cfg, "df cap, run "+strconv.Itoa(run))
	}
}

// TestEngine_RestartLoadsIndex checks that a new engine (a restarted process)
// continues incrementally from the saved index, and that a damaged or foreign
// index makes it run in full with the right results.
func TestEngine_RestartLoadsIndex(t *testing.T) {
	seed := enginetest.Seed(t)
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 2)
	m := &enginetest.Mutator{T: t, Pool: pool, C: enginetest.NewCorpus(seed), Rng: rand.New(rand.NewPCG(seed, 3))}
	for i := 0; i < 20; i++ {
		m.Step()
	}
	bg := NewEngine(cfg, pool, enginetest.Logger(t))
	bg.SaveInBackground = true // as the daemon does
	mustRun(t, bg, false)
	bg.WaitSaved()
	m.Add()
	m.Add()
	if rep := mustRun(t, NewEngine(cfg, pool, enginetest.Logger(t)), false); rep.Kind != "incremental" {
		t.Fatalf("after restart: %s run (%s), want incremental from the saved index", rep.Kind, rep.Reason)
	}
	checkAgainstReference(t, pool, cfg, "after restart")

	// Same data dir, other node count: the slices are re-split, still incremental.
	cfg4 := cfg
	cfg4.Engine.Nodes = 4
	m.Add()
	if rep := mustRun(t, NewEngine(cfg4, pool, enginetest.Logger(t)), false); rep.Kind != "incremental" {
		t.Fatalf("with 4 nodes: %s run (%s), want incremental", rep.Kind, rep.Reason)
	}
	checkAgainstReference(t, pool, cfg4, "after re-split")

	// Corrupt a base slice only (the generation's own files stay intact): the
	// next run must notice and run in full.
	bases, _ := filepath.Glob(filepath.Join(cfg.DataDir, "slices", "*.idx"))
	if len(bases) == 0 {
		t.Fatal("no base slice files in the data directory")
	}
	b, _ := os.ReadFile(bases[0])
	b[len(b)/2] ^= 0xff
	os.WriteFile(bases[0], b, 0o644)
	m.Add()
	if rep := mustRun(t, NewEngine(cfg, pool, enginetest.Logger(t)), false); rep.Kind != "full" {
		t.Fatalf("with a corrupt index: %s run, want full", rep.Kind)
	}
	checkAgainstReference(t, pool, cfg, "after corrupt index")

	// Changed parameters invalidate the index too.
	cfgP := cfg
	cfgP.Engine.WindowWords = 4
	m.Add()
	if rep := mustRun(t, NewEngine(cfgP, pool, enginetest.Logger(t)), false); rep.Kind != "full" {
		t.Fatalf("with other parameters: %s run, want full", rep.Kind)
	}
	checkAgainstReference(t, pool, cfgP, "after parameter change")

	// So do settings that change the lists without changing the index.
	cfgK := cfgP
	cfgK.Engine.TopK = 2
	m.Add()
	if rep := mustRun(t, NewEngine(cfgK, pool, enginetest.Logger(t)), false); rep.Kind != "full" || !strings.Contains(rep.Reason, "top_k=2") {
		t.Fatalf("with another top_k: %s run (%s), want full", rep.Kind, rep.Reason)
	}
	checkAgainstReference(t, pool, cfgK, "after top_k change")
}

// TestEngine_DFCapKeepsDelta: with a df cap, incremental runs keep the
// delta path (ratio 1: the delta is kept until it outgrows the base) or
// compact at every run (ratio 2^30), on in-process nodes and on two remote
// nodes whose master's copy is on disk; template paragraphs and a
// boilerplate paragraph push their chunks across the cap and back. After
// every run the table equals the reference; a restarted engine (the index
// read from its files) goes on incrementally and exactly; a full run at the
// end equals the incremental result.
func TestEngine_DFCapKeepsDelta(t *testing.T) {
	for _, tc := range []struct {
		remote bool
		ratio  int
	}{{false, 1}, {false, 1 << 30}, {true, 1}, {true, 1 << 30}} {
		t.Run(fmt.Sprintf("remote=%v/compact=%d", tc.remote, tc.ratio), func(t *testing.T) {
			defer cluster.SetCompactRatio(cluster.SetCompactRatio(tc.ratio))
			seed := enginetest.Seed(t)
			url := pgtest.NewDB(t)
			pool := pgtest.Pool(t, url)
			cfg := enginetest.Config(t, url, 2)
			if tc.remote {
				cfg = clusterConfig(t, url, []string{startNodeServer(t, "127.0.0.1:0").addr, startNodeServer(t, "127.0.0.1:0").addr})
			}
			cfg.Engine.DFCap = 3
			e := NewEngine(cfg, pool, enginetest.Logger(t))
			defer func() { e.Close() }()
			if tc.remote && e.files == nil {
				t.Fatal("remote nodes with a df cap: the master's copy is not on disk")
			}
			m := &enginetest.Mutator{T: t, Pool: pool, C: enginetest.NewCorpus(seed).WithTemplates(3, 0.5),
				Rng: rand.New(rand.NewPCG(seed, 17))}
			boiler := m.C.Words(30)
			for range 12 {
				m.Step()
			}
			mustRun(t, e, false)
			checkAgainstReference(t, pool, cfg, "after the first run")
			for run := range 14 {
				for i := m.Rng.IntN(5); i >= 0; i-- {
					m.Step()
				}
				if m.Rng.IntN(2) == 0 {
					pgtest.Exec(t, pool, `insert into documents (external_id, text) values ($1, $2)`,
						"tpl-"+strconv.Itoa(run), m.C.Text()+"\n"+boiler)
				}
				if id, ok := m.Pick("external_id like 'tpl-%' and deleted_at is null"); ok && m.Rng.IntN(3) == 0 {
					pgtest.Exec(t, pool, `delete from documents where id = $1`, id)
				}
				if run == 7 { // a restarted master reads the index from its files
					e.WaitSaved()
					e.Close()
					e = NewEngine(cfg, pool, enginetest.Logger(t))
				}
				if rep := mustRun(t, e, false); rep.Kind != "incremental" && rep.Kind != "none" {
					t.Fatalf("run %d is %s (%s), want incremental", run, rep.Kind, rep.Reason)
				}
				checkAgainstReference(t, pool, cfg, "df cap with delta, run "+strconv.Itoa(run))
			}
			incr := enginetest.Stored(t, pool)
			mustRun(t, e, true)
			if d := enginetest.DiffRows(enginetest.Stored(t, pool), incr); d != "" {
				t.Fatalf("full run differs from the incremental result:\n%s", d)
			}
			checkCommonBoiler(t, e, pool, cfg, boiler, tc.remote)
		})
	}
}

// checkCommonBoiler checks what CommonText says of a window of the
// boilerplate paragraph: common exactly when more documents than the cap
// hold it, with their number, exact in memory and a lower bound (cap+1)
// when the master's copy is on disk.
func checkCommonBoiler(t *testing.T, e *Engine, pool *pgxpool.Pool, cfg config.Config, boiler string, onDisk bool) {
	t.Helper()
	var holders int
	if err := pool.QueryRow(context.Background(), `select count(*) from documents where deleted_at is null and strpos(text, $1) > 0`, boiler).Scan(&holders); err != nil {
		t.Fatal(err)
	}
	ct, err := e.CommonText(context.Background())
	if err != nil || ct == nil {
		t.Fatalf("common text: %v, %v", ct, err)
	}
	tok := invindex.NewTokenizer(cfg.Params())
	key := tok.WindowKeys(tok.Words(boiler, nil), nil)[5]
	df, exact := ct.DF(key)
	switch {
	case holders <= ct.Cap():
		if df != 0 || ct.Suppress(key) {
			t.Fatalf("%d documents hold the boilerplate, cap %d: df %d, want it not common", holders, ct.Cap(), df)
		}
	case onDisk:
		if df != ct.Cap()+1 || exact || !ct.Suppress(key) {
			t.Fatalf("%d documents hold the boilerplate, copy on disk: df %d exact %v, want the bound %d", holders, df, exact, ct.Cap()+1)
		}
	default:
		if df != holders || !exact || !ct.Suppress(key) {
			t.Fatalf("%d documents hold the boilerplate: df %d exact %v", holders, df, exact)
		}
	}
}

// countFlagged counts the documents with each kind of flag in
// CheckFlags's result.
func countFlagged(flags map[int64]string) map[disguise.Kind]int {
	n := map[disguise.Kind]int{}
	for _, f := range flags {
		fl, _ := store.ParseFlags([]byte(f))
		for _, x := range fl {
			n[x.Kind]++
		}
	}
	return n
}
