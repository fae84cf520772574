package daemon

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/cluster/clustertest"
	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/extract"
)

// simRow is one similarities row as the tests compare it.
type simRow struct {
	Doc, Other int64
	Shared     int
}

// referenceSimilarities computes what the similarities table must hold, the
// slow obvious way: the current text of every live document, extracted as
// the daemon extracts it, handed to clustertest.Reference (every document's
// chunk set as a map, every pair compared, df cap and min_shared applied,
// each list sorted and cut).
func referenceSimilarities(t testing.TB, pool *pgxpool.Pool, cfg config.Config) []simRow {
	t.Helper()
	ctx := context.Background()
	rows, err := pool.Query(ctx, `select id, content, filename, content_type, text from documents where deleted_at is null`)
	if err != nil {
		t.Fatal(err)
	}
	live := map[int64]string{}
	for rows.Next() {
		var id int64
		var content []byte
		var fn, ct, tx *string
		if err := rows.Scan(&id, &content, &fn, &ct, &tx); err != nil {
			t.Fatal(err)
		}
		var text string
		if content != nil {
			text, err = extract.Text(content, deref(fn), deref(ct), extract.Options{})
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
	p := cluster.Plan{Params: cfg.Params(), DFCap: cfg.Engine.DFCap, MinShared: cfg.Engine.MinShared, TopK: cfg.Engine.TopK}
	var out []simRow
	for _, r := range clustertest.Reference(live, p) {
		out = append(out, simRow{r.Doc, r.Other, int(r.Shared)})
	}
	return out
}

// storedSimilarities reads the table, checking that each similarity equals
// shared / chunks(doc) as document_status records it.
func storedSimilarities(t testing.TB, pool *pgxpool.Pool) []simRow {
	t.Helper()
	rows, err := pool.Query(context.Background(), `
		select s.doc_id, s.other_id, s.shared_chunks, s.similarity, st.chunks
		from similarities s join document_status st on st.doc_id = s.doc_id order by 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []simRow
	for rows.Next() {
		var r simRow
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

// diffRows describes the first differences between two sorted row lists.
func diffRows(got, want []simRow) string {
	gs, ws := map[simRow]bool{}, map[simRow]bool{}
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

// corpus generates texts over a small vocabulary with passages copied between
// documents, so that pairs share many chunks and top-k lists fill up.
type corpus struct {
	rng   *rand.Rand
	vocab []string
	texts []string // every text generated so far, to copy from
}

func newCorpus(seed uint64) *corpus {
	c := &corpus{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
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

func (c *corpus) words(n int) string {
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
func (c *corpus) text() string {
	var parts []string
	for n := 1 + c.rng.IntN(4); n > 0; n-- {
		parts = append(parts, c.words(10+c.rng.IntN(60)))
		if len(c.texts) > 0 && c.rng.IntN(3) > 0 {
			src := strings.Fields(c.texts[c.rng.IntN(len(c.texts))])
			i := c.rng.IntN(len(src))
			j := min(len(src), i+8+c.rng.IntN(40))
			parts = append(parts, strings.Join(src[i:j], " "))
		}
	}
	t := strings.Join(parts, "\n")
	c.texts = append(c.texts, t)
	return t
}
