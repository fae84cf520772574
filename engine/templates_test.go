package engine

import (
	"context"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/internal/testtext"
	"github.com/plagd/plagd/invindex"
	"github.com/plagd/plagd/report"
	"github.com/plagd/plagd/store"
)

// TestEngine_Templates: registered templates keep incremental equal to
// full, row for row, while they are added and removed between runs (for
// one kind or for all), documents change kind, and documents come and go:
// after every run the table equals the reference, which leaves each
// template's chunks out of the documents it applies to.
func TestEngine_Templates(t *testing.T) {
	seed := enginetest.Seed(t)
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	ctx := context.Background()
	cfg := enginetest.Config(t, url, 2)
	e := NewEngine(cfg, pool, enginetest.Logger(t))
	c := enginetest.NewCorpus(seed).WithTemplates(3, 0.6)
	rng := rand.New(rand.NewPCG(seed, 17))
	m := &enginetest.Mutator{T: t, Pool: pool, C: c, Rng: rng}
	kinds := []string{"essay", "thesis", ""}
	setKinds := func() {
		pgtest.Exec(t, pool, `update documents set kind = nullif((array['essay','thesis',''])[1 + (id % 3)], '') where kind is null and id % 4 <> 0`)
	}
	for range 25 {
		m.Step()
	}
	setKinds()
	mustRun(t, e, false)
	checkAgainstReference(t, pool, cfg, "after the first run")
	var registered []int64
	trimmed := 0 // documents indexed with fewer chunks than their text has, summed over runs
	for run := range 12 {
		for i := rng.IntN(5); i >= 0; i-- {
			m.Step()
		}
		setKinds()
		switch op := rng.IntN(4); {
		case op == 0 || len(registered) == 0:
			tpl := c.Templates()[rng.IntN(len(c.Templates()))]
			if rng.IntN(2) == 0 { // a part of it, as staff may paste it
				w := strings.Fields(tpl)
				tpl = strings.Join(w[rng.IntN(10):len(w)-rng.IntN(10)], " ")
			}
			id, _, err := store.AddTemplate(ctx, pool, store.Template{Name: "T" + strconv.Itoa(run), Kind: kinds[rng.IntN(3)], Body: tpl})
			if err != nil {
				t.Fatal(err)
			}
			registered = append(registered, id)
		case op == 1:
			i := rng.IntN(len(registered))
			if _, err := store.RemoveTemplate(ctx, pool, registered[i]); err != nil {
				t.Fatal(err)
			}
			registered = append(registered[:i], registered[i+1:]...)
		case op == 2:
			// A document moves to another kind, and so under other templates.
			if id, ok := m.Pick("deleted_at is null"); ok {
				pgtest.Exec(t, pool, `update documents set kind = $2 where id = $1`, id, kinds[rng.IntN(2)])
			}
		}
		rep := mustRun(t, e, false)
		if rep.Kind != "incremental" && rep.Kind != "none" {
			t.Fatalf("run %d is %s (%s), want incremental", run, rep.Kind, rep.Reason)
		}
		checkAgainstReference(t, pool, cfg, "after incremental run "+strconv.Itoa(run))
		trimmed += templateTrimmed(t, e.params(), pool)
	}
	if trimmed == 0 {
		t.Fatalf("no document was ever indexed without template chunks: the test proves nothing (seed %d)", seed)
	}
	incr := enginetest.Stored(t, pool)
	mustRun(t, e, true)
	if d := enginetest.DiffRows(enginetest.Stored(t, pool), incr); d != "" {
		t.Fatalf("full run differs from the incremental result:\n%s", d)
	}
}

// templateTrimmed counts the documents whose index holds fewer chunks than
// their stored text has: those a template applied to.
func templateTrimmed(t *testing.T, p invindex.Params, pool *pgxpool.Pool) int {
	t.Helper()
	rows, err := pool.Query(context.Background(), `select t.body, s.chunks from document_texts t join document_status s using (doc_id)`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	tok := invindex.NewTokenizer(p)
	n := 0
	for rows.Next() {
		var body string
		var chunks int
		if err := rows.Scan(&body, &chunks); err != nil {
			t.Fatal(err)
		}
		if _, cs, _ := tok.DocChunks(body); chunks < len(cs) {
			n++
		}
	}
	return n
}

// TestPassages_Templates: an assignment prompt registered for essays is
// left out of the essays' text (no similarity row for it, no passage over
// it, listed in the report as template text by name), still counts between
// theses, which are not essays, and counts again once it is removed.
func TestPassages_Templates(t *testing.T) {
	seed := enginetest.Seed(t)
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	ctx := context.Background()
	cfg := enginetest.Config(t, url, 2)
	c := testtext.NewWordGen(seed)
	prompt := c.Words("p", 60)
	essay := func(ext string) int64 {
		id := insertDoc(t, pool, ext, prompt+"\n\n"+c.Words(ext, 200))
		pgtest.Exec(t, pool, `update documents set kind = 'essay' where id = $1`, id)
		return id
	}
	a, b := essay("a"), essay("b")
	thesis := insertDoc(t, pool, "thesis", c.Words("t", 150)+"\n\n"+prompt+"\n\n"+c.Words("t", 150))
	thesis2 := insertDoc(t, pool, "thesis2", prompt+"\n\n"+c.Words("u", 150))
	pgtest.Exec(t, pool, `update documents set kind = 'thesis' where id in ($1, $2)`, thesis, thesis2)
	id, docs, err := store.AddTemplate(ctx, pool, store.Template{Name: "Essay prompt", Kind: "essay", Body: prompt})
	if err != nil || docs != 2 {
		t.Fatalf("add template: %d documents to index again, %v; want the 2 essays", docs, err)
	}
	e := NewEngine(cfg, pool, enginetest.Logger(t))
	mustRun(t, e, false)
	checkAgainstReference(t, pool, cfg, "with the template")
	rows := func(doc int64) map[int64]bool {
		out := map[int64]bool{}
		for _, r := range enginetest.Stored(t, pool) {
			if r.Doc == doc {
				out[r.Other] = true
			}
		}
		return out
	}
	if r := rows(a); len(r) != 0 {
		t.Fatalf("essay a's sources %v: want none, the essays share only the registered prompt", r)
	}
	if r := rows(thesis); !r[thesis2] {
		t.Fatalf("thesis sources %v: want the other thesis, for which the prompt is no template", r)
	}
	rep, err := Passages(ctx, pool, cfg, a, 0, report.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Common) != 1 || rep.Common[0].Template != "Essay prompt" || rep.Common[0].Start != 0 {
		t.Fatalf("common text %+v: want the prompt, named", rep.Common)
	}
	for _, s := range rep.Sources {
		if len(s.Passages) > 0 {
			t.Fatalf("source %d has passages %+v over the registered prompt", s.ID, s.Passages)
		}
	}

	if _, err := store.RemoveTemplate(ctx, pool, id); err != nil {
		t.Fatal(err)
	}
	if rep := mustRun(t, e, false); rep.Kind != "incremental" || rep.Indexed != 2 {
		t.Fatalf("run after removing the template: %s, %d indexed; want the 2 essays indexed again", rep.Kind, rep.Indexed)
	}
	checkAgainstReference(t, pool, cfg, "without the template")
	if r := rows(a); !r[b] {
		t.Fatalf("essay a's sources %v: want essay b once the prompt is no template", r)
	}
}
