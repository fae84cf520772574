package engine

import (
	"context"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plagd/plagd/archive"
	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/internal/testtext"
	"github.com/plagd/plagd/neardup"
	"github.com/plagd/plagd/store"
)

// checkSimhashes: after a committed run the simhashes a run wrote are
// exactly those of the indexed documents, each equal to the hash of its
// stored text under the newest model, as a recomputation from scratch gives.
func checkSimhashes(t testing.TB, pool *pgxpool.Pool, cfg config.Config, when string) {
	t.Helper()
	ctx := context.Background()
	m, err := loadNearModel(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	if m.Version == 0 {
		t.Fatalf("%s: no near-duplicate model after a committed run", when)
	}
	want := map[int64]uint64{}
	h := m.hasher(cfg.Params())
	rows, _ := pool.Query(ctx, `select t.doc_id, t.body from document_texts t join documents d on d.id = t.doc_id where d.deleted_at is null`)
	var id int64
	var body string
	if _, err := pgx.ForEachRow(rows, []any{&id, &body}, func() error {
		want[id], _ = h.hash(body)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	got := map[int64]uint64{}
	var hash, model int64
	rows, _ = pool.Query(ctx, `select doc_id, hash, model from simhashes where run_id is not null`)
	if _, err := pgx.ForEachRow(rows, []any{&id, &hash, &model}, func() error {
		if model != m.Version {
			t.Errorf("%s: document %d hashed with model %d, want %d", when, id, model, m.Version)
		}
		got[id] = uint64(hash)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for id, w := range want {
		if g, ok := got[id]; !ok {
			t.Errorf("%s: indexed document %d has no simhash", when, id)
		} else if g != w {
			t.Errorf("%s: document %d simhash %016x, recomputed %016x", when, id, g, w)
		}
	}
	for id := range got {
		if _, ok := want[id]; !ok {
			t.Errorf("%s: document %d has a simhash but is not indexed", when, id)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
}

// lightEdit replaces about frac of the words and adds a new title line:
// a resubmission. Whether it stays within h bits depends on the draw
// (simhash distance is random around 64*angle/pi), so tests compare what
// such copies get with a brute-force reference.
func lightEdit(r *rand.Rand, ws []string, frac float64) string {
	out := slices.Clone(ws)
	for i := range out {
		if r.Float64() < frac {
			out[i] = "x" + strconv.Itoa(r.IntN(100000))
		}
	}
	return "Seminar work, summer term\n" + strings.Join(out, " ")
}

func createText(t testing.TB, pool *pgxpool.Pool, ext, text string) int64 {
	t.Helper()
	id, err := store.CreateDocument(context.Background(), pool, store.DocumentInput{Header: archive.Header{ExternalID: ext, Title: ext}, Text: text})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func nearIDs(ds []NearDuplicate) []int64 {
	var ids []int64
	for _, d := range ds {
		ids = append(ids, d.ID)
	}
	return ids
}

// TestNearDups_UploadRunDelete follows one near-duplicate through its life:
// flagged at upload before any run, reported from stored hashes after the
// run, gone once the original is deleted and gone from the table after the
// next run.
func TestNearDups_UploadRunDelete(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(enginetest.Seed(t), 3))
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 2)
	nd := NewNearDups(pool, cfg)

	orig := enginetest.EssayWords(r, 600)
	a := createText(t, pool, "a", strings.Join(orig, " "))
	if got, err := nd.CheckAndRecord(ctx, a, strings.Join(orig, " ")); err != nil || len(got) != 0 {
		t.Fatalf("first upload: near-duplicates %v, %v; want none", got, err)
	}
	bText := enginetest.Reformat(orig)
	b := createText(t, pool, "b", bText)
	got, err := nd.CheckAndRecord(ctx, b, bText)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != a || got[0].Distance != 0 || !got[0].Pending || got[0].Title != "a" {
		t.Fatalf("re-upload before any run: near-duplicates %+v, want document %d (pending, 0 bits)", got, a)
	}
	// An edited copy is reported exactly when its hash is within h bits.
	m0, err := loadNearModel(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	hs := m0.hasher(cfg.Params())
	hashA, _ := hs.hash(strings.Join(orig, " "))
	for range 5 {
		edited := lightEdit(r, orig, 0.01)
		he, _ := hs.hash(edited)
		d := bits.OnesCount64(he ^ hashA)
		got, err := nd.Check(ctx, edited, 0)
		if err != nil {
			t.Fatal(err)
		}
		if found := len(got) == 2; found != (d <= cfg.NearDup.Distance) || found && got[0].Distance != d {
			t.Fatalf("edited copy %d bits from a: near-duplicates %+v", d, got)
		}
	}
	cText := strings.Join(enginetest.EssayWords(r, 600), " ")
	c := createText(t, pool, "c", cText)
	if got, err := nd.CheckAndRecord(ctx, c, cText); err != nil || len(got) != 0 {
		t.Fatalf("unrelated upload: near-duplicates %v, %v; want none", got, err)
	}
	// A text not stored (the "check a file" page) finds both copies (the
	// same words: dropping even one word may move the hash past h).
	if got, err := nd.Check(ctx, strings.ToUpper(enginetest.Reformat(orig)), 0); err != nil || !slices.Equal(nearIDs(got), []int64{a, b}) {
		t.Fatalf("check of another copy: %v, %v; want [%d %d]", nearIDs(got), err, a, b)
	}

	e := NewEngine(cfg, pool, enginetest.Logger(t))
	mustRun(t, e, false)
	checkSimhashes(t, pool, cfg, "after the first run")
	got, hashed, err := nd.Of(ctx, b)
	if err != nil || !hashed || !slices.Equal(nearIDs(got), []int64{a}) || got[0].Pending {
		t.Fatalf("after the run, near-duplicates of b: %+v, %v; want [%d], not pending", got, err, a)
	}
	if got, hashed, err := nd.Of(ctx, c); err != nil || !hashed || len(got) != 0 {
		t.Fatalf("after the run, near-duplicates of c: %v, %v; want none", got, err)
	}

	if err := store.DeleteDocument(ctx, pool, a); err != nil {
		t.Fatal(err)
	}
	if got, _, err := nd.Of(ctx, b); err != nil || len(got) != 0 {
		t.Fatalf("after deleting a: near-duplicates of b %v, %v; want none", nearIDs(got), err)
	}
	mustRun(t, e, false)
	checkSimhashes(t, pool, cfg, "after the deleting run")
	var n int
	if err := pool.QueryRow(ctx, `select count(*) from simhashes where doc_id = $1`, a).Scan(&n); err != nil || n != 0 {
		t.Fatalf("deleted document still has %d simhash rows (%v)", n, err)
	}
}

// TestNearDups_Clusters plants groups of near-duplicates (re-uploads at
// distance 0 and edited copies) among unrelated documents: plagd dups must
// find the connected components of the brute-force near-duplicate pairs of
// the stored hashes, with or without a lookup budget.
func TestNearDups_Clusters(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(enginetest.Seed(t), 5))
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 2)
	n := 0
	add := func(text string) int64 {
		n++
		return createText(t, pool, "d"+strconv.Itoa(n), text)
	}
	for g := range 4 {
		orig := enginetest.EssayWords(r, 800)
		add(strings.Join(orig, " "))
		add(enginetest.Reformat(orig))
		for range g % 3 {
			add(lightEdit(r, orig, 0.003))
		}
		for range 5 {
			add(strings.Join(enginetest.EssayWords(r, 800), " "))
		}
	}
	e := NewEngine(cfg, pool, enginetest.Logger(t))
	mustRun(t, e, false)
	// The first model had no committed similarities to learn from; a full
	// run rebuilds it from the archive's own near-duplicate pairs (the
	// re-uploads are 100 % similar both ways).
	mustRun(t, e, true)
	if m, err := loadNearModel(ctx, pool); err != nil || m.PairsReal < 4 {
		t.Fatalf("model after the full run: %d real pairs (%v), want at least the 4 re-uploads", m.PairsReal, err)
	}
	checkSimhashes(t, pool, cfg, "after the full run")

	// The reference: every pair within h, by brute force, grouped.
	rows, _ := pool.Query(ctx, `select doc_id, hash from simhashes order by doc_id`)
	type dh struct{ ID, Hash int64 }
	docs, err := pgx.CollectRows(rows, pgx.RowToStructByPos[dh])
	if err != nil {
		t.Fatal(err)
	}
	var pairs [][2]uint32
	for i := range docs {
		for j := i + 1; j < len(docs); j++ {
			if bits.OnesCount64(uint64(docs[i].Hash^docs[j].Hash)) <= cfg.NearDup.Distance {
				pairs = append(pairs, [2]uint32{uint32(i), uint32(j)})
			}
		}
	}
	var want [][]int64
	for _, c := range neardup.Components(len(docs), pairs) {
		var ids []int64
		for _, k := range c {
			ids = append(ids, docs[k].ID)
		}
		want = append(want, ids)
	}
	if len(want) < 4 {
		t.Fatalf("only %d clusters planted: %v", len(want), want)
	}
	for _, exact := range []bool{false, true} {
		rep, err := Clusters(ctx, pool, cfg, DupsOptions{Exact: exact})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Documents != n || rep.Pairs != len(pairs) {
			t.Fatalf("exact=%v: %d documents, %d pairs; want %d, %d", exact, rep.Documents, rep.Pairs, n, len(pairs))
		}
		var got [][]int64
		for _, c := range rep.Clusters {
			got = append(got, nearIDs(c.Documents))
		}
		if !slices.EqualFunc(got, want, slices.Equal[[]int64]) {
			t.Fatalf("exact=%v: clusters %v, want %v", exact, got, want)
		}
		big := 0
		for _, c := range want {
			if len(c) >= 3 {
				big++
			}
		}
		if rep, _ := Clusters(ctx, pool, cfg, DupsOptions{Exact: exact, MinSize: 3}); len(rep.Clusters) != big {
			t.Fatalf("exact=%v, min size 3: %d clusters, want %d", exact, len(rep.Clusters), big)
		}
	}
}

// TestNearDups_ModelRebuild: the model is rebuilt when the archive doubles,
// not on every run, and the rehash stays in step.
func TestNearDups_ModelRebuild(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(enginetest.Seed(t), 9))
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 1)
	e := NewEngine(cfg, pool, enginetest.Logger(t))
	n := 0
	add := func(k int) {
		for range k {
			n++
			createText(t, pool, "d"+strconv.Itoa(n), strings.Join(enginetest.EssayWords(r, 300), " "))
		}
	}
	version := func() int64 {
		v, err := nearModelVersion(ctx, pool)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	add(10)
	mustRun(t, e, false)
	v1 := version()
	add(5) // 15 < 2*10: the model stays
	mustRun(t, e, false)
	if v := version(); v != v1 {
		t.Fatalf("model rebuilt at 15 documents (version %d -> %d); want it kept until 20", v1, v)
	}
	checkSimhashes(t, pool, cfg, "15 documents")
	add(5) // 20: rebuilt
	mustRun(t, e, false)
	if v := version(); v == v1 {
		t.Fatal("model not rebuilt when the archive doubled")
	}
	checkSimhashes(t, pool, cfg, "20 documents")
	m, err := loadNearModel(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	if m.Docs != 20 || m.SampleDocs != 20 || len(m.Flip.Abs) == 0 || m.PairsSynth == 0 {
		t.Fatalf("model: docs %d, sample %d, %d flip quantiles, %d synthetic pairs", m.Docs, m.SampleDocs, len(m.Flip.Abs), m.PairsSynth)
	}
}

// TestNearDup_ModelOfAnEmptyArchive: a model built when the archive had no
// text (every document deleted) weighs words alike; documents indexed under
// it afterwards are hashed as the check (and the upload path) hash them.
// The run's workers once weighed them by the empty table instead.
func TestNearDup_ModelOfAnEmptyArchive(t *testing.T) {
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 2)
	e := NewEngine(cfg, pool, enginetest.Logger(t))
	id := insertDoc(t, pool, "gone", "a short text that will be deleted before the first run happens")
	pgtest.Exec(t, pool, `update documents set deleted_at = now() where id = $1`, id)
	mustRun(t, e, true)
	// One document: not enough to rebuild the model (the archive has not
	// doubled from max(0, 1)), so it is hashed under the empty one.
	insertDoc(t, pool, "one", testtext.NewWordGen(enginetest.Seed(t)).Words("w", 40))
	mustRun(t, e, false)
	checkSimhashes(t, pool, cfg, "after the first documents under an empty model")
}
