package daemon

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/internal/testseed"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/plagd/plagd/internal/pgtest"
)

// testSeed returns the seed of a randomised test, printed so that a failure
// can be replayed with PLAGD_TEST_SEED.
func testSeed(t testing.TB) uint64 { t.Helper(); return testseed.Seed(t) }

// testConfig is a configuration that exercises the hard cases on small data:
// top-k lists of 4 fill up and lose members, and two shared chunks make a pair.
func testConfig(t testing.TB, url string, nodes int) config.Config {
	cfg := config.Default()
	cfg.DatabaseURL = url
	cfg.DataDir = t.TempDir()
	cfg.Engine.Nodes = nodes
	cfg.Engine.TopK = 4
	cfg.Engine.MinShared = 2
	cfg.Engine.BatchSize = 7
	cfg.Engine.ChunkBits = 24 // collisions happen at this width on purpose: they must not break exactness
	cfg.Related.K = 3         // lists fill up and lose members on small data
	cfg.Related.Method = "exact"
	return cfg
}

func testLogger(t testing.TB) zerolog.Logger {
	if testing.Verbose() {
		return zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.InfoLevel)
	}
	return zerolog.Nop()
}

func mustRun(t testing.TB, e *Engine, full bool) RunReport {
	t.Helper()
	rep, err := e.Run(context.Background(), full)
	if err != nil {
		t.Fatalf("run (full=%v): %v", full, err)
	}
	return rep
}

// mutator applies random document changes the way integrators make them.
type mutator struct {
	t    testing.TB
	pool *pgxpool.Pool
	c    *corpus
	rng  *rand.Rand
	n    int
}

func (m *mutator) ids(where string) []int64 {
	ids, err := queryIDs(context.Background(), m.pool, `select id from documents where `+where+` order by id`)
	if err != nil {
		m.t.Fatal(err)
	}
	return ids
}

func (m *mutator) pick(where string) (int64, bool) {
	ids := m.ids(where)
	if len(ids) == 0 {
		return 0, false
	}
	return ids[m.rng.IntN(len(ids))], true
}

// add inserts a document: a change every run must see.
func (m *mutator) add() {
	m.n++
	if _, err := m.pool.Exec(context.Background(), `insert into documents (external_id, text) values ($1, $2)`,
		"add-"+strconv.Itoa(m.n), m.c.text()); err != nil {
		m.t.Fatal(err)
	}
}

// step makes one random change.
func (m *mutator) step() {
	ctx := context.Background()
	m.n++
	var err error
	switch op := m.rng.IntN(10); {
	case op < 4: // add, as text or as a file
		if m.rng.IntN(2) == 0 {
			_, err = m.pool.Exec(ctx, `insert into documents (external_id, title, text) values ($1, $1, $2)`,
				"doc-"+strconv.Itoa(m.n), m.c.text())
		} else {
			_, err = m.pool.Exec(ctx, `insert into documents (external_id, filename, content) values ($1, $1 || '.txt', $2)`,
				"file-"+strconv.Itoa(m.n), []byte(m.c.text()))
		}
	case op < 6: // modify
		if id, ok := m.pick("deleted_at is null"); ok {
			_, err = m.pool.Exec(ctx, `update documents set text = $2, content = null where id = $1`, id, m.c.text())
		}
	case op < 7: // soft delete
		if id, ok := m.pick("deleted_at is null"); ok {
			_, err = m.pool.Exec(ctx, `update documents set deleted_at = now() where id = $1`, id)
		}
	case op < 8: // undelete
		if id, ok := m.pick("deleted_at is not null"); ok {
			_, err = m.pool.Exec(ctx, `update documents set deleted_at = null where id = $1`, id)
		}
	case op < 9: // hard delete
		if id, ok := m.pick("true"); ok {
			_, err = m.pool.Exec(ctx, `delete from documents where id = $1`, id)
		}
	default: // a document that cannot be indexed, or a metadata-only change
		if m.rng.IntN(2) == 0 {
			_, err = m.pool.Exec(ctx, `insert into documents (external_id, text) values ($1, 'too short')`, "short-"+strconv.Itoa(m.n))
		} else if id, ok := m.pick("true"); ok {
			_, err = m.pool.Exec(ctx, `update documents set title = 'renamed' where id = $1`, id)
		}
	}
	if err != nil {
		m.t.Fatal(err)
	}
}

