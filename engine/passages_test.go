package engine

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/internal/testtext"
	"github.com/plagd/plagd/invindex"
	"github.com/plagd/plagd/passage"
	"github.com/plagd/plagd/report"
	"github.com/plagd/plagd/store"
)

// passageCorpus is a small archive with known copies: the essay copies one
// passage of each source, the second of them inside quotation marks, and
// ends with a bibliography that lists the sources.
type passageCorpus struct {
	essay, src1, src2, other  string
	copied1, copied2, quoted2 string
}

func newPassageCorpus(seed uint64) passageCorpus {
	c := testtext.NewWordGen(seed)
	var pc passageCorpus
	s1, s2 := c.Words("s", 300), c.Words("t", 300)
	w1, w2 := strings.Fields(s1), strings.Fields(s2)
	pc.copied1 = strings.Join(w1[100:160], " ")
	pc.copied2 = strings.Join(w2[50:90], " ")
	pc.quoted2 = "“" + pc.copied2 + "”"
	pc.src1, pc.src2, pc.other = s1, s2, c.Words("o", 300)
	pc.essay = c.Words("e", 150) + "\n\n" + pc.copied1 + ".\n\n" + c.Words("e", 150) + " as the author wrote, " + pc.quoted2 +
		" and then " + c.Words("e", 200) + "\n\nReferences\n" + c.Words("e", 40) + "\n"
	return pc
}

