package engine

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/plagd/plagd/disguise"
	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/evasion"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/report"
)

// TestEvasion checks the evasion set (internal/evasion) end to end on
// PostgreSQL: the archive holds the licence texts, the clean essay and each
// disguised copy are checked against it (CheckText: the committed index,
// then alignment), and each disguised copy must reach the clean essay's
// coverage (carried through the disguise, evasion.Expected) and per-source
// similarity within one point, with the same
// sources, and be flagged by disguise.Scan. One disguised copy is also
// indexed by a run, and its stored report must agree with the check.
func TestEvasion(t *testing.T) {
	c, err := evasion.LicenceCase(evasion.LicenceDir)
	if err != nil {
		t.Skipf("no licence texts: %v", err)
	}
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 2)
	src := []int64{insertDoc(t, pool, "gpl-3", c.Sources[0]), insertDoc(t, pool, "apache-2.0", c.Sources[1])}
	for i, o := range c.Others {
		insertDoc(t, pool, "other-"+string(rune('a'+i)), o)
	}
	e := NewEngine(cfg, pool, enginetest.Logger(t))
	mustRun(t, e, false)
	ctx := context.Background()

	type figures struct {
		coverage float64
		sim      map[int64]float64
		covered  []bool // byte i of the text is in a passage
	}
	check := func(text string) figures {
		t.Helper()
		rep, err := e.CheckText(ctx, text, 0, report.Options{})
		if err != nil {
			t.Fatal(err)
		}
		f := figures{coverage: 100 * rep.Coverage, sim: map[int64]float64{}, covered: make([]bool, len(text))}
		for _, s := range rep.Sources {
			f.sim[s.ID] = 100 * s.Similarity
			for _, p := range s.Passages {
				for i := max(p.A().Start, 0); i < min(p.A().End, len(text)); i++ {
					f.covered[i] = true
				}
			}
		}
		return f
	}
	clean := check(c.Essay)
	if clean.coverage < 30 || clean.sim[src[0]]+clean.sim[src[1]] < 20 {
		t.Fatalf("clean essay: %+v: the case does not copy", clean)
	}
	t.Logf("%-45s coverage %5.1f %%  similarity %5.1f %% / %5.1f %%", "clean", clean.coverage, clean.sim[src[0]], clean.sim[src[1]])
	var mixed string
	for i, v := range evasion.Variants() {
		text := v.Apply(c.Essay, rand.New(rand.NewPCG(uint64(i), 18)))
		if v.Name == "mixed: cyrillic + zero-width + soft hyphen" {
			mixed = text
		}
		got := check(text)
		want := evasion.Expected(v, c.Essay, clean.covered, clean.coverage, rand.New(rand.NewPCG(uint64(i), 18)))
		flags := disguise.Scan(text)
		t.Logf("%-45s coverage %5.1f %% (expected %5.1f %%)  similarity %5.1f %% / %5.1f %%  flags %d", v.Name, got.coverage, want, got.sim[src[0]], got.sim[src[1]], len(flags))
		if math.Abs(got.coverage-want) > 1 {
			t.Errorf("%s: coverage %.1f %%, expected %.1f %% (clean %.1f %%)", v.Name, got.coverage, want, clean.coverage)
		}
		for _, id := range src {
			if math.Abs(got.sim[id]-clean.sim[id]) > 1 {
				t.Errorf("%s: similarity to source %d %.1f %%, clean %.1f %%", v.Name, id, got.sim[id], clean.sim[id])
			}
		}
		if len(flags) == 0 {
			t.Errorf("%s: not flagged", v.Name)
		}
	}

	// Indexed by a run: the stored similarities and report agree.
	doc := insertDoc(t, pool, "essay-disguised", mixed)
	mustRun(t, e, false)
	rep, err := Passages(ctx, pool, cfg, doc, 0, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(100*rep.Coverage-clean.coverage) > 1 {
		t.Errorf("indexed disguised essay: coverage %.1f %%, clean check %.1f %%", 100*rep.Coverage, clean.coverage)
	}
	for _, id := range src {
		s := findSource(rep, id)
		if s == nil || math.Abs(100*s.Similarity-clean.sim[id]) > 1 {
			t.Errorf("indexed disguised essay: source %d %+v, clean check %.1f %%", id, s, clean.sim[id])
		}
	}
}