func checkAgainstReference(t testing.TB, pool *pgxpool.Pool, cfg config.Config, when string) []simRow {
	t.Helper()
	got, want := storedSimilarities(t, pool), referenceSimilarities(t, pool, cfg)
	if d := diffRows(got, want); d != "" {
		t.Fatalf("%s: similarities differ from the reference (%d rows stored, %d expected):\n%s", when, len(got), len(want), d)
	}
	checkSimhashes(t, pool, cfg, when)
	checkRelated(t, pool, cfg, when)
	checkRouting(t, pool, when)
	return got
}

// TestEngine_IncrementalEqualsFull is the design's first invariant (incremental equals full): after any
// sequence of adds, modifications and deletions, incremental runs leave the
// table equal, row for row, to the reference and to a full recomputation, for
// any number of nodes.
func TestEngine_IncrementalEqualsFull(t *testing.T) {
	for _, k := range []int{1, 2, 4} {
		t.Run("nodes="+strconv.Itoa(k), func(t *testing.T) {
			seed := testSeed(t)
			url := pgtest.NewDB(t)
			pool := pgtest.Pool(t, url)
			cfg := testConfig(t, url, k)
			e := NewEngine(cfg, pool, testLogger(t))
			m := &mutator{t: t, pool: pool, c: newCorpus(seed), rng: rand.New(rand.NewPCG(seed, 7))}
			for i := 0; i < 25; i++ {
				m.step()
			}
			if rep := mustRun(t, e, false); rep.Kind != "full" {
				t.Fatalf("first run is %s, want full (no index yet)", rep.Kind)
			}
			checkAgainstReference(t, pool, cfg, "after the first run")
			holes := 0
			for run := 0; run < 12; run++ {
				for i := m.rng.IntN(8); i >= 0; i-- {
					m.step()
				}
				rep := mustRun(t, e, false)
				if rep.Kind != "incremental" && rep.Kind != "none" {
					t.Fatalf("run %d is %s (%s), want incremental", run, rep.Kind, rep.Reason)
				}
				holes += rep.Recomputed - rep.Indexed
				checkAgainstReference(t, pool, cfg, "after incremental run "+strconv.Itoa(run))
			}
			incr := storedSimilarities(t, pool)
			mustRun(t, e, true)
			checkSimilarityKeys(t, pool)
			if d := diffRows(storedSimilarities(t, pool), incr); d != "" {
				t.Fatalf("full run differs from the incremental result:\n%s", d)
			}
			if holes == 0 {
				t.Logf("no unchanged list was recomputed in this sequence (seed %d)", seed)
			}
		})
	}
}

// checkSimilarityKeys: a full run drops the keys of similarities while it
// writes; they must all be back.
func checkSimilarityKeys(t testing.TB, pool *pgxpool.Pool) {
	t.Helper()
	var n int
	err := pool.QueryRow(context.Background(), `
		select (select count(*) from pg_constraint where conrelid = 'similarities'::regclass
		        and conname in ('similarities_pkey', 'similarities_doc_fk', 'similarities_other_fk'))
		     + (select count(*) from pg_indexes where tablename = 'similarities' and indexname = 'similarities_other')`).Scan(&n)
	if err != nil || n != 4 {
		t.Fatalf("similarities has %d of its 4 keys and indexes after a full run (%v)", n, err)
	}
}

