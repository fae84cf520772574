package ingest

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/store"
)

// TestIngest_NearDuplicates: plagd ingest reports a file that nearly equals
// a stored document, and two copies within one import at the second, before
// any run; an unchanged re-import reports nothing again.
func TestIngest_NearDuplicates(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(enginetest.Seed(t), 11))
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 1)
	orig := enginetest.EssayWords(r, 700)
	other := enginetest.EssayWords(r, 700)
	dir := t.TempDir()
	enginetest.PutFile(t, filepath.Join(dir, "2023", "essay.txt"), strings.Join(orig, " "))
	enginetest.PutFile(t, filepath.Join(dir, "2023", "other.txt"), strings.Join(other, " "))
	enginetest.PutFile(t, filepath.Join(dir, "2024", "essay-again.txt"), enginetest.Reformat(orig))
	check := cfg.ExtractOptions()
	opt := Options{Roots: []string{dir}, Check: &check, NearDups: engine.NewNearDups(pool, cfg)}
	sum, err := Files(ctx, store.NewDB(pool), opt, enginetest.Logger(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.NearDuplicates) != 1 {
		t.Fatalf("first import: near-duplicates %+v, want one", sum.NearDuplicates)
	}
	nd := sum.NearDuplicates[0]
	if !strings.HasSuffix(nd.Path, "essay-again.txt") || len(nd.Candidates) != 1 ||
		!strings.HasSuffix(nd.Candidates[0].ExternalID, "2023/essay.txt") || nd.Candidates[0].Distance != 0 {
		t.Fatalf("first import: near-duplicate %+v, want essay-again.txt near 2023/essay.txt at 0 bits", nd)
	}

	// A resubmission in a later import, after a run.
	enginetest.MustRun(t, engine.NewEngine(cfg, pool, enginetest.Logger(t)).Run, false)
	enginetest.PutFile(t, filepath.Join(dir, "2025", "essay-2025.txt"), strings.ToUpper(enginetest.Reformat(orig)))
	sum, err = Files(ctx, store.NewDB(pool), opt, enginetest.Logger(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.NearDuplicates) != 1 || len(sum.NearDuplicates[0].Candidates) != 2 || sum.Added != 1 || sum.Unchanged != 3 {
		t.Fatalf("second import: %+v; want 1 added, near both earlier copies", sum)
	}
	for _, c := range sum.NearDuplicates[0].Candidates {
		if c.Pending {
			t.Fatalf("after the run, candidate %+v is still pending", c)
		}
	}
}
