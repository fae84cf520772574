package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/internal/testtext"
	"github.com/plagd/plagd/related"
)

// checkRelated: after a committed run (related.method exact), the stored
// vectors are those of the indexed documents' stored texts under the
// newest model, and the stored lists equal an exact self join of them,
// row for row.
func checkRelated(t testing.TB, pool *pgxpool.Pool, cfg config.Config, when string) {
	t.Helper()
	ctx := context.Background()
	m, err := loadRelatedModel(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	if m.Version == 0 {
		t.Fatalf("%s: no related-documents model after a committed run", when)
	}
	langs, _ := cfg.Related.Langs()
	var ids []int64
	var vecs []related.Vector
	rows, _ := pool.Query(ctx, `select t.doc_id, t.body from document_texts t join documents d on d.id = t.doc_id
		where d.deleted_at is null order by t.doc_id`)
	var id int64
	var body string
	if _, err := pgx.ForEachRow(rows, []any{&id, &body}, func() error {
		_, terms := related.Analyze(body, langs)
		ids = append(ids, id)
		vecs = append(vecs, docVector(m.Model, terms))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	stored, err := (&Engine{pool: pool}).relatedVectors(ctx, m.Version, ids)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	pool.QueryRow(ctx, `select count(*) from related_vectors`).Scan(&n)
	if n != len(ids) || len(stored) != len(ids) {
		t.Fatalf("%s: %d related vectors stored (%d of the current model for indexed documents), want %d", when, n, len(stored), len(ids))
	}
	for i, id := range ids {
		if stored[i].id != id {
			t.Fatalf("%s: stored vectors out of order: %d where document %d's is due", when, stored[i].id, id)
		}
		if related.Cosine(stored[i].v, vecs[i]) < 0.99999 && len(vecs[i].Terms) > 0 {
			t.Fatalf("%s: document %d: stored vector differs from its text's", when, id)
		}
	}
	pool2 := related.Pool(runtime.GOMAXPROCS(0))
	s := related.Prepare(nil, vecs, true, pool2)
	want, _ := related.Exact(s, related.NewIndex(s), cfg.Related.K, pool2)
	got := map[int64][]relatedRow{}
	rows, _ = pool.Query(ctx, `select doc_id, other_id, cosine from related order by doc_id, cosine desc, other_id`)
	var r relatedRow
	if _, err := pgx.ForEachRow(rows, []any{&id, &r.other, &r.cosine}, func() error {
		got[id] = append(got[id], r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var diffs []string
	total := 0
	for i, id := range ids {
		w := want[i]
		g := got[id]
		total += len(w)
		delete(got, id)
		ok := len(g) == len(w)
		for j := 0; ok && j < len(w); j++ {
			ok = g[j].other == ids[w[j].Doc] && math.Abs(float64(g[j].cosine-w[j].Sim)) < 1e-5
		}
		if !ok {
			diffs = append(diffs, fmt.Sprintf("document %d: stored %v, exact %v", id, g, rowsOf(&relatedState{ids: ids}, w)))
		}
	}
	for id, g := range got {
		diffs = append(diffs, fmt.Sprintf("document %d is not indexed but has a related list %v", id, g))
	}
	if len(diffs) > 0 {
		if len(diffs) > 8 {
			diffs = diffs[:8]
		}
		t.Fatalf("%s: related lists differ from an exact self join (%d rows expected):\n%s", when, total, strings.Join(diffs, "\n"))
	}
}

// TestRelated_ZolipRuns: with related.method zolip, full runs compute the
// lists with ZOLIP. Made exhaustive (λ = 63, σ = 1: every important term
// kept) its lists must equal the exact join's, and incremental runs after
// it stay exact for what they touch.
func TestRelated_ZolipRuns(t *testing.T) {
	seed := enginetest.Seed(t)
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 2)
	cfg.Related.Method, cfg.Related.Lambda, cfg.Related.Sigma = "zolip", 63, 1
	e := NewEngine(cfg, pool, enginetest.Logger(t))
	m := &enginetest.Mutator{T: t, Pool: pool, C: enginetest.NewCorpus(seed), Rng: rand.New(rand.NewPCG(seed, 13))}
	for range 30 {
		m.Step()
	}
	mustRun(t, e, true)
	checkRelated(t, pool, cfg, "after a full ZOLIP run")
	for run := range 4 {
		for range 5 {
			m.Step()
		}
		mustRun(t, e, false)
		checkRelated(t, pool, cfg, fmt.Sprintf("after incremental run %d", run))
	}
}

// relatedArchive is a scratch database holding docs documents of the test
// corpus (stream: the mutator's random stream), and an engine with one node
// whose first run has committed and been checked.
func relatedArchive(t *testing.T, docs int, stream uint64) (*pgxpool.Pool, config.Config, *Engine) {
	t.Helper()
	seed := enginetest.Seed(t)
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 1)
	m := &enginetest.Mutator{T: t, Pool: pool, C: enginetest.NewCorpus(seed), Rng: rand.New(rand.NewPCG(seed, stream))}
	for range docs {
		m.Add()
	}
	e := NewEngine(cfg, pool, enginetest.Logger(t))
	mustRun(t, e, false)
	checkRelated(t, pool, cfg, "first run")
	return pool, cfg, e
}

// TestRelated_RunThatTouchesNothing: runs that read no text keep every
// document's vector and list: an incremental run whose only pending change
// indexes nothing (a document inserted and removed again before any run
// saw it), and a full run with nothing pending (forced, or after a change
// of settings), which takes every text from the store. Their list of
// touched documents is empty, and an empty list once reached PostgreSQL as
// NULL: "not (id = any(NULL))" matched no other document, and the run
// rebuilt the related model over none, dropping every vector.
func TestRelated_RunThatTouchesNothing(t *testing.T) {
	pool, cfg, e := relatedArchive(t, 20, 23)
	ctx := context.Background()
	count := func() (n int) {
		pool.QueryRow(ctx, `select count(*) from related_vectors`).Scan(&n)
		return n
	}
	before := count()
	var id int64
	if err := pool.QueryRow(ctx, `insert into documents (title, text) values ('gone', 'short lived words') returning id`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `delete from documents where id = $1`, id); err != nil {
		t.Fatal(err)
	}
	mustRun(t, e, false)
	if n := count(); n != before {
		t.Fatalf("related vectors: %d before a run that touched nothing, %d after", before, n)
	}
	checkRelated(t, pool, cfg, "after an incremental run that touched nothing")
	if rep := mustRun(t, e, true); rep.Kind != "full" {
		t.Fatalf("forced full run: %s", rep.Kind)
	}
	if n := count(); n != before {
		t.Fatalf("related vectors: %d before a full run with nothing pending, %d after", before, n)
	}
	checkRelated(t, pool, cfg, "after a full run with nothing pending")

	// The same at the source: an incremental run's outcome with no
	// document in it leaves every indexed document among the others.
	rd, err := e.runDocs(ctx, false, &cluster.Outcome{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rd.others) != before || len(rd.indexed)+len(rd.gone) != 0 {
		t.Fatalf("runDocs of an empty outcome: %d others, %d indexed, %d gone; want %d, 0, 0",
			len(rd.others), len(rd.indexed), len(rd.gone), before)
	}
}

// TestRelated_MarginStaysExact: a list refilled from its margin must not
// take a margin member whose cosine moved since. A's list (k 1, margin 2)
// holds B, then C and D below it. C is rewritten to share nothing with A,
// so no gain reaches A and its stored top is unchanged; then B is deleted,
// and A's list must become D, not C at the cosine C once had. Each run
// also says how it kept the lists: patched from what was held, or joined
// again when the margin ran out.
func TestRelated_MarginStaysExact(t *testing.T) {
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 1)
	cfg.Related.K, cfg.Related.Margin = 1, 2
	e := NewEngine(cfg, pool, enginetest.Logger(t))
	ctx := context.Background()
	words := func(prefix string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("%sq%cx%cz", prefix, 'a'+i%26, 'a'+i/26)
		}
		return out
	}
	shared := words("vorm", 20)
	insert := func(title string, ws ...string) int64 {
		var id int64
		if err := pool.QueryRow(ctx, `insert into documents (title, text) values ($1, $2) returning id`,
			title, strings.Join(ws, " ")).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	a := insert("A", shared...)
	b := insert("B", append(slices.Clone(shared[:15]), words("bel", 5)...)...)
	c := insert("C", append(slices.Clone(shared[:10]), words("cim", 10)...)...)
	d := insert("D", append(slices.Clone(shared[:6]), words("dor", 14)...)...)
	insert("E", append(slices.Clone(shared[:3]), words("eth", 17)...)...)
	for i := range 6 {
		insert(fmt.Sprintf("filler %d", i), words(fmt.Sprintf("fil%c", 'a'+i), 20)...)
	}
	mustRun(t, e, false)
	checkRelated(t, pool, cfg, "first run")
	listOf := func(id int64) []int64 {
		rows, err := pool.Query(ctx, `select other_id from related where doc_id = $1 order by cosine desc, other_id`, id)
		if err != nil {
			t.Fatal(err)
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}
	if l := listOf(a); !slices.Equal(l, []int64{b}) {
		t.Fatalf("A's list after the first run: %v, want B (%d)", l, b)
	}
	if _, err := pool.Exec(ctx, `update documents set text = $2 where id = $1`, c, strings.Join(words("new", 20), " ")); err != nil {
		t.Fatal(err)
	}
	rep := mustRun(t, e, false)
	checkRelated(t, pool, cfg, "after C left A's margin")
	if rep.RelatedPatched == 0 {
		t.Errorf("the run that moved C patched no list: %+v", rep)
	}
	if _, err := pool.Exec(ctx, `delete from documents where id = $1`, b); err != nil {
		t.Fatal(err)
	}
	rep = mustRun(t, e, false)
	checkRelated(t, pool, cfg, "after B, A's top, was deleted")
	if l := listOf(a); !slices.Equal(l, []int64{d}) {
		t.Fatalf("A's list after B left: %v, want D (%d), refilled from the margin", l, d)
	}
	if rep.RelatedRejoined != 0 {
		t.Errorf("B's deletion joined %d lists again; every list had a margin", rep.RelatedRejoined)
	}
}

// TestRelated_NumberingKeptAcrossRuns: incremental runs that change a
// document or two each keep the archive's vectors as the full run's join
// numbered them and convert only their batch (relatedState.numbered);
// documents changed in any run since must not be joined with their old
// vectors, and the lists stay exact after every run.
func TestRelated_NumberingKeptAcrossRuns(t *testing.T) {
	seed := enginetest.Seed(t)
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 1)
	e := NewEngine(cfg, pool, enginetest.Logger(t))
	c := enginetest.NewCorpus(seed)
	ctx := context.Background()
	var ids []int64
	for i := range 48 {
		var id int64
		if err := pool.QueryRow(ctx, `insert into documents (title, text) values ($1, $2) returning id`,
			fmt.Sprintf("doc %d", i), c.Text()).Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	mustRun(t, e, false) // full: its self join numbers the archive
	dict := e.related.dict
	if dict == nil || len(e.related.docs) != len(ids) {
		t.Fatal("no numbered vectors kept after a run")
	}
	checkHeldVectors(t, e, pool, "after the full run")
	for run := range 5 {
		// Each run changes another document, and one of those changed before.
		for _, id := range []int64{ids[3+run*7], ids[3+max(0, run-1)*7]} {
			if _, err := pool.Exec(ctx, `update documents set text = $2 where id = $1`, id, c.Text()); err != nil {
				t.Fatal(err)
			}
		}
		mustRun(t, e, false)
		checkRelated(t, pool, cfg, fmt.Sprintf("after incremental run %d", run))
		if e.related.dict != dict || len(e.related.docs) != len(ids) {
			t.Fatalf("run %d numbered the archive anew (or lost documents: %d of %d)", run, len(e.related.docs), len(ids))
		}
		checkHeldVectors(t, e, pool, fmt.Sprintf("after incremental run %d", run))
	}
}

// checkHeldVectors fails t unless the engine holds the committed vectors
// numbered only, their hashed form dropped (relatedState.shed), and
// rebuilds each of them bit for bit as related_vectors stores it.
func checkHeldVectors(t *testing.T, e *Engine, pool *pgxpool.Pool, when string) {
	t.Helper()
	st := e.related
	rows, err := pool.Query(context.Background(), `select doc_id, terms, weights, norm from related_vectors order by doc_id`)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	var want []related.Vector
	if err := scanVectors(rows, func(id int64, v related.Vector) { ids, want = append(ids, id), append(want, v) }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids, st.ids) {
		t.Fatalf("%s: the engine holds the vectors of %v, the table of %v", when, st.ids, ids)
	}
	for i := range ids {
		if st.vecs[i].Terms != nil || st.vecs[i].W != nil {
			t.Fatalf("%s: document %d's hashed vector is still held beside its numbered one", when, ids[i])
		}
		got := st.vector(i)
		if !slices.Equal(got.Terms, want[i].Terms) || !slices.Equal(got.W, want[i].W) || got.Norm != want[i].Norm {
			t.Fatalf("%s: document %d's vector rebuilt as %v, stored as %v", when, ids[i], got, want[i])
		}
	}
}

// TestRelated_MaxTermsChangeRebuilds: related.max_terms is one of the
// settings the results depend on, so the run after it changed is full and
// builds a new model with the new cut and every vector and list again; the
// incremental runs after it (changes, deletions, additions) keep the lists
// exact under that cut. The archive has the 100 documents from which the
// cut applies (relatedMaxTerms).
func TestRelated_MaxTermsChangeRebuilds(t *testing.T) {
	seed := enginetest.Seed(t)
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 1)
	cfg.Related.MaxTerms = 0
	c := enginetest.NewCorpus(seed)
	// Ten words of each document's own: terms in one document, which no
	// share cut removes, so that every vector is longer than the cut (the
	// corpus's words are shared widely, and seed 1795761596053626268 left
	// no vector of more than 6 terms without them).
	own := testtext.NewWordGen(seed)
	ctx := context.Background()
	var ids []int64
	for i := range 104 {
		var id int64
		text := c.Text() + "\n\n" + own.Words("own"+strconv.Itoa(i)+"x", 10)
		if err := pool.QueryRow(ctx, `insert into documents (title, text) values ($1, $2) returning id`,
			fmt.Sprintf("doc %d", i), text).Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	mustRun(t, NewEngine(cfg, pool, enginetest.Logger(t)), false)
	checkRelated(t, pool, cfg, "every term")
	longest := func() int {
		var n int
		if err := pool.QueryRow(ctx, `select max(length(terms) / 8) from related_vectors`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	const cut = 7
	if n := longest(); n <= cut {
		t.Fatalf("the longest vector has %d terms: the corpus must have more than %d for this test", n, cut)
	}
	var version int64
	pool.QueryRow(ctx, `select max(version) from related_models`).Scan(&version)

	cfg.Related.MaxTerms = cut
	e := NewEngine(cfg, pool, enginetest.Logger(t))
	if rep := mustRun(t, e, false); rep.Kind != "full" {
		t.Fatalf("the run after related.max_terms changed is %s (%s), want full", rep.Kind, rep.Reason)
	}
	var v2 int64
	var stored int
	pool.QueryRow(ctx, `select version, max_terms from related_models order by version desc limit 1`).Scan(&v2, &stored)
	if v2 == version || stored != cut {
		t.Fatalf("after related.max_terms changed: model %d (was %d) with max_terms %d, want a new model cut at %d", v2, version, stored, cut)
	}
	if n := longest(); n > cut {
		t.Fatalf("a vector of %d terms under max_terms %d", n, cut)
	}
	checkRelated(t, pool, cfg, "after the cut changed")
	for run := range 3 {
		for _, id := range ids[run*9 : run*9+5] {
			if _, err := pool.Exec(ctx, `update documents set text = $2 where id = $1`, id, c.Text()); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := pool.Exec(ctx, `delete from documents where id = $1`, ids[run*9+6]); err != nil {
			t.Fatal(err)
		}
		if _, err := pool.Exec(ctx, `insert into documents (title, text) values ('added', $1)`, c.Text()); err != nil {
			t.Fatal(err)
		}
		if rep := mustRun(t, e, false); rep.Kind != "incremental" {
			t.Fatalf("run %d is %s (%s), want incremental", run, rep.Kind, rep.Reason)
		}
		checkRelated(t, pool, cfg, fmt.Sprintf("incremental run %d under the cut", run))
	}
	var v3 int64
	pool.QueryRow(ctx, `select max(version) from related_models`).Scan(&v3)
	if v3 != v2 {
		t.Fatalf("incremental runs under an unchanged cut built model %d after %d", v3, v2)
	}
}

// TestRelated_HardDeleteIsHiddenThenTakenOut: a related list is one row
// (related_lists), its members neither foreign keys nor indexed (migration
// 0017), so a hard delete removes the document's own list and leaves its
// place in other lists to the next run. Until then no reader sees it (the
// view related, engine.Related); the next run takes it out of every list
// that held it, refilling or joining each again, so that every list is as
// an exact join has it: with the engine's lists in memory, and after a
// restart, when the engine reads the stored lists (with the deleted
// member) from the table.
func TestRelated_HardDeleteIsHiddenThenTakenOut(t *testing.T) {
	pool, cfg, e := relatedArchive(t, 24, 29)
	ctx := context.Background()
	// The lists as stored: members and cosines in their arrays' order.
	lists := func() map[int64][]relatedRow {
		out := map[int64][]relatedRow{}
		rows, err := pool.Query(ctx, `select doc_id, others, cosines from related_lists`)
		if err != nil {
			t.Fatal(err)
		}
		var d int64
		var others []int64
		var cosines []float32
		if _, err := pgx.ForEachRow(rows, []any{&d, &others, &cosines}, func() error {
			l := []relatedRow{}
			for i := range others {
				l = append(l, relatedRow{other: others[i], cosine: cosines[i]})
			}
			out[d] = l
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	// mostHeld is the document in the most stored lists.
	mostHeld := func(ls map[int64][]relatedRow) int64 {
		held := map[int64]int{}
		for _, l := range ls {
			for _, r := range l {
				held[r.other]++
			}
		}
		var most int64
		for id, n := range held {
			if n > held[most] || n == held[most] && id < most {
				most = id
			}
		}
		if held[most] < 2 {
			t.Fatalf("no document is in two related lists: %v", ls)
		}
		return most
	}
	for _, restart := range []bool{false, true} {
		when := "with the engine's lists in memory"
		if restart {
			when = "after a restart"
		}
		before := lists()
		gone := mostHeld(before)
		if _, err := pool.Exec(ctx, `delete from documents where id = $1`, gone); err != nil {
			t.Fatal(err)
		}
		after := lists()
		if _, ok := after[gone]; ok {
			t.Errorf("%s: the deleted document %d still has a list: %v", when, gone, after[gone])
		}
		delete(before, gone)
		if !reflect.DeepEqual(after, before) {
			t.Errorf("%s: the hard delete rewrote other lists:\n%v\n%v", when, before, after)
		}
		var shown int
		pool.QueryRow(ctx, `select count(*) from related where other_id = $1 or doc_id = $1`, gone).Scan(&shown)
		for id := range after {
			docs, err := Related(ctx, pool, id, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range docs {
				if d.ID == gone {
					shown++
				}
			}
		}
		if shown > 0 {
			t.Errorf("%s: readers still see the deleted document %d (%d times)", when, gone, shown)
		}
		if restart {
			e.Close()
			e = NewEngine(cfg, pool, enginetest.Logger(t))
			t.Cleanup(e.Close)
		}
		if rep := mustRun(t, e, false); rep.Kind != "incremental" || rep.Deleted != 1 {
			t.Fatalf("%s: the run after the delete is %s with %d deletes, want incremental with 1", when, rep.Kind, rep.Deleted)
		}
		checkRelated(t, pool, cfg, "after the hard delete, "+when)
		for id, l := range lists() {
			for _, r := range l {
				if r.other == gone {
					t.Fatalf("%s: the run left the deleted document %d in the list of %d: %v", when, gone, id, l)
				}
			}
		}
	}
}

// TestRelated_CommitFailsWhileTheJoinRuns: a run's related join (a full
// run's self join, an incremental run's lists) runs on while its commit
// writes the other tables (relatedPhase.Finish).
// When one of those writes fails, the run fails as a whole: nothing of it
// is committed, the join is stopped and waited for (it is held until it is
// cancelled: without the stop the run would never return), and the next
// run, whose commit waits for its held join, commits everything, exact.
func TestRelated_CommitFailsWhileTheJoinRuns(t *testing.T) {
	seed := enginetest.Seed(t)
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 2)
	e := NewEngine(cfg, pool, enginetest.Logger(t))
	m := &enginetest.Mutator{T: t, Pool: pool, C: enginetest.NewCorpus(seed), Rng: rand.New(rand.NewPCG(seed, 17))}
	for range 40 {
		m.Step()
	}
	ctx := context.Background()
	// The texts are written before the related update, which waits for
	// its join: a failure there comes while the join may still run.
	if _, err := pool.Exec(ctx, `
		create function plagd_test_fail() returns trigger language plpgsql as $$
		begin raise exception 'injected failure'; end $$;
		create trigger plagd_test_fail before insert on document_status for each statement execute function plagd_test_fail()`); err != nil {
		t.Fatal(err)
	}
	relatedJoinHold = make(chan struct{})
	t.Cleanup(func() { relatedJoinHold = nil })
	if _, err := e.Run(ctx, true); err == nil || !strings.Contains(err.Error(), "injected failure") {
		t.Fatalf("a run whose commit fails: error %v, want the injected failure", err)
	}
	var committed, models, lists int
	if err := pool.QueryRow(ctx, `select (select count(*) from runs where status = 'committed'),
		(select count(*) from related_models), (select count(*) from related_lists)`).Scan(&committed, &models, &lists); err != nil {
		t.Fatal(err)
	}
	if committed != 0 || models != 0 || lists != 0 {
		t.Fatalf("after a failed commit: %d committed runs, %d related models, %d related lists; want none", committed, models, lists)
	}
	mustExec(t, pool, `drop trigger plagd_test_fail on document_status`)
	runWithJoinHeld(t, e, true)
	checkRelated(t, pool, cfg, "after the full run that followed a failed commit")
	checkAgainstReference(t, pool, cfg, "after the full run that followed a failed commit")

	// An incremental run's lists are joined while its commit writes, too.
	for range 6 {
		m.Step()
	}
	before := storedRelatedLists(t, pool)
	mustExec(t, pool, `create trigger plagd_test_fail before insert on document_status
		for each statement execute function plagd_test_fail()`)
	relatedJoinHold = make(chan struct{})
	if _, err := e.Run(ctx, false); err == nil || !strings.Contains(err.Error(), "injected failure") {
		t.Fatalf("an incremental run whose commit fails: error %v, want the injected failure", err)
	}
	if err := pool.QueryRow(ctx, `select count(*) from runs where status = 'committed'`).Scan(&committed); err != nil {
		t.Fatal(err)
	}
	if after := storedRelatedLists(t, pool); committed != 1 || after != before {
		t.Fatalf("after a failed incremental commit: %d committed runs (want 1), related lists changed: %t", committed, after != before)
	}
	mustExec(t, pool, `drop trigger plagd_test_fail on document_status`)
	runWithJoinHeld(t, e, false)
	checkRelated(t, pool, cfg, "after the incremental run that followed a failed commit")
	checkAgainstReference(t, pool, cfg, "after the incremental run that followed a failed commit")
	for range 6 {
		m.Step()
	}
	mustRun(t, e, false)
	checkRelated(t, pool, cfg, "after an incremental run")
}

// runWithJoinHeld runs e with its related join held for a moment: the
// commit's other writes go first and the related update waits for the
// join (the rows do not depend on it).
func runWithJoinHeld(t *testing.T, e *Engine, full bool) {
	t.Helper()
	hold := make(chan struct{})
	relatedJoinHold = hold
	time.AfterFunc(300*time.Millisecond, func() { close(hold) })
	mustRun(t, e, full)
	relatedJoinHold = nil
}

// mustExec runs sql on pool or fails t.
func mustExec(t *testing.T, pool *pgxpool.Pool, sql string) {
	t.Helper()
	if _, err := pool.Exec(context.Background(), sql); err != nil {
		t.Fatal(err)
	}
}

// storedRelatedLists is the related_lists table as one string.
func storedRelatedLists(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	var s string
	if err := pool.QueryRow(context.Background(), `select coalesce(string_agg(format('%s:%s:%s', doc_id, others, cosines), ' ' order by doc_id), '')
		from related_lists`).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}