// TestEngine_ExtraWindows: with the extra chunk kind on, incremental runs
// stay equal to the reference and to a full run.
func TestEngine_ExtraWindows(t *testing.T) {
	seed := testSeed(t)
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := testConfig(t, url, 2)
	cfg.Engine.ExtraWindowWords = 3
	e := NewEngine(cfg, pool, testLogger(t))
	m := &mutator{t: t, pool: pool, c: newCorpus(seed), rng: rand.New(rand.NewPCG(seed, 13))}
	for i := 0; i < 20; i++ {
		m.step()
	}
	mustRun(t, e, false)
	for run := 0; run < 6; run++ {
		for i := m.rng.IntN(6); i >= 0; i-- {
			m.step()
		}
		mustRun(t, e, false)
		checkAgainstReference(t, pool, cfg, "extra windows, run "+strconv.Itoa(run))
	}
	incr := storedSimilarities(t, pool)
	mustRun(t, e, true)
	if d := diffRows(storedSimilarities(t, pool), incr); d != "" {
		t.Fatalf("full run differs from the incremental result:\n%s", d)
	}
}

// TestEngine_DFCap checks exactness when chunks cross the document-frequency cap.
func TestEngine_DFCap(t *testing.T) {
	seed := testSeed(t)
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := testConfig(t, url, 2)
	cfg.Engine.DFCap = 3
	e := NewEngine(cfg, pool, testLogger(t))
	m := &mutator{t: t, pool: pool, c: newCorpus(seed), rng: rand.New(rand.NewPCG(seed, 9))}
	boiler := m.c.words(30)
	for i := 0; i < 10; i++ {
		m.step()
	}
	mustRun(t, e, false)
	for run := 0; run < 10; run++ {
		for i := m.rng.IntN(5); i >= 0; i-- {
			m.step()
		}
		// A template paragraph comes and goes, pushing its chunks across the cap.
		if _, err := pool.Exec(context.Background(), `insert into documents (external_id, text) values ($1, $2)`,
			"tpl-"+strconv.Itoa(run), m.c.text()+"\n"+boiler); err != nil {
			t.Fatal(err)
		}
		if id, ok := m.pick("external_id like 'tpl-%' and deleted_at is null"); ok && m.rng.IntN(2) == 0 {
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
	seed := testSeed(t)
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := testConfig(t, url, 2)
	m := &mutator{t: t, pool: pool, c: newCorpus(seed), rng: rand.New(rand.NewPCG(seed, 3))}
	for i := 0; i < 20; i++ {
		m.step()
	}
	bg := NewEngine(cfg, pool, testLogger(t))
	bg.SaveInBackground = true // as the daemon does
	mustRun(t, bg, false)
	bg.WaitSaved()
	m.add()
	m.add()
	if rep := mustRun(t, NewEngine(cfg, pool, testLogger(t)), false); rep.Kind != "incremental" {
		t.Fatalf("after restart: %s run (%s), want incremental from the saved index", rep.Kind, rep.Reason)
	}
	checkAgainstReference(t, pool, cfg, "after restart")

	// Same data dir, other node count: the slices are re-split, still incremental.
	cfg4 := cfg
	cfg4.Engine.Nodes = 4
	m.add()
	if rep := mustRun(t, NewEngine(cfg4, pool, testLogger(t)), false); rep.Kind != "incremental" {
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
	m.add()
	if rep := mustRun(t, NewEngine(cfg, pool, testLogger(t)), false); rep.Kind != "full" {
		t.Fatalf("with a corrupt index: %s run, want full", rep.Kind)
	}
	checkAgainstReference(t, pool, cfg, "after corrupt index")

	// Changed parameters invalidate the index too.
	cfgP := cfg
	cfgP.Engine.WindowWords = 4
	m.add()
	if rep := mustRun(t, NewEngine(cfgP, pool, testLogger(t)), false); rep.Kind != "full" {
		t.Fatalf("with other parameters: %s run, want full", rep.Kind)
	}
	checkAgainstReference(t, pool, cfgP, "after parameter change")

	// So do settings that change the lists without changing the index.
	cfgK := cfgP
	cfgK.Engine.TopK = 2
	m.add()
	if rep := mustRun(t, NewEngine(cfgK, pool, testLogger(t)), false); rep.Kind != "full" || !strings.Contains(rep.Reason, "top_k=2") {
		t.Fatalf("with another top_k: %s run (%s), want full", rep.Kind, rep.Reason)
	}
	checkAgainstReference(t, pool, cfgK, "after top_k change")
}
