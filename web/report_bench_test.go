package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/plagd/plagd/auth"
	"github.com/plagd/plagd/engine"
)

// BenchmarkReportPage measures what a teacher waits for: the report page of
// an essay of 3,000 words whose similarity list holds 100 sources of 3,000
// words (every fourth shares four passages with it), served over HTTP from
// a real PostgreSQL. "cold" aligns the essay with all sources (the report
// cache is emptied each time); "filter" is the same page with a filter
// changed (quotes=0, partial=1), answered from the aligned report the
// first request cached.
//
//	go test ./web -run '^$' -bench ReportPage -benchtime 20x
func BenchmarkReportPage(b *testing.B) {
	st := newSite(b)
	rng := rand.New(rand.NewPCG(7, 9))
	vocab := make([]string, 5000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%dx%d", i, rng.IntN(1000))
	}
	words := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = vocab[rng.IntN(len(vocab))]
		}
		return out
	}
	essay := words(3000)
	ctx := context.Background()
	for i := 0; i < 100; i++ {
		src := words(3000)
		for k := 0; k < 4; k++ { // every source shares one passage at least; every fourth, four
			if k > 0 && i%4 != 0 {
				break
			}
			n := 40 + rng.IntN(81)
			from, at := rng.IntN(len(essay)-n), rng.IntN(len(src)-n)
			copy(src[at:at+n], essay[from:from+n])
		}
		if _, err := st.pool.Exec(ctx, `insert into documents (external_id, title, text) values ($1, $2, $3)`,
			fmt.Sprintf("src-%d", i), fmt.Sprintf("Source %d", i), strings.Join(src, " ")); err != nil {
			b.Fatal(err)
		}
	}
	var id int64
	if err := st.pool.QueryRow(ctx, `insert into documents (external_id, title, text) values ('essay', 'Essay', $1) returning id`,
		strings.Join(essay, " ")).Scan(&id); err != nil {
		b.Fatal(err)
	}
	if _, err := engine.NewEngine(st.cfg, st.pool, zerolog.Nop()).Run(ctx, false); err != nil {
		b.Fatal(err)
	}
	if _, err := auth.NewStore(st.pool).AddUser(ctx, "teach", auth.RoleTeacher, "teacher password 1"); err != nil {
		b.Fatal(err)
	}
	br := st.browser()
	if p := br.signIn("teach", "teacher password 1"); p.status != http.StatusSeeOther {
		b.Fatalf("sign-in: %d", p.status)
	}
	path := fmt.Sprintf("/documents/%d", id)
	if p := br.get(path); p.status != 200 || !strings.Contains(p.body, "Source 0") {
		b.Fatalf("report: %d", p.status)
	}
	b.Run("cold", func(b *testing.B) {
		var size int
		for b.Loop() {
			st.srv.reports = newReportCache(64)
			p := br.get(path)
			if p.status != 200 {
				b.Fatal(p.status)
			}
			size = len(p.body)
		}
		b.ReportMetric(float64(size), "html-bytes")
		b.ReportMetric(float64(gzipSize(br.get(path).body)), "gzip-bytes")
	})
	b.Run("filter", func(b *testing.B) {
		br.get(path)
		var size int
		for b.Loop() {
			p := br.get(path + "?quotes=0&partial=1")
			if p.status != 200 {
				b.Fatal(p.status)
			}
			size = len(p.body)
		}
		b.ReportMetric(float64(size), "html-bytes")
	})
}

// gzipSize is what the page weighs on the wire (the server gzips it).
func gzipSize(body string) int {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(body))
	zw.Close()
	return buf.Len()
}
