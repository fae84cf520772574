package engine

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/plagd/plagd/internal/enginetest"
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
			seed := enginetest.Seed(t)
			urlA, urlB := pgtest.NewDB(t), pgtest.NewDB(t)
			poolA, poolB := pgtest.Pool(t, urlA), pgtest.Pool(t, urlB)
			cfgA := enginetest.Config(t, urlA, 2)
			cfgB := cfgA
			cfgB.DatabaseURL = urlB

			// The other database fills the data directory: base slices of
			// generation 1 and later, and its generation directories.
			mA := &enginetest.Mutator{T: t, Pool: poolA, C: enginetest.NewCorpus(seed), Rng: rand.New(rand.NewPCG(seed, 1))}
			eA := NewEngine(cfgA, poolA, enginetest.Logger(t))
			for i := 0; i < 30; i++ {
				mA.Step()
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
			mB := &enginetest.Mutator{T: t, Pool: poolB, C: enginetest.NewCorpus(seed ^ 0x9e3779b97f4a7c15), Rng: rand.New(rand.NewPCG(seed, 2))}
			for i := 0; i < 20; i++ {
				mB.Step()
			}
			if rep := mustRun(t, NewEngine(cfgB, poolB, enginetest.Logger(t)), false); rep.Kind != "full" {
				t.Fatalf("run 1: %s run, want full", rep.Kind)
			}
			checkAgainstReference(t, poolB, cfgB, "run 1")
			mB.Add()
			mB.Add()
			// A new engine: a restarted process that must load run 1's files.
			rep := mustRun(t, NewEngine(cfgB, poolB, enginetest.Logger(t)), false)
			if rep.Kind != "incremental" {
				t.Fatalf("run 2 after restart: %s run (%s), want incremental from run 1's own files", rep.Kind, rep.Reason)
			}
			checkAgainstReference(t, poolB, cfgB, "run 2")
		})
	}
}
