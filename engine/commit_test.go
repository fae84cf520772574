package engine

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/store"
)

// TestEngine_LostCommitAnswer: when a run's COMMIT returns an error although
// PostgreSQL committed it (a stop request or a dropped connection at that
// moment), the run stays committed: failRun never overwrites a committed
// run, and committedAnyway reads the database's word. Before, such a run
// was recorded as aborted while its results were current (found by
// TestEngine_StopsOnSIGTERM with SIGTERM at the end of a run).
func TestEngine_LostCommitAnswer(t *testing.T) {
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	c := enginetest.NewCorpus(enginetest.Seed(t))
	for i := range 4 {
		pgtest.Exec(t, pool, `insert into documents (external_id, text) values ($1, $2)`, fmt.Sprint("d", i), c.Text())
	}
	mustRun(t, NewEngine(enginetest.Config(t, url, 1), pool, enginetest.Logger(t)), false)
	ctx := context.Background()
	gen, _ := store.LastCommittedRun(ctx, pool)
	lost := errors.New("commit answer lost: " + context.Canceled.Error())
	if !committedAnyway(ctx, pool, gen, lost, enginetest.Logger(t)) {
		t.Fatalf("committedAnyway(run %d) = false for a committed run", gen)
	}
	failRun(ctx, pool, gen, context.Canceled, enginetest.Logger(t))
	if after, _ := store.LastCommittedRun(ctx, pool); after != gen {
		t.Fatalf("failRun turned committed run %d into a failed one (last committed now %d)", gen, after)
	}
	if committedAnyway(ctx, pool, gen+1000, lost, enginetest.Logger(t)) {
		t.Fatal("committedAnyway = true for a run that does not exist")
	}
}
