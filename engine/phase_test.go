package engine

import (
	"math/rand/v2"
	"testing"

	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/pgtest"
)

// TestRun_OneTextPass: a run's feature phases read each text the run
// indexed once and tokenise it once, whatever the number of phases; an
// incremental run whose models need no rebuild reads no stored text.
func TestRun_OneTextPass(t *testing.T) {
	seed := enginetest.Seed(t)
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 2)
	e := NewEngine(cfg, pool, enginetest.Logger(t))
	defer e.Close()
	m := &enginetest.Mutator{T: t, Pool: pool, C: enginetest.NewCorpus(seed), Rng: rand.New(rand.NewPCG(seed, 5))}
	for range 40 {
		m.Add()
	}
	rep := mustRun(t, e, false)
	if rep.TextsRead != int64(rep.Indexed) || rep.TextsTokenised != rep.TextsRead {
		t.Fatalf("full run indexed %d texts, its phases read %d and tokenised %d (want each once)", rep.Indexed, rep.TextsRead, rep.TextsTokenised)
	}
	for range 3 {
		m.Add()
	}
	pgtest.Exec(t, pool, `update documents set text = $1, content = null where id = (select min(id) from documents)`, m.C.Text())
	rep = mustRun(t, e, false)
	if rep.Kind != "incremental" || rep.Indexed != 4 {
		t.Fatalf("second run: %s, %d indexed; want incremental, 4", rep.Kind, rep.Indexed)
	}
	if rep.TextsRead != 4 || rep.TextsTokenised != 4 {
		t.Fatalf("incremental run of 4 texts: its phases read %d and tokenised %d texts, want 4 and 4", rep.TextsRead, rep.TextsTokenised)
	}
	for _, name := range []string{"texts", "neardup", "related", "routing"} {
		if _, ok := rep.Phases[name]; !ok {
			t.Errorf("run report has no %q phase time: %v", name, rep.Phases)
		}
	}
}
