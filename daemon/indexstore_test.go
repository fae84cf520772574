package daemon

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/plagd/plagd/internal/pgtest"
)

// TestEngine_ForeignFilesInDataDir is issue 14 item 14: a data directory
// that already holds index files of another database (a re-created
// database, a test run, or a restored one that carries the same instance
// ID) must never shadow this database's own files. Run 1 on the new
// database must write its own base slices, so run 2 is incremental and its
// results equal the reference.
func TestEngine_ForeignFilesInDataDir(t *testing.T) {
	for _, tc := range []struct {
		name         string
		sameInstance bool // a restored database: plagd_meta copied too
	}{
		{"recreated database", false},
		{"restored database, same instance id", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seed := testSeed(t)
			urlA, urlB := pgtest.NewDB(t), pgtest.NewDB(t)
			poolA, poolB := pgtest.Pool(t, urlA), pgtest.Pool(t, urlB)
			cfgA := testConfig(t, urlA, 2)
			cfgB := cfgA
			cfgB.DatabaseURL = urlB

			// The other database fills the data directory: base slices of
			// generation 1 and later, and its generation directories.
			mA := &mutator{t: t, pool: poolA, c: newCorpus(seed), rng: rand.New(rand.NewPCG(seed, 1))}
			eA := NewEngine(cfgA, poolA, testLogger(t))
			for i := 0; i < 30; i++ {
				mA.step()
			}
			mustRun(t, eA, false)
			eA.WaitSaved()
			if bases, _ := filepath.Glob(filepath.Join(cfgA.DataDir, "slices", "*-g1.idx")); len(bases) == 0 {
				t.Fatal("the other database left no base slice of generation 1")
			}

			if tc.sameInstance {
				var inst string
				if err := poolA.QueryRow(t.Context(), `select instance_id from plagd_meta`).Scan(&inst); err != nil {
					t.Fatal(err)
				}
				pgtest.Exec(t, poolB, `update plagd_meta set instance_id = $1`, inst)
			}
			mB := &mutator{t: t, pool: poolB, c: newCorpus(seed ^ 0x9e3779b97f4a7c15), rng: rand.New(rand.NewPCG(seed, 2))}
			for i := 0; i < 20; i++ {
				mB.step()
			}
			if rep := mustRun(t, NewEngine(cfgB, poolB, testLogger(t)), false); rep.Kind != "full" {
				t.Fatalf("run 1: %s run, want full", rep.Kind)
			}
			checkAgainstReference(t, poolB, cfgB, "run 1")
			mB.add()
			mB.add()
			// A new engine: a restarted process that must load run 1's files.
			rep := mustRun(t, NewEngine(cfgB, poolB, testLogger(t)), false)
			if rep.Kind != "incremental" {
				t.Fatalf("run 2 after restart: %s run (%s), want incremental from run 1's own files", rep.Kind, rep.Reason)
			}
			checkAgainstReference(t, poolB, cfgB, "run 2")
		})
	}
}