func insertDoc(t testing.TB, pool *pgxpool.Pool, ext, text string) int64 {
	t.Helper()
	var id int64
	if err := pool.QueryRow(context.Background(), `insert into documents (external_id, title, text) values ($1, $1, $2) returning id`,
		ext, text).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

func findSource(rep report.Report, id int64) *report.SourceReport {
	for i := range rep.Sources {
		if rep.Sources[i].ID == id {
			return &rep.Sources[i]
		}
	}
	return nil
}

// checkPassage asserts that s has exactly one passage, cutting want out of
// the document and out of the source.
func checkPassage(t *testing.T, rep report.Report, s *report.SourceReport, want string) {
	t.Helper()
	if s == nil {
		t.Fatalf("source missing from the report")
	}
	if len(s.Passages) != 1 {
		t.Fatalf("source %d: %d passages, want 1: %+v", s.ID, len(s.Passages), s.Passages)
	}
	p := s.Passages[0]
	if a, b := rep.Text[p.AStart:p.AEnd], s.Text[p.BStart:p.BEnd]; a != want || b != want {
		t.Fatalf("source %d: passage\n doc %q\n src %q\nwant %q", s.ID, a, b, want)
	}
}

func TestPassages(t *testing.T) {
	seed := enginetest.Seed(t)
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 2)
	pc := newPassageCorpus(seed)
	essay := insertDoc(t, pool, "essay", pc.essay)
	src1 := insertDoc(t, pool, "src1", pc.src1)
	src2 := insertDoc(t, pool, "src2", pc.src2)
	insertDoc(t, pool, "other", pc.other)
	mustRun(t, NewEngine(cfg, pool, enginetest.Logger(t)), false)
	ctx := context.Background()

	// Nothing excluded: both copies count.
	rep, err := Passages(ctx, pool, cfg, essay, 0, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Sources) != 2 || rep.Doc != essay || rep.Chunks == 0 {
		t.Fatalf("report: doc %d, %d chunks, sources %+v; want the two sources", rep.Doc, rep.Chunks, rep.Sources)
	}
	s1, s2 := findSource(rep, src1), findSource(rep, src2)
	checkPassage(t, rep, s1, pc.copied1)
	checkPassage(t, rep, s2, pc.copied2)
	if s1.Similarity <= 0 || s1.Reverse <= 0 || s1.Shared == 0 {
		t.Fatalf("source 1 figures: %+v", s1)
	}
	cov := func(text string, parts ...string) float64 {
		var rs []passage.Range
		for _, p := range parts {
			i := strings.Index(text, p)
			rs = append(rs, passage.Range{Start: i, End: i + len(p)})
		}
		return passage.Coverage(text, rs, nil)
	}
	if want := cov(rep.Text, pc.copied1); !near(s1.CoverageA, want) {
		t.Errorf("coverage of the essay by source 1: %v, want %v", s1.CoverageA, want)
	}
	if want := cov(s1.Text, pc.copied1); !near(s1.CoverageB, want) {
		t.Errorf("coverage of source 1 by the essay: %v, want %v", s1.CoverageB, want)
	}
	if want := cov(rep.Text, pc.copied1, pc.copied2); !near(rep.Coverage, want) {
		t.Errorf("overall coverage %v, want %v", rep.Coverage, want)
	}

	// Quotations excluded: the quoted copy is no evidence and counts for nothing.
	rep, err = Passages(ctx, pool, cfg, essay, 0, report.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if s := findSource(rep, src2); s == nil || len(s.Passages) != 0 || s.CoverageA != 0 {
		t.Fatalf("quoted source with quotations excluded: %+v", s)
	}
	if len(rep.Excluded) < 2 {
		t.Fatalf("excluded ranges %v: want the quotation and the bibliography", rep.Excluded)
	}
	excluded := passage.ExcludedRanges(rep.Text, passage.AllExclusions())
	i := strings.Index(rep.Text, pc.copied1)
	want := passage.Coverage(rep.Text, []passage.Range{{Start: i, End: i + len(pc.copied1)}}, excluded)
	if !near(rep.Coverage, want) || rep.Coverage <= 0 {
		t.Errorf("overall coverage with exclusions %v, want %v", rep.Coverage, want)
	}

	// The top-1 source only.
	if rep, err = Passages(ctx, pool, cfg, essay, 1, report.Options{}); err != nil || len(rep.Sources) != 1 {
		t.Fatalf("one source: %v, %+v", err, rep.Sources)
	}
	// A document without stored text.
	pending := insertDoc(t, pool, "pending", pc.other)
	if _, err := Passages(ctx, pool, cfg, pending, 0, report.Options{}); err == nil || !strings.Contains(err.Error(), "no stored text") {
		t.Fatalf("pending document: %v", err)
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// TestCheckText checks a text that is not in the archive from a fresh
// engine, as plagd check does: it loads the saved index, finds the sources
// with exact passages, and stores nothing.
func TestCheckText(t *testing.T) {
	seed := enginetest.Seed(t)
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 2)
	ctx := context.Background()
	pc := newPassageCorpus(seed)

	if _, err := NewEngine(cfg, pool, enginetest.Logger(t)).CheckText(ctx, pc.essay, 0, report.Options{}); !errors.Is(err, ErrNoIndex) {
		t.Fatalf("before any run: %v, want ErrNoIndex", err)
	}
	src1 := insertDoc(t, pool, "src1", pc.src1)
	src2 := insertDoc(t, pool, "src2", pc.src2)
	insertDoc(t, pool, "other", pc.other)
	mustRun(t, NewEngine(cfg, pool, enginetest.Logger(t)), false)

	before := tableCounts(t, pool)
	e := NewEngine(cfg, pool, enginetest.Logger(t)) // a new process: the index comes from the data dir
	rep, err := e.CheckText(ctx, pc.essay, 0, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Doc != 0 || len(rep.Sources) != 2 || rep.Sources[0].ID != src1 {
		t.Fatalf("sources %+v: want src1 (the longer copy) first, then src2", rep.Sources)
	}
	checkPassage(t, rep, findSource(rep, src1), pc.copied1)
	checkPassage(t, rep, findSource(rep, src2), pc.copied2)
	for _, s := range rep.Sources {
		if s.Similarity != float64(s.Shared)/float64(rep.Chunks) || s.Reverse <= 0 || s.ExternalID == "" {
			t.Fatalf("source figures %+v (query chunks %d)", s, rep.Chunks)
		}
	}
	if after := tableCounts(t, pool); after != before {
		t.Fatalf("check stored something: %s before, %s after", before, after)
	}

	// Defaults exclude the quotation: src2 has no passage left.
	rep, err = e.CheckText(ctx, pc.essay, 1, report.DefaultOptions())
	if err != nil || len(rep.Sources) != 1 || len(rep.Sources[0].Passages) != 1 {
		t.Fatalf("top 1 with exclusions: %v %+v", err, rep.Sources)
	}
}

func tableCounts(t *testing.T, pool *pgxpool.Pool) string {
	var docs, sims, runs, texts int
	if err := pool.QueryRow(context.Background(), `select (select count(*) from documents), (select count(*) from similarities),
		(select count(*) from runs), (select count(*) from document_texts)`).Scan(&docs, &sims, &runs, &texts); err != nil {
		t.Fatal(err)
	}
	return strconv.Itoa(docs) + "/" + strconv.Itoa(sims) + "/" + strconv.Itoa(runs) + "/" + strconv.Itoa(texts)
}

// TestEngine_QueryEqualsRun: querying an indexed document's own text finds
// the document itself with all its chunks, and every other document with
// exactly the shared count its similarity rows say, for any node count and
// after incremental runs (tombstones and deltas).
func TestEngine_QueryEqualsRun(t *testing.T) {
	for _, k := range []int{1, 3} {
		t.Run("nodes="+strconv.Itoa(k), func(t *testing.T) {
			seed := enginetest.Seed(t)
			url := pgtest.NewDB(t)
			pool := pgtest.Pool(t, url)
			cfg := enginetest.Config(t, url, k)
			cfg.Engine.TopK = 100
			e := NewEngine(cfg, pool, enginetest.Logger(t))
			m := &enginetest.Mutator{T: t, Pool: pool, C: enginetest.NewCorpus(seed), Rng: rand.New(rand.NewPCG(seed, 11))}
			for i := 0; i < 20; i++ {
				m.Step()
			}
			mustRun(t, e, false)
			for i := 0; i < 6; i++ {
				m.Step()
			}
			mustRun(t, e, false)
			ctx := context.Background()
			rows, err := pool.Query(ctx, `select t.doc_id, t.body from document_texts t order by t.doc_id`)
			if err != nil {
				t.Fatal(err)
			}
			texts := map[int64]string{}
			for rows.Next() {
				var id int64
				var body string
				rows.Scan(&id, &body)
				texts[id] = body
			}
			rows.Close()
			for _, fresh := range []bool{false, true} {
				q := e
				if fresh {
					q = NewEngine(cfg, pool, enginetest.Logger(t))
				}
				// A query is chunked as the committed index was: with a
				// second chunk kind in an archive this small.
				p, err := q.queryParams(ctx)
				if err != nil || p.ExtraWindowWords != 3 {
					t.Fatalf("fresh=%v: query parameters %+v (%v), want 3-word extra windows", fresh, p, err)
				}
				tok := invindex.NewTokenizer(p)
				for id, body := range texts {
					_, chunks, checks := tok.DocChunks(body)
					got, err := q.Query(ctx, chunks, checks, 1000)
					if err != nil {
						t.Fatal(err)
					}
					sims, err := store.Similar(ctx, pool, id)
					if err != nil {
						t.Fatal(err)
					}
					want := map[int64]int{id: len(chunks)}
					for _, s := range sims {
						want[s.OtherID] = s.Shared
					}
					gotM := map[int64]int{}
					for _, g := range got {
						gotM[g.ID] = g.Shared
					}
					for other, n := range want {
						if gotM[other] != n {
							t.Fatalf("fresh=%v doc %d: query shares %d with %d, run says %d (query %v)", fresh, id, gotM[other], other, n, got)
						}
					}
					if len(gotM) != len(want) {
						t.Fatalf("fresh=%v doc %d: query found %v, run %v", fresh, id, gotM, want)
					}
				}
			}
		})
	}
}

// TestCheckText_SuppressesTemplates: with a df cap, a template paragraph
// that many documents share gives neither similarity nor passages.
func TestCheckText_SuppressesTemplates(t *testing.T) {
	seed := enginetest.Seed(t)
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 2)
	cfg.Engine.DFCap = 2
	c := testtext.NewWordGen(seed)
	template := c.Words("t", 40)
	for i := 0; i < 4; i++ {
		insertDoc(t, pool, "tpl-"+strconv.Itoa(i), c.Words("d"+strconv.Itoa(i), 100)+"\n\n"+template+"\n\n"+c.Words("d"+strconv.Itoa(i), 100))
	}
	src := c.Words("s", 200)
	srcID := insertDoc(t, pool, "src", src)
	mustRun(t, NewEngine(cfg, pool, enginetest.Logger(t)), false)
	copied := strings.Join(strings.Fields(src)[20:80], " ")
	rep, err := NewEngine(cfg, pool, enginetest.Logger(t)).CheckText(context.Background(), template+"\n\n"+c.Words("e", 50)+"\n\n"+copied, 0, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Sources) != 1 || rep.Sources[0].ID != srcID {
		t.Fatalf("sources %+v: want only the real source", rep.Sources)
	}
	checkPassage(t, rep, &rep.Sources[0], copied)
}

// TestPassages_HeadersAndFilter: the report carries the headers of the
// document and of its sources, restricted flags included, and filtering the
// raw report gives what Passages gives with the same exclusions, without
// aligning again; CheckText's raw report filters the same way.
func TestPassages_HeadersAndFilter(t *testing.T) {
	seed := enginetest.Seed(t)
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 1)
	pc := newPassageCorpus(seed)
	ctx := context.Background()
	essay := insertDoc(t, pool, "essay", pc.essay)
	src1 := insertDoc(t, pool, "src1", pc.src1)
	src2 := insertDoc(t, pool, "src2", pc.src2)
	if _, err := pool.Exec(ctx, `update documents set author = 'A. Student', kind = 'essay', year = 2024, title = 'My essay' where id = $1`, essay); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `update documents set author = 'B. Scholar', kind = 'thesis', year = 2019, restricted = true where id = $1`, src1); err != nil {
		t.Fatal(err)
	}
	e := NewEngine(cfg, pool, enginetest.Logger(t))
	mustRun(t, e, false)

	raw, err := Passages(ctx, pool, cfg, essay, 0, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if raw.Title != "My essay" || raw.Author != "A. Student" || raw.Kind != "essay" || raw.Year != 2024 || raw.Restricted || raw.ExternalID != "essay" {
		t.Fatalf("document header %+v", raw)
	}
	s1, s2 := findSource(raw, src1), findSource(raw, src2)
	if s1 == nil || s2 == nil || s1.Author != "B. Scholar" || s1.Kind != "thesis" || s1.Year != 2019 || !s1.Restricted || s2.Restricted || s1.ExternalID != "src1" {
		t.Fatalf("source headers %+v / %+v", s1, s2)
	}
	for _, ex := range []passage.Exclusions{{}, passage.AllExclusions(), {Quotes: true}, {Bibliography: true}} {
		want, err := Passages(ctx, pool, cfg, essay, 0, report.Options{Exclusions: ex})
		if err != nil {
			t.Fatal(err)
		}
		sameReport(t, "Passages filtered afterwards", raw.Filter(report.Filter{Exclusions: ex}), want)
	}
	// Leaving out source 1 leaves source 2's copy, quoted: nothing with quotes excluded.
	f := raw.Filter(report.Filter{ExcludeSources: []int64{src1}, Exclusions: passage.AllExclusions()})
	if len(f.Sources) != 1 || f.Sources[0].ID != src2 || f.Coverage != 0 {
		t.Fatalf("source 1 excluded, quotes excluded: coverage %v, sources %+v", f.Coverage, f.Sources)
	}
	if _, err := Passages(ctx, pool, cfg, insertDoc(t, pool, "new", pc.other), 0, report.Options{}); !errors.Is(err, report.ErrNoText) {
		t.Fatalf("pending document: %v, want report.ErrNoText", err)
	}

	rawCheck, err := e.CheckText(ctx, pc.essay, 0, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s := findSource(rawCheck, src1); s == nil || !s.Restricted || s.Author != "B. Scholar" || s.Year != 2019 {
		t.Fatalf("check source header %+v", s)
	}
	want, err := e.CheckText(ctx, pc.essay, 0, report.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	sameReport(t, "CheckText filtered afterwards", rawCheck.Filter(report.Filter{Exclusions: passage.AllExclusions()}), want)
}

// sameReport fails the test unless got and want agree in every exported
// field, of the report and of each source (the text information reports
// keep for filtering is left out); no sources and an empty list agree.
func sameReport(t *testing.T, what string, got, want report.Report) {
	t.Helper()
	if g, w := visible(got), visible(want); !reflect.DeepEqual(g, w) {
		t.Fatalf("%s:\n got %+v\nwant %+v", what, g, w)
	}
}

// visible is r with its exported fields only.
func visible(r report.Report) report.Report {
	out := exportedFields(r)
	out.Sources = nil
	for _, s := range r.Sources {
		out.Sources = append(out.Sources, exportedFields(s))
	}
	return out
}

// exportedFields is the struct v with its unexported fields zero.
func exportedFields[T any](v T) T {
	var out T
	src, dst := reflect.ValueOf(v), reflect.ValueOf(&out).Elem()
	for i := range src.NumField() {
		if src.Type().Field(i).IsExported() {
			dst.Field(i).Set(src.Field(i))
		}
	}
	return out
}

// TestCommonText_Auto: under the automatic df cap (10 in an archive this
// small) a paragraph that 12 documents share is common text: the engine
// that ran and a fresh one (another process, which reads the cap back
// from the committed run) agree on it and on how many documents hold it,
// and a report lists it without a passage from it.
func TestCommonText_Auto(t *testing.T) {
	seed := enginetest.Seed(t)
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 2)
	cfg.Engine.DFCap = 0
	c := testtext.NewWordGen(seed)
	shared := c.Words("t", 40)
	var ids []int64
	for i := range 12 {
		ids = append(ids, insertDoc(t, pool, "tpl-"+strconv.Itoa(i), shared+"\n\n"+c.Words("d"+strconv.Itoa(i), 150)))
	}
	e := NewEngine(cfg, pool, enginetest.Logger(t))
	mustRun(t, e, false)
	if e.DFCap() != 10 {
		t.Fatalf("auto df cap %d for 12 documents, want 10", e.DFCap())
	}
	checkAgainstReference(t, pool, cfg, "after the run")
	ctx := context.Background()
	tok := invindex.NewTokenizer(cfg.Params())
	key := tok.WindowKeys(tok.Words(shared, nil), nil)[3]
	for name, eng := range map[string]*Engine{"running": e, "fresh": NewEngine(cfg, pool, enginetest.Logger(t))} {
		ct, err := eng.CommonText(ctx)
		if err != nil || ct == nil {
			t.Fatalf("%s engine: common text %v, %v", name, ct, err)
		}
		if df, exact := ct.DF(key); ct.Cap() != 10 || df != 12 || !exact || !ct.Suppress(key) {
			t.Fatalf("%s engine: cap %d, df %d (exact %v) of a shared window: want 10 and exactly 12", name, ct.Cap(), df, exact)
		}
		var opt report.Options
		ct.Apply(&opt)
		rep, err := Passages(ctx, pool, cfg, ids[0], 0, opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Common) != 1 || rep.Common[0].Docs != 12 || rep.Common[0].Start != 0 {
			t.Fatalf("%s engine: common ranges %+v, want the shared paragraph, in 12 documents", name, rep.Common)
		}
		if len(rep.Sources) != 0 {
			t.Fatalf("%s engine: sources %+v for a document that shares only common text", name, rep.Sources)
		}
	}
}

// TestPassages_RewordedCopy: an essay that rewords a source sentence by
// sentence, keeping one short verbatim phrase (so that the source is on
// its similarity list), shows the reworded copy as a passage with the
// default report.sentence_dice, and nothing with it at 0 (windows only:
// the phrase alone is too short for a passage).
func TestPassages_RewordedCopy(t *testing.T) {
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 2)
	source := "The ancient harbour town traded salt, timber and wool with merchants from distant northern ports. " +
		"Heavy storms flooded the lower harbour every winter and destroyed many wooden warehouses near the quay. " +
		"The council therefore built a stone breakwater, financed by a special tax on imported wine barrels. " +
		"Within ten years the breakwater doubled the number of ships that could anchor safely during storms. " +
		"Prosperous merchants then erected grand stone houses along the quay, many of which still stand today."
	reworded := "This old harbour settlement sold salt plus timber, also wool, to traders who came from far northern cities. " +
		"Every winter violent storms drowned its low harbour, wrecking numerous warehouses built of wood by the quay. " +
		"So the town leaders raised one breakwater from stone, paid through a special tax on imported wine barrels. " +
		"A decade later this breakwater had twice as many ships able to anchor without danger whenever storms came. " +
		"Wealthy merchants afterwards put up splendid stone houses beside the quay; several remain standing now."
	own := "Our study begins elsewhere, with questions of method, archives, and the reading of tax rolls, " +
		"which occupy the first chapter at some length before anything else is said about towns or trade."
	essay := insertDoc(t, pool, "essay", own+"\n\n"+reworded+"\n\n"+own)
	insertDoc(t, pool, "source", source)
	mustRun(t, NewEngine(cfg, pool, enginetest.Logger(t)), false)
	ctx := context.Background()

	rep, err := Passages(ctx, pool, cfg, essay, 0, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Sources) != 1 || len(rep.Sources[0].Passages) != 1 {
		t.Fatalf("with sentence seeds: sources %+v, want one source with one passage", rep.Sources)
	}
	p := rep.Sources[0].Passages[0]
	start := strings.Index(rep.Text, reworded)
	if p.AStart < start || p.AEnd > start+len(reworded) || p.AEnd-p.AStart < len(reworded)*3/4 {
		t.Errorf("passage %q, want most of the reworded copy and nothing else", rep.Text[p.AStart:p.AEnd])
	}

	cfg.Report.SentenceDice = 0
	if rep, err = Passages(ctx, pool, cfg, essay, 0, report.Options{}); err != nil {
		t.Fatal(err)
	}
	if len(rep.Sources) != 1 || len(rep.Sources[0].Passages) != 0 {
		t.Fatalf("report.sentence_dice 0: sources %+v, want the source without passages", rep.Sources)
	}
}

// TestReportSentenceDice_Default: without a configuration file the
// engine's reports align at the report package's default Dice.
func TestReportSentenceDice_Default(t *testing.T) {
	if got := reportAlign(config.Default(), passage.Options{}).SentenceDice; got != report.DefaultSentenceDice {
		t.Fatalf("the engine's reports align at Dice %g by default, want %g", got, report.DefaultSentenceDice)
	}
}
