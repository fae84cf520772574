package daemon

import (
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/plagd/plagd/internal/pgtest"
)

// TestDaemon_Pages renders every page against a database with runs, indexed,
// failed and pending documents, and checks what a reader must see on each.
func TestDaemon_Pages(t *testing.T) {
	seed := testSeed(t)
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := testConfig(t, url, 2)
	m := &mutator{t: t, pool: pool, c: newCorpus(seed), rng: rand.New(rand.NewPCG(seed, 5))}
	for i := 0; i < 15; i++ {
		m.step()
	}
	src := m.c.text() + " " + m.c.words(80)
	pgtest.Exec(t, pool, `insert into documents (external_id, title, text) values ('src', 'Source thesis', $1), ('copy', 'Copied essay', $2)`,
		src, m.c.words(40)+" "+src)
	pgtest.Exec(t, pool, `insert into documents (external_id, title, filename, content) values ('bad', 'Broken upload', 'bad.txt', decode('000102030405060708ff00fe0000', 'hex'))`)
	d := NewDaemon(cfg, pool, testLogger(t))
	t.Cleanup(d.engine.WaitSaved) // the daemon saves the index in the background, into t's temp dir
	mustRun(t, d.engine, false)
	pgtest.Exec(t, pool, `insert into documents (external_id, title, text) values ('later', 'Waiting essay', 'not yet processed by any run at all')`)
	var docID int64
	if err := pool.QueryRow(t.Context(), `select doc_id from similarities order by shared_chunks desc limit 1`).Scan(&docID); err != nil {
		t.Fatalf("no similarities to show: %v", err)
	}
	var kind string
	if err := pool.QueryRow(t.Context(), `select s.error_kind from document_status s join documents d on d.id = s.doc_id
		where d.external_id = 'bad'`).Scan(&kind); err != nil || kind != "binary" {
		t.Fatalf("error_kind of the binary upload: %q, %v; want binary", kind, err)
	}
	srv := httptest.NewServer(d.routes())
	defer srv.Close()
	get := func(path string, status int, want ...string) {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != status {
			t.Fatalf("GET %s: status %d, want %d\n%s", path, resp.StatusCode, status, body)
		}
		for _, w := range want {
			if !strings.Contains(string(body), w) {
				t.Errorf("GET %s: page lacks %q", path, w)
			}
		}
	}
	get("/", 200, "Overview", "Failed documents", "binary data", "committed")
	get("/runs", 200, "full", "committed")
	get("/documents", 200, "Waiting essay", "pending", "Broken upload", "failed")
	get("/documents?status=failed", 200, "Broken upload")
	get("/documents?q=Waiting", 200, "Waiting essay")
	get("/documents/"+itoa(docID), 200, "Similar documents", "This → other")
	get("/documents/999999", 404)
	get("/documents/abc", 404)
	get("/healthz", 200, "ok")
	get("/metrics", 200, "plagd_runs_total")
	get("/static/style.css", 200, "--accent")
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
