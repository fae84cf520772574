package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/pgtest"
)

// TestEngine_LateDeletes: a document hard-deleted after a run's boundary
// (a transaction held open elsewhere keeps the boundary back, so the run
// does not see the delete) is still in the run's index, and the run's
// lists name it. The run commits anyway, without a row that names it, and
// the next run, which consumes the delete, leaves every table equal to the
// reference. Once for an incremental run and once for a full one, whose
// commit rebuilds the similarity keys.
func TestEngine_LateDeletes(t *testing.T) {
	seed := enginetest.Seed(t)
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 1)
	ctx := context.Background()
	c := enginetest.NewCorpus(seed)
	add := func(text string) int64 {
		var id int64
		if err := pool.QueryRow(ctx, `insert into documents (title, text) values ('doc', $1) returning id`, text).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	shared := c.Words(80)
	m := add(shared + " " + c.Words(60))
	victims := []int64{add(shared + " " + c.Words(40)), add(c.Words(30) + " " + shared)}
	for range 8 {
		add(c.Text())
	}
	e := NewEngine(cfg, pool, enginetest.Logger(t))
	mustRun(t, e, false)
	checkAgainstReference(t, pool, cfg, "first run")

	for i, full := range []bool{false, true} {
		when := fmt.Sprintf("late delete, full=%v", full)
		// A change the run sees: m keeps the text it shares with the victim.
		if _, err := pool.Exec(ctx, `update documents set text = $2 where id = $1`, m, shared+" "+c.Words(50)); err != nil {
			t.Fatal(err)
		}
		_, end := pgtest.OpenXact(t, pool)
		// A delete it does not see: younger than the open transaction.
		if _, err := pool.Exec(ctx, `delete from documents where id = $1`, victims[i]); err != nil {
			t.Fatal(err)
		}
		rep, err := e.Run(ctx, full)
		if err != nil {
			t.Fatalf("%s: run: %v", when, err)
		}
		if rep.Deleted != 0 {
			t.Fatalf("%s: the run saw %d deletes; the test needs it not to", when, rep.Deleted)
		}
		if n := namedRows(t, pool, victims[i]); n != "" {
			t.Fatalf("%s: rows still name the deleted document %d: %s", when, victims[i], n)
		}
		end()
		if rep := mustRun(t, e, false); rep.Deleted != 1 {
			t.Fatalf("%s: the next run consumed %d deletes, want 1", when, rep.Deleted)
		}
		checkAgainstReference(t, pool, cfg, when+", next run")
	}
}

// namedRows lists the run-written tables that hold a row naming id.
func namedRows(t *testing.T, pool *pgxpool.Pool, id int64) string {
	t.Helper()
	var out string
	for _, q := range []string{
		`select count(*) from similarities where doc_id = $1 or other_id = $1`,
		`select count(*) from related where doc_id = $1 or other_id = $1`,
		`select count(*) from document_texts where doc_id = $1`,
		`select count(*) from document_status where doc_id = $1`,
		`select count(*) from simhashes where doc_id = $1`,
		`select count(*) from related_vectors where doc_id = $1`,
		`select count(*) from routing_features where doc_id = $1`,
	} {
		var n int
		if err := pool.QueryRow(context.Background(), q, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			out += fmt.Sprintf("%q: %d; ", q, n)
		}
	}
	return out
}
