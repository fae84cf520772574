package report

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/plagd/plagd/disguise"
	"github.com/plagd/plagd/internal/evasion"
)

// TestEvasion is the evasion set's acceptance test (plagd issue 18): each
// disguised copy of the clean essay is found at the clean copy's
// similarity, within one point, both as the report's coverage (the clean
// coverage carried through the disguise, evasion.Expected: letter spacing
// adds characters) and as the index's containment, and Scan flags it. Run
// with -v for the table in docs/QUALITY.md ("Evasion").
func TestEvasion(t *testing.T) {
	c := loadEvasionCase(t)
	if fs := disguise.Scan(c.essay); len(fs) != 0 {
		t.Fatalf("the clean essay is flagged: %+v", fs)
	}
	clean := measureEvasion(c, c.essay)
	t.Logf("%-45s coverage %5.1f %%  containment %5.1f %%", "clean", clean.coverage, clean.containment)
	if clean.coverage < 30 {
		t.Fatalf("clean essay covered %.1f %%: the case does not copy", clean.coverage)
	}
	for i, v := range evasion.Variants() {
		text := v.Apply(c.essay, rand.New(rand.NewPCG(uint64(i), 18)))
		got := measureEvasion(c, text)
		want := evasion.Expected(v, c.essay, clean.covered, clean.coverage, rand.New(rand.NewPCG(uint64(i), 18)))
		flags := disguise.Scan(text)
		t.Logf("%-45s coverage %5.1f %% (expected %5.1f %%)  containment %5.1f %%  flags %v", v.Name, got.coverage, want, got.containment, kinds(flags))
		if math.Abs(got.coverage-want) > 1 || math.Abs(got.containment-clean.containment) > 1 {
			t.Errorf("%s: coverage %.1f %%, containment %.1f %%; expected %.1f %%, %.1f %% (clean coverage %.1f %%)",
				v.Name, got.coverage, got.containment, want, clean.containment, clean.coverage)
		}
		if len(flags) == 0 {
			t.Errorf("%s: not flagged", v.Name)
		}
	}
}

func kinds(fs []disguise.Flag) []disguise.Kind {
	var ks []disguise.Kind
	for _, f := range fs {
		ks = append(ks, f.Kind)
	}
	return ks
}
