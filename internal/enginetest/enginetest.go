package enginetest

import (
	"cmp"
	"context"
	"fmt"
	"html"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/cluster/clustertest"
	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/disguise"
	"github.com/plagd/plagd/extract"
	"github.com/plagd/plagd/internal/testseed"
	"github.com/plagd/plagd/invindex"
	"github.com/plagd/plagd/store"
	"github.com/rs/zerolog"
)

// SimRow is one similarities row as the tests compare it.
type SimRow struct {
	Doc, Other int64
	Shared     int
}

// Reference computes what the similarities table must hold, the slow
// obvious way: the current text of every live document, extracted as the
// engine extracts it, handed to clustertest.Reference (every document's
// chunk set as a map, every pair compared, df cap and min_shared applied,
// each list sorted and cut), with the chunks of the registered templates
// that apply to a document left out of its set.
func Reference(t testing.TB, pool *pgxpool.Pool, cfg config.Config) []SimRow {
	t.Helper()
	ctx := context.Background()
	rows, err := pool.Query(ctx, `select id, content, filename, content_type, text from documents where deleted_at is null`)
	if err != nil {
		t.Fatal(err)
	}
	live := map[int64]string{}
	n := 0 // live documents, failed ones too: what the engine's auto limits count
	for rows.Next() {
		n++
		var id int64
		var content []byte
		var fn, ct, tx *string
		if err := rows.Scan(&id, &content, &fn, &ct, &tx); err != nil {
			t.Fatal(err)
		}
		var text string
		if content != nil {
			text, err = extract.Text(content, store.Deref(fn), store.Deref(ct), extract.Options{})
		} else if tx != nil {
			text, err = extract.Text([]byte(*tx), "", "text/plain; charset=utf-8", extract.Options{})
		}
		if err == nil && text != "" {
			live[id] = text
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	minShared := cfg.Engine.MinShared
	if minShared <= 0 {
		minShared = config.AutoMinShared(n)
	}
	p := cluster.Plan{Params: cfg.Engine.ParamsFor(n), DFCap: cfg.Engine.DFCapFor(n), MinShared: minShared, TopK: cfg.Engine.TopK}
	skip := templateSkip(t, pool, p.Params)
	var out []SimRow
	for _, r := range clustertest.ReferenceSkip(live, p, skip) {
		out = append(out, SimRow{r.Doc, r.Other, int(r.Shared)})
	}
	return out
}

// templateSkip is the chunk filter of the registered templates, the plain
// way: a document skips the chunks (ID and fingerprint) of every template
// registered for its kind or for all kinds.
func templateSkip(t testing.TB, pool *pgxpool.Pool, params invindex.Params) func(doc int64, chunk uint32, check uint8) bool {
	t.Helper()
	ctx := context.Background()
	ts, err := store.ListTemplates(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) == 0 {
		return nil
	}
	kinds := map[int64]string{}
	rows, err := pool.Query(ctx, `select id, coalesce(kind, '') from documents`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var kind string
		if err := rows.Scan(&id, &kind); err != nil {
			t.Fatal(err)
		}
		kinds[id] = kind
	}
	rows.Close()
	tok := invindex.NewTokenizer(params)
	type key struct {
		chunk uint32
		check uint8
	}
	sets := map[string]map[key]bool{} // kind ("" for every kind) → chunks
	for _, tpl := range ts {
		if sets[tpl.Kind] == nil {
			sets[tpl.Kind] = map[key]bool{}
		}
		_, chunks, checks := tok.DocChunks(tpl.Body)
		for i, c := range chunks {
			sets[tpl.Kind][key{c, checks[i]}] = true
		}
	}
	return func(doc int64, chunk uint32, check uint8) bool {
		k := key{chunk, check}
		return sets[""][k] || kinds[doc] != "" && sets[kinds[doc]][k]
	}
}

func SortRows(rows []SimRow) {
	slices.SortFunc(rows, func(x, y SimRow) int {
		if c := cmp.Compare(x.Doc, y.Doc); c != 0 {
			return c
		}
		return cmp.Compare(x.Other, y.Other)
	})
}

// Stored reads the table, checking that each similarity equals
// shared / chunks(doc) as document_status records it.
func Stored(t testing.TB, pool *pgxpool.Pool) []SimRow {
	t.Helper()
	rows, err := pool.Query(context.Background(), `
		select s.doc_id, s.other_id, s.shared_chunks, s.similarity, st.chunks
		from similarities s join document_status st on st.doc_id = s.doc_id order by 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []SimRow
	for rows.Next() {
		var r SimRow
		var sim float64
		var chunks int
		if err := rows.Scan(&r.Doc, &r.Other, &r.Shared, &sim, &chunks); err != nil {
			t.Fatal(err)
		}
		if want := float64(r.Shared) / float64(chunks); sim != want {
			t.Fatalf("row %d→%d: similarity %v, want shared/chunks = %d/%d", r.Doc, r.Other, sim, r.Shared, chunks)
		}
		out = append(out, r)
	}
	var n int
	if err := pool.QueryRow(context.Background(), `select count(*) from similarities`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != len(out) {
		t.Fatalf("%d similarity rows belong to documents without status", n-len(out))
	}
	return out
}

// DiffRows describes the first differences between two sorted row lists.
func DiffRows(got, want []SimRow) string {
	gs, ws := map[SimRow]bool{}, map[SimRow]bool{}
	for _, r := range got {
		gs[r] = true
	}
	for _, r := range want {
		ws[r] = true
	}
	var b strings.Builder
	n := 0
	for _, r := range got {
		if !ws[r] && n < 10 {
			fmt.Fprintf(&b, "  extra   %+v\n", r)
			n++
		}
	}
	for _, r := range want {
		if !gs[r] && n < 20 {
			fmt.Fprintf(&b, "  missing %+v\n", r)
			n++
		}
	}
	return b.String()
}

// Corpus generates texts over a small vocabulary with passages copied between
// documents, so that pairs share many chunks and top-k lists fill up.
type Corpus struct {
	rng   *rand.Rand
	vocab []string
	texts []string // every text generated so far, to copy from
	// templates are boilerplate paragraphs (WithTemplates); each text opens
	// with one of them with probability templateP.
	templates []string
	templateP float64
	// disguiseP is the probability that a text is disguised (WithDisguise).
	disguiseP float64
}

// WithDisguise disguises a text with probability p the ways package
// disguise flags: zero-width spaces or soft hyphens inside words, a bidi
// override around a word, Cyrillic look-alikes in a word, a letter-spaced
// word. The run stores the flags with the text; the reference computes
// them from the same text.
func (c *Corpus) WithDisguise(p float64) *Corpus {
	c.disguiseP = p
	return c
}

// File returns a new document as a file: a text file, or, with
// WithDisguise, sometimes an HTML page that hides words between its
// paragraphs (hidden elements, white text), which extraction leaves out
// and flags as hidden text.
func (c *Corpus) File() (ext string, content []byte) {
	t := c.Text()
	if c.disguiseP == 0 || c.rng.Float64() >= c.disguiseP {
		return ".txt", []byte(t)
	}
	var b strings.Builder
	b.WriteString("<html><body>")
	for i, p := range strings.Split(t, "\n") {
		if i > 0 && c.rng.IntN(2) == 0 {
			b.WriteString(`<p hidden>` + c.Words(5) + `</p><p style="color:#fff">` + c.Words(3) + `</p>`)
		}
		b.WriteString("<p>" + html.EscapeString(p) + "</p>")
	}
	b.WriteString("</body></html>")
	return ".html", []byte(b.String())
}

// disguise applies one to three of the tricks to random words of t.
func (c *Corpus) disguise(t string) string {
	ws := strings.Split(t, " ")
	for n := 1 + c.rng.IntN(3); n > 0; n-- {
		i := c.rng.IntN(len(ws))
		r := []rune(ws[i])
		if len(r) < 2 {
			continue
		}
		mid := 1 + c.rng.IntN(len(r)-1)
		switch c.rng.IntN(5) {
		case 0:
			ws[i] = string(r[:mid]) + "\u200b" + string(r[mid:])
		case 1:
			ws[i] = string(r[:mid]) + "\u00ad" + string(r[mid:])
		case 2:
			ws[i] = "\u202e" + ws[i] + "\u202c"
		case 3:
			ws[i] = strings.NewReplacer("a", "\u0430", "e", "\u0435", "o", "\u043e", "p", "\u0440").Replace(ws[i])
		default:
			ws[i] = strings.Join(strings.Split(ws[i], ""), " ")
		}
	}
	return strings.Join(ws, " ")
}

// WithTemplates makes the corpus's texts open, with probability p, with one
// of n fixed paragraphs of 40 words: the declarations and assignment
// prompts real archives share across many documents, whose chunks have a
// high document frequency.
func (c *Corpus) WithTemplates(n int, p float64) *Corpus {
	for range n {
		c.templates = append(c.templates, c.Words(40))
	}
	c.templateP = p
	return c
}

// Templates are the paragraphs WithTemplates made.
func (c *Corpus) Templates() []string { return c.templates }

func NewCorpus(seed uint64) *Corpus {
	c := &Corpus{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	syll := []string{"ka", "lo", "mi", "ne", "ra", "tu", "vo", "še", "ží", "pe", "dó", "ch", "an", "el", "is"}
	for len(c.vocab) < 400 {
		w := ""
		for n := 1 + c.rng.IntN(3); n > 0; n-- {
			w += syll[c.rng.IntN(len(syll))]
		}
		c.vocab = append(c.vocab, w)
	}
	return c
}

func (c *Corpus) Words(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		// Zipf-like: low indexes are far more frequent.
		w := c.vocab[int(float64(len(c.vocab))*c.rng.Float64()*c.rng.Float64()*c.rng.Float64())]
		if c.rng.IntN(12) == 0 {
			r := []rune(w)
			w = strings.ToUpper(string(r[:1])) + string(r[1:])
		}
		b.WriteString(w)
		if c.rng.IntN(10) == 0 {
			b.WriteString(".")
		}
	}
	return b.String()
}

// text returns a new document: own words with passages copied from earlier texts.
func (c *Corpus) Text() string {
	var parts []string
	if len(c.templates) > 0 && c.rng.Float64() < c.templateP {
		parts = append(parts, c.templates[c.rng.IntN(len(c.templates))])
	}
	for n := 1 + c.rng.IntN(4); n > 0; n-- {
		parts = append(parts, c.Words(10+c.rng.IntN(60)))
		if len(c.texts) > 0 && c.rng.IntN(3) > 0 {
			src := strings.Fields(c.texts[c.rng.IntN(len(c.texts))])
			i := c.rng.IntN(len(src))
			j := min(len(src), i+8+c.rng.IntN(40))
			parts = append(parts, strings.Join(src[i:j], " "))
		}
	}
	t := strings.Join(parts, "\n")
	if c.disguiseP > 0 && c.rng.Float64() < c.disguiseP {
		t = c.disguise(t)
	}
	c.texts = append(c.texts, t)
	return t
}

// Seed returns the seed of a randomised test, printed so that a failure
// can be replayed with PLAGD_TEST_SEED.
func Seed(t testing.TB) uint64 { t.Helper(); return testseed.Seed(t) }

// Config is a configuration that exercises the hard cases on small data:
// top-k lists of 4 fill up and lose members, related lists of 3 with a
// margin of 2 run out of it, and two shared chunks make a pair.
func Config(t testing.TB, url string, nodes int) config.Config {
	cfg := config.Default()
	cfg.DatabaseURL = url
	cfg.DataDir = t.TempDir()
	cfg.Engine.Nodes = nodes
	cfg.Engine.TopK = 4
	cfg.Engine.MinShared = 2
	cfg.Engine.BatchSize = 7
	cfg.Engine.ChunkBits = 24 // collisions happen at this width on purpose: they must not break exactness
	cfg.Related.K = 3         // lists fill up and lose members on small data
	cfg.Related.Margin = 2    // and their margins run out now and then
	cfg.Related.Method = "exact"
	return cfg
}

func Logger(t testing.TB) zerolog.Logger {
	if testing.Verbose() {
		return zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.InfoLevel)
	}
	return zerolog.Nop()
}

// authors are the few authors the Mutator's documents have ("" none), so
// that two documents by one author share text now and then.
var authors = []string{"", "Jana Novakova", "Petr Svoboda"}

// Mutator applies random document changes the way integrators make them.
type Mutator struct {
	T    testing.TB
	Pool *pgxpool.Pool
	C    *Corpus
	Rng  *rand.Rand
	n    int
}

func (m *Mutator) IDs(where string) []int64 {
	ids, err := collectIDs(m.Pool, `select id from documents where `+where+` order by id`)
	if err != nil {
		m.T.Fatal(err)
	}
	return ids
}

func (m *Mutator) Pick(where string) (int64, bool) {
	ids := m.IDs(where)
	if len(ids) == 0 {
		return 0, false
	}
	return ids[m.Rng.IntN(len(ids))], true
}

// add inserts a document: a change every run must see.
func (m *Mutator) Add() {
	m.n++
	if _, err := m.Pool.Exec(context.Background(), `insert into documents (external_id, text) values ($1, $2)`,
		"add-"+strconv.Itoa(m.n), m.C.Text()); err != nil {
		m.T.Fatal(err)
	}
}

// step makes one random change.
func (m *Mutator) Step() {
	ctx := context.Background()
	m.n++
	var err error
	switch op := m.Rng.IntN(10); {
	case op < 4: // add, as text or as a file
		if m.Rng.IntN(2) == 0 {
			_, err = m.Pool.Exec(ctx, `insert into documents (external_id, title, author, text) values ($1, $1, nullif($2, ''), $3)`,
				"doc-"+strconv.Itoa(m.n), authors[m.Rng.IntN(len(authors))], m.C.Text())
		} else {
			ext, content := m.C.File()
			_, err = m.Pool.Exec(ctx, `insert into documents (external_id, filename, content) values ($1, $1 || $2, $3)`,
				"file-"+strconv.Itoa(m.n), ext, content)
		}
	case op < 6: // modify
		if id, ok := m.Pick("deleted_at is null"); ok {
			_, err = m.Pool.Exec(ctx, `update documents set text = $2, content = null where id = $1`, id, m.C.Text())
		}
	case op < 7: // soft delete
		if id, ok := m.Pick("deleted_at is null"); ok {
			_, err = m.Pool.Exec(ctx, `update documents set deleted_at = now() where id = $1`, id)
		}
	case op < 8: // undelete
		if id, ok := m.Pick("deleted_at is not null"); ok {
			_, err = m.Pool.Exec(ctx, `update documents set deleted_at = null where id = $1`, id)
		}
	case op < 9: // hard delete
		if id, ok := m.Pick("true"); ok {
			_, err = m.Pool.Exec(ctx, `delete from documents where id = $1`, id)
		}
	default: // a document that cannot be indexed, or a metadata-only change
		if m.Rng.IntN(2) == 0 {
			_, err = m.Pool.Exec(ctx, `insert into documents (external_id, text) values ($1, 'too short')`, "short-"+strconv.Itoa(m.n))
		} else if id, ok := m.Pick("true"); ok {
			// A title, an author or an external id: the last two decide
			// whether a source is an earlier version (report.IsVersion).
			switch m.Rng.IntN(3) {
			case 0:
				_, err = m.Pool.Exec(ctx, `update documents set title = 'renamed' where id = $1`, id)
			case 1:
				_, err = m.Pool.Exec(ctx, `update documents set author = $2 where id = $1`, id, authors[m.Rng.IntN(len(authors))])
			default:
				_, err = m.Pool.Exec(ctx, `update documents set external_id = external_id || '-v2' where id = $1`, id)
			}
		}
	}
	if err != nil {
		m.T.Fatal(err)
	}
}

// CheckSimilarityKeys: a full run drops the keys of similarities while it
// writes; they must all be back.
func CheckSimilarityKeys(t testing.TB, pool *pgxpool.Pool) {
	t.Helper()
	var n int
	err := pool.QueryRow(context.Background(), `
		select (select count(*) from pg_constraint where conrelid = 'similarities'::regclass
		        and conname in ('similarities_pkey', 'similarities_doc_fk', 'similarities_other_fk'))
		     + (select count(*) from pg_indexes where tablename = 'similarities' and indexname = 'similarities_other')`).Scan(&n)
	if err != nil || n != 4 {
		t.Fatalf("similarities has %d of its 4 keys and indexes after a full run (%v)", n, err)
	}
}

// EssayWords makes a text of n words from a vocabulary big enough that two
// unrelated texts share little (a simhash needs many distinct features).
func EssayWords(r *rand.Rand, n int) []string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = "w" + strconv.Itoa(int(3000*r.Float64()*r.Float64()))
	}
	return ws
}

// Reformat is the same words with other capitals and line breaks: a
// re-upload, at distance 0.
func Reformat(ws []string) string {
	var b strings.Builder
	for i, w := range ws {
		if i%17 == 0 {
			b.WriteString("\n\n" + strings.ToUpper(w))
		} else {
			b.WriteString(" " + w)
		}
	}
	return b.String()
}

// collectIDs runs a query of one bigint column.
func collectIDs(pool *pgxpool.Pool, sql string) ([]int64, error) {
	rows, err := pool.Query(context.Background(), sql)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}

// MustRun runs run (an engine's Run) and fails the test on an error.
func MustRun[R any](t testing.TB, run func(context.Context, bool) (R, error), full bool) R {
	t.Helper()
	rep, err := run(context.Background(), full)
	if err != nil {
		t.Fatalf("run (full=%v): %v", full, err)
	}
	return rep
}

// CheckSimilarities fails the test unless the similarities table equals the
// reference, row for row.
func CheckSimilarities(t testing.TB, pool *pgxpool.Pool, cfg config.Config, when string) []SimRow {
	t.Helper()
	got, want := Stored(t, pool), Reference(t, pool, cfg)
	if d := DiffRows(got, want); d != "" {
		t.Fatalf("%s: similarities differ from the reference (%d rows stored, %d expected):\n%s", when, len(got), len(want), d)
	}
	return got
}

// PutFile writes content to path, making its folders: a file for ingest.
func PutFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// CheckFlags fails the test unless document_texts holds, for every live
// document the run indexed, the text the engine's extraction makes of its
// current bytes and the flags disguise.Of makes of that text and of what
// extraction found hidden in the file; no document
// that failed, was deleted or is gone keeps a row. It returns the stored
// flags by document, as JSON, for comparing runs.
func CheckFlags(t testing.TB, pool *pgxpool.Pool, when string) map[int64]string {
	t.Helper()
	ctx := context.Background()
	rows, err := pool.Query(ctx, `
		select d.id, d.content, d.filename, d.content_type, d.text, d.deleted_at is not null, s.status, x.body, x.flags
		from documents d left join document_status s on s.doc_id = d.id left join document_texts x on x.doc_id = d.id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[int64]string{}
	for rows.Next() {
		var (
			id             int64
			content, flags []byte
			fn, ct, tx     *string
			deleted        bool
			status, body   *string
		)
		if err := rows.Scan(&id, &content, &fn, &ct, &tx, &deleted, &status, &body, &flags); err != nil {
			t.Fatal(err)
		}
		if body == nil {
			if flags != nil {
				t.Fatalf("%s: document %d has flags without a text", when, id)
			}
			if !deleted && store.Deref(status) == "indexed" {
				t.Fatalf("%s: document %d is indexed without a stored text", when, id)
			}
			continue
		}
		if deleted || store.Deref(status) != "indexed" {
			t.Fatalf("%s: document %d (deleted %v, status %q) keeps its text", when, id, deleted, store.Deref(status))
		}
		var read extract.Result
		if content != nil {
			read, err = extract.Read(ctx, content, store.Deref(fn), store.Deref(ct), extract.Options{})
		} else {
			read, err = extract.Read(ctx, []byte(store.Deref(tx)), "", "text/plain; charset=utf-8", extract.Options{})
		}
		text := read.Text
		if err != nil || text != *body {
			t.Fatalf("%s: document %d: stored text is not what its bytes give now (%v)", when, id, err)
		}
		got, err := store.ParseFlags(flags)
		if err != nil {
			t.Fatal(err)
		}
		if want := disguise.Of(read.Flags, text); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: document %d: stored flags %+v, want %+v", when, id, got, want)
		}
		out[id] = string(flags)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
