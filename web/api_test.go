package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/plagd/plagd/auth"
	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/store"
)

// apiEnv is the server over a fresh, migrated database, called the way an
// integration or the upload page's script calls it.
type apiEnv struct {
	t      *testing.T
	pool   *pgxpool.Pool
	cfg    config.Config
	srv    *Server
	base   string
	runner *fakeRunner // nil: the server has no daemon
	users  *auth.Store
	client *http.Client
}

// fakeRunner stands in for the daemon's run loop; the database is real.
type fakeRunner struct {
	mu       sync.Mutex
	requests int
	running  bool
	prompt   time.Time
}

func (f *fakeRunner) Running() bool        { f.mu.Lock(); defer f.mu.Unlock(); return f.running }
func (f *fakeRunner) NextRun() time.Time   { return time.Date(2031, 5, 6, 7, 8, 0, 0, time.UTC) }
func (f *fakeRunner) PromptRun() time.Time { f.mu.Lock(); defer f.mu.Unlock(); return f.prompt }
func (f *fakeRunner) RequestRun()          { f.mu.Lock(); f.requests++; f.mu.Unlock() }
func (f *fakeRunner) calls() int           { f.mu.Lock(); defer f.mu.Unlock(); return f.requests }

// newAPIEnv starts a server; tweak adjusts the configuration first.
func newAPIEnv(t *testing.T, withRunner bool, tweak func(*config.Config)) *apiEnv {
	t.Helper()
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := config.Default()
	cfg.DatabaseURL, cfg.DataDir, cfg.Engine.Nodes = url, t.TempDir(), 1
	cfg.Engine.MinShared = 2
	if tweak != nil {
		tweak(&cfg)
	}
	e := &apiEnv{t: t, pool: pool, cfg: cfg, users: auth.NewStore(pool),
		client: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	opt := Options{Config: cfg, DB: store.NewDB(pool), Log: zerolog.Nop()}
	if withRunner {
		e.runner = &fakeRunner{}
		opt.Runner = e.runner
	}
	var err error
	if e.srv, err = New(opt); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(e.srv.Handler())
	t.Cleanup(hs.Close)
	e.base = hs.URL
	return e
}

// user adds a user and returns an API token of theirs.
func (e *apiEnv) user(name string, role auth.Role) string {
	e.t.Helper()
	ctx := context.Background()
	if _, err := e.users.AddUser(ctx, name, role, "a long password "+name); err != nil {
		e.t.Fatal(err)
	}
	tok, _, err := e.users.CreateToken(ctx, name, "test", 0)
	if err != nil {
		e.t.Fatal(err)
	}
	return tok
}

// session signs name in as a browser would and returns the cookie value
// and the session's CSRF token.
func (e *apiEnv) session(name string) (cookie, csrf string) {
	e.t.Helper()
	ctx := context.Background()
	u, err := e.users.User(ctx, name)
	if err != nil {
		e.t.Fatal(err)
	}
	tok, sess, err := e.users.StartSession(ctx, u.ID, time.Hour, "127.0.0.1", "test")
	if err != nil {
		e.t.Fatal(err)
	}
	return tok, sess.CSRF
}

// Request options.
type reqOpt func(*http.Request)

func bearer(tok string) reqOpt {
	return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+tok) }
}

func withSession(cookie, csrf string) reqOpt {
	return func(r *http.Request) {
		r.AddCookie(&http.Cookie{Name: sessionCookie, Value: cookie})
		if csrf != "" {
			r.Header.Set("X-CSRF-Token", csrf)
		}
	}
}

// body sets a request body of a content type.
func body(contentType string, b []byte) reqOpt {
	return func(r *http.Request) {
		r.Header.Set("Content-Type", contentType)
		r.Body = io.NopCloser(bytes.NewReader(b))
		r.ContentLength = int64(len(b))
	}
}

func jsonBody(v any) reqOpt {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return body("application/json", b)
}

// formFile is a multipart form with one file (none when filename is "").
func formFile(fields map[string]string, filename, contentType string, content []byte) reqOpt {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	if filename != "" {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, filename))
		if contentType != "" {
			h.Set("Content-Type", contentType)
		}
		w, _ := mw.CreatePart(h)
		w.Write(content)
	}
	mw.Close()
	return body(mw.FormDataContentType(), buf.Bytes())
}

type apiResp struct {
	status int
	header http.Header
	body   []byte
}

func (e *apiEnv) do(method, path string, opts ...reqOpt) apiResp {
	e.t.Helper()
	req, err := http.NewRequest(method, e.base+path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, o := range opts {
		o(req)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return apiResp{resp.StatusCode, resp.Header, b}
}

// must checks the status and decodes the JSON body.
func (r apiResp) must(t *testing.T, status int) map[string]any {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %.2000s", r.status, status, r.body)
	}
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("not JSON (%v): %.2000s", err, r.body)
	}
	return m
}

// mustErr checks an error response: status, code and a message.
func (r apiResp) mustErr(t *testing.T, status int, code string) string {
	t.Helper()
	m := r.must(t, status)
	e, _ := m["error"].(map[string]any)
	if e == nil || e["code"] != code {
		t.Fatalf("error code %v, want %q: %s", e["code"], code, r.body)
	}
	msg, _ := e["message"].(string)
	if len(msg) < 10 {
		t.Fatalf("error message %q does not help anyone", msg)
	}
	return msg
}

// doc is the "document" of a response.
func doc(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	d, ok := m["document"].(map[string]any)
	if !ok {
		t.Fatalf("no document in %v", m)
	}
	return d
}

func docID(t *testing.T, m map[string]any) int64 {
	t.Helper()
	return int64(doc(t, m)["id"].(float64))
}

// runEngine performs one real run, as the daemon would.
func (e *apiEnv) runEngine() {
	e.t.Helper()
	if _, err := engine.NewEngine(e.cfg, e.pool, zerolog.Nop()).Run(context.Background(), false); err != nil {
		e.t.Fatalf("run: %v", err)
	}
}

func (e *apiEnv) changes(id int64) int {
	e.t.Helper()
	var n int
	if err := e.pool.QueryRow(context.Background(), `select count(*) from plagd_changes where doc_id = $1`, id).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// words makes n pseudo-random words, distinct per seed, so that texts share
// exactly the chunks a test gives them.
func words(seed uint64, n int) string {
	rng := rand.New(rand.NewPCG(seed, 7))
	syll := []string{"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "do", "gu"}
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for range 2 + rng.IntN(3) {
			b.WriteString(syll[rng.IntN(len(syll))])
		}
		out[i] = b.String()
	}
	return strings.Join(out, " ") + "."
}

func TestAPI_CreateListGet(t *testing.T) {
	e := newAPIEnv(t, true, nil)
	staff := e.user("sam", auth.RoleStaff)
	teacher := e.user("tea", auth.RoleTeacher)
	admin := e.user("ada", auth.RoleAdmin)

	shared := words(1, 150)
	// multipart upload with metadata; the title defaults to the file name
	r := e.do("POST", "/api/v1/documents", bearer(staff), formFile(map[string]string{
		"author": "Jana Nováková", "kind": "essay", "year": "2024", "external_id": "E-1"},
		"Essay One.txt", "", []byte(words(2, 100)+"\n\n"+shared)))
	m := r.must(t, http.StatusCreated)
	d := doc(t, m)
	id1 := docID(t, m)
	if d["title"] != "Essay One" || d["author"] != "Jana Nováková" || d["kind"] != "essay" || d["year"] != 2024.0 ||
		d["external_id"] != "E-1" || d["filename"] != "Essay One.txt" || d["content_type"] != "text/plain" ||
		d["status"] != "pending" || d["restricted"] != false {
		t.Errorf("created document: %v", d)
	}
	if _, ok := m["warning"]; ok {
		t.Errorf("a readable file has a warning: %v", m)
	}
	if loc := r.header.Get("Location"); loc != fmt.Sprintf("/api/v1/documents/%d", id1) {
		t.Errorf("Location %q", loc)
	}

	// JSON text, restricted
	m = e.do("POST", "/api/v1/documents", bearer(staff), jsonBody(map[string]any{
		"external_id": "E-2", "title": "Second thesis", "author": "Petr", "kind": "thesis", "year": 2023,
		"text": words(3, 100) + "\n\n" + shared, "restricted": true})).must(t, http.StatusCreated)
	id2 := docID(t, m)
	if d := doc(t, m); d["restricted"] != true || d["title"] != "Second thesis" {
		t.Errorf("JSON document: %v", d)
	}
	m = e.do("POST", "/api/v1/documents", bearer(staff), jsonBody(map[string]any{
		"title": "Third", "text": words(4, 80) + "\n\n" + shared})).must(t, http.StatusCreated)
	id3 := docID(t, m)

	// refusals
	msg := e.do("POST", "/api/v1/documents", bearer(staff), jsonBody(map[string]any{"external_id": "E-1", "text": "some text here"})).
		mustErr(t, http.StatusConflict, "conflict")
	if !strings.Contains(msg, "E-1") {
		t.Errorf("conflict message does not name the id: %s", msg)
	}
	e.do("POST", "/api/v1/documents", bearer(staff), jsonBody(map[string]any{"title": "x", "text": "  \n"})).mustErr(t, 400, "bad_request")
	e.do("POST", "/api/v1/documents", bearer(staff), formFile(nil, "empty.pdf", "application/pdf", nil)).mustErr(t, 400, "bad_request")
	e.do("POST", "/api/v1/documents", bearer(staff), formFile(map[string]string{"title": "no file"}, "", "", nil)).mustErr(t, 400, "bad_request")
	e.do("POST", "/api/v1/documents", bearer(staff), formFile(map[string]string{"year": "last year"}, "a.txt", "", []byte("text"))).mustErr(t, 400, "bad_request")
	e.do("POST", "/api/v1/documents", bearer(staff), jsonBody(map[string]any{"text": "abc", "titel": "typo"})).mustErr(t, 400, "bad_request")
	e.do("POST", "/api/v1/documents", bearer(staff), body("application/json", []byte(`{"text": "abc"`))).mustErr(t, 400, "bad_request")
	e.do("POST", "/api/v1/documents", bearer(staff), body("text/plain", []byte("just text"))).mustErr(t, http.StatusUnsupportedMediaType, "unsupported_media_type")
	e.do("POST", "/api/v1/documents", bearer(teacher), jsonBody(map[string]any{"text": "abc"})).mustErr(t, 403, "forbidden")

	// list, search, status, pagination
	m = e.do("GET", "/api/v1/documents", bearer(teacher)).must(t, 200)
	if docs := m["documents"].([]any); len(docs) != 3 || m["next_offset"] != nil || m["limit"] != 50.0 {
		t.Errorf("list: %v", m)
	}
	m = e.do("GET", "/api/v1/documents?q=second", bearer(teacher)).must(t, 200)
	if docs := m["documents"].([]any); len(docs) != 1 || docs[0].(map[string]any)["id"] != float64(id2) {
		t.Errorf("search: %v", m)
	}
	m = e.do("GET", "/api/v1/documents?q=e-1", bearer(teacher)).must(t, 200)
	if docs := m["documents"].([]any); len(docs) != 1 || docs[0].(map[string]any)["id"] != float64(id1) {
		t.Errorf("search by external id: %v", m)
	}
	m = e.do("GET", "/api/v1/documents?limit=2", bearer(teacher)).must(t, 200)
	if docs := m["documents"].([]any); len(docs) != 2 || m["next_offset"] != 2.0 || docs[0].(map[string]any)["id"] != float64(id3) {
		t.Errorf("first page: %v", m)
	}
	m = e.do("GET", "/api/v1/documents?limit=2&offset=2", bearer(teacher)).must(t, 200)
	if docs := m["documents"].([]any); len(docs) != 1 || m["next_offset"] != nil || docs[0].(map[string]any)["id"] != float64(id1) {
		t.Errorf("last page: %v", m)
	}
	m = e.do("GET", "/api/v1/documents?status=pending", bearer(teacher)).must(t, 200)
	if docs := m["documents"].([]any); len(docs) != 3 {
		t.Errorf("pending: %v", m)
	}
	for _, q := range []string{"limit=0", "limit=501", "limit=many", "offset=-1", "offset=x", "status=lost"} {
		e.do("GET", "/api/v1/documents?"+q, bearer(teacher)).mustErr(t, 400, "bad_request")
	}

	// get, without and with text
	m = e.do("GET", fmt.Sprintf("/api/v1/documents/%d", id1), bearer(teacher)).must(t, 200)
	if _, ok := m["text"]; ok || doc(t, m)["id"] != float64(id1) {
		t.Errorf("get: %v", m)
	}
	e.do("GET", "/api/v1/documents/abc", bearer(teacher)).mustErr(t, 404, "not_found")
	e.do("GET", "/api/v1/documents/99999", bearer(teacher)).mustErr(t, 404, "not_found")
	e.do("GET", fmt.Sprintf("/api/v1/documents/%d?text=1", id1), bearer(teacher)).mustErr(t, 404, "no_text")
	e.do("GET", fmt.Sprintf("/api/v1/documents/%d?text=maybe", id1), bearer(teacher)).mustErr(t, 400, "bad_request")

	e.runEngine()
	m = e.do("GET", fmt.Sprintf("/api/v1/documents/%d?text=1", id1), bearer(teacher)).must(t, 200)
	if text, _ := m["text"].(string); !strings.Contains(text, strings.TrimSuffix(shared, ".")) || doc(t, m)["status"] != "indexed" {
		t.Errorf("text of an indexed document: %v", m)
	}
	// a restricted document's text: admins only; everyone sees it exists
	for _, tok := range []string{teacher, staff} {
		msg := e.do("GET", fmt.Sprintf("/api/v1/documents/%d?text=1", id2), bearer(tok)).mustErr(t, 403, "forbidden")
		if !strings.Contains(msg, "restricted") {
			t.Errorf("refusal does not say why: %s", msg)
		}
		e.do("GET", fmt.Sprintf("/api/v1/documents/%d", id2), bearer(tok)).must(t, 200)
	}
	m = e.do("GET", fmt.Sprintf("/api/v1/documents/%d?text=true", id2), bearer(admin)).must(t, 200)
	if text, _ := m["text"].(string); !strings.Contains(text, strings.TrimSuffix(shared, ".")) {
		t.Errorf("admin does not get the restricted text: %v", m)
	}

	// similar, with pagination
	m = e.do("GET", fmt.Sprintf("/api/v1/documents/%d/similar", id1), bearer(teacher)).must(t, 200)
	sim := m["similar"].([]any)
	if m["document_id"] != float64(id1) || len(sim) != 2 || m["next_offset"] != nil {
		t.Fatalf("similar: %v", m)
	}
	first := sim[0].(map[string]any)
	if first["similarity"].(float64) <= 0 || first["shared_chunks"].(float64) <= 0 {
		t.Errorf("similar row: %v", first)
	}
	m = e.do("GET", fmt.Sprintf("/api/v1/documents/%d/similar?limit=1", id1), bearer(teacher)).must(t, 200)
	if s := m["similar"].([]any); len(s) != 1 || m["next_offset"] != 1.0 || s[0].(map[string]any)["other_id"] != first["other_id"] {
		t.Errorf("similar page 1: %v", m)
	}
	m = e.do("GET", fmt.Sprintf("/api/v1/documents/%d/similar?limit=1&offset=1", id1), bearer(teacher)).must(t, 200)
	if s := m["similar"].([]any); len(s) != 1 || m["next_offset"] != nil || s[0].(map[string]any)["other_id"] == first["other_id"] {
		t.Errorf("similar page 2: %v", m)
	}
	m = e.do("GET", fmt.Sprintf("/api/v1/documents/%d/similar?offset=10", id1), bearer(teacher)).must(t, 200)
	if s := m["similar"].([]any); len(s) != 0 || m["next_offset"] != nil {
		t.Errorf("similar past the end: %v", m)
	}
	for _, q := range []string{"/similar?offset=9223372036854775807", "/similar?offset=9223372036854775807&limit=500"} {
		m = e.do("GET", fmt.Sprintf("/api/v1/documents/%d%s", id1, q), bearer(teacher)).must(t, 200)
		if s := m["similar"].([]any); len(s) != 0 || m["next_offset"] != nil {
			t.Errorf("similar at the largest offset: %v", m)
		}
	}
	e.do("GET", "/api/v1/documents?offset=9223372036854775807", bearer(teacher)).must(t, 200)
	e.do("GET", "/api/v1/runs?offset=9223372036854775807", bearer(teacher)).must(t, 200)
	e.do("GET", "/api/v1/documents/99999/similar", bearer(teacher)).mustErr(t, 404, "not_found")
	e.do("GET", "/api/v1/documents/x1/similar", bearer(teacher)).mustErr(t, 404, "not_found")
}

func TestAPI_UpdateDeleteUndelete(t *testing.T) {
	e := newAPIEnv(t, true, nil)
	staff := e.user("sam", auth.RoleStaff)
	m := e.do("POST", "/api/v1/documents", bearer(staff), formFile(map[string]string{"external_id": "U-1", "author": "A"},
		"first.txt", "text/plain", []byte(words(10, 120)))).must(t, http.StatusCreated)
	id := docID(t, m)
	e.do("POST", "/api/v1/documents", bearer(staff), jsonBody(map[string]any{"external_id": "U-2", "text": words(11, 50)})).must(t, http.StatusCreated)
	e.runEngine()
	if n := e.changes(id); n != 0 {
		t.Fatalf("%d change-log entries after the run", n)
	}
	path := fmt.Sprintf("/api/v1/documents/%d", id)

	// metadata only: no change-log entry, absent fields stay, null clears
	m = e.do("PUT", path, bearer(staff), jsonBody(map[string]any{"title": "Renamed", "author": nil, "year": 2021, "restricted": true})).must(t, 200)
	d := doc(t, m)
	if d["title"] != "Renamed" || d["author"] != nil || d["year"] != 2021.0 || d["restricted"] != true ||
		d["external_id"] != "U-1" || d["filename"] != "first.txt" || d["status"] != "indexed" {
		t.Errorf("after a metadata update: %v", d)
	}
	if n := e.changes(id); n != 0 {
		t.Errorf("a metadata update made %d change-log entries", n)
	}
	// the same through a form, with an empty field clearing it (lifting
	// the restriction needs an admin)
	admin := e.user("ada", auth.RoleAdmin)
	m = e.do("PUT", path, bearer(admin), formFile(map[string]string{"kind": "essay", "year": "", "restricted": "off"}, "", "", nil)).must(t, 200)
	if d := doc(t, m); d["kind"] != "essay" || d["year"] != nil || d["restricted"] != false || d["title"] != "Renamed" {
		t.Errorf("after a form update: %v", d)
	}
	if n := e.changes(id); n != 0 {
		t.Errorf("a form metadata update made %d change-log entries", n)
	}

	// a new file: logged, pending, the file's name and type stored
	m = e.do("PUT", path, bearer(staff), formFile(nil, "second.html", "", []byte("<html><body><p>"+words(12, 100)+"</p></body></html>"))).must(t, 200)
	if d := doc(t, m); d["filename"] != "second.html" || d["content_type"] != "text/html" || d["status"] != "pending" || d["title"] != "Renamed" {
		t.Errorf("after a new file: %v", d)
	}
	if _, ok := m["warning"]; ok {
		t.Errorf("a readable file has a warning: %v", m)
	}
	if n := e.changes(id); n != 1 {
		t.Errorf("a new file made %d change-log entries, want 1", n)
	}
	// new plain text
	e.do("PUT", path, bearer(staff), jsonBody(map[string]any{"text": words(13, 100)})).must(t, 200)
	if n := e.changes(id); n != 2 {
		t.Errorf("new text made %d change-log entries in all, want 2", n)
	}

	// refusals
	e.do("PUT", path, bearer(staff), jsonBody(map[string]any{"external_id": "U-2"})).mustErr(t, 409, "conflict")
	e.do("PUT", path, bearer(staff), jsonBody(map[string]any{"colour": "red"})).mustErr(t, 400, "bad_request")
	e.do("PUT", path, bearer(staff), jsonBody(map[string]any{"year": "2020"})).mustErr(t, 400, "bad_request")
	e.do("PUT", path, bearer(staff), jsonBody(map[string]any{"title": 5})).mustErr(t, 400, "bad_request")
	e.do("PUT", path, bearer(staff), jsonBody(map[string]any{"restricted": "yes"})).mustErr(t, 400, "bad_request")
	e.do("PUT", path, bearer(staff), jsonBody(map[string]any{"text": ""})).mustErr(t, 400, "bad_request")
	e.do("PUT", path, bearer(staff), formFile(nil, "empty.txt", "", nil)).mustErr(t, 400, "bad_request")
	e.do("PUT", "/api/v1/documents/99999", bearer(staff), jsonBody(map[string]any{"title": "x"})).mustErr(t, 404, "not_found")
	e.do("PUT", "/api/v1/documents/99999", bearer(staff), jsonBody(map[string]any{})).mustErr(t, 404, "not_found")
	e.do("PUT", "/api/v1/documents/one", bearer(staff), jsonBody(map[string]any{"title": "x"})).mustErr(t, 404, "not_found")
	if d := doc(t, e.do("GET", path, bearer(staff)).must(t, 200)); d["external_id"] != "U-1" || d["title"] != "Renamed" {
		t.Errorf("a refused update changed the document: %v", d)
	}

	// delete, then undelete
	m = e.do("DELETE", path, bearer(staff)).must(t, 200)
	if d := doc(t, m); d["status"] != "deleted" || d["deleted"] == nil {
		t.Errorf("after delete: %v", d)
	}
	if d := doc(t, e.do("GET", path, bearer(staff)).must(t, 200)); d["status"] != "deleted" {
		t.Errorf("get after delete: %v", d)
	}
	m = e.do("GET", "/api/v1/documents?status=deleted", bearer(staff)).must(t, 200)
	if docs := m["documents"].([]any); len(docs) != 1 {
		t.Errorf("deleted list: %v", m)
	}
	m = e.do("PUT", path, bearer(staff), jsonBody(map[string]any{"deleted": false})).must(t, 200)
	if d := doc(t, m); d["status"] != "pending" || d["deleted"] != nil {
		t.Errorf("after undelete: %v", d)
	}
	m = e.do("PUT", path, bearer(staff), formFile(map[string]string{"deleted": "true"}, "", "", nil)).must(t, 200)
	if d := doc(t, m); d["status"] != "deleted" {
		t.Errorf("after a form delete: %v", d)
	}
	e.do("DELETE", "/api/v1/documents/99999", bearer(staff)).mustErr(t, 404, "not_found")
	e.do("DELETE", "/api/v1/documents/x", bearer(staff)).mustErr(t, 404, "not_found")
}

func TestAPI_UploadLimitsAndWarnings(t *testing.T) {
	const maxFile = 8 << 10
	e := newAPIEnv(t, true, func(c *config.Config) {
		c.Extract.MaxBytes = maxFile
		c.HTTP.MaxRequestBytes = 4 << 10
	})
	staff := e.user("sam", auth.RoleStaff)

	// far over: the guard refuses it before the handler reads it
	huge := bytes.Repeat([]byte("word "), (maxFile+(2<<20))/5)
	msg := e.do("POST", "/api/v1/documents", bearer(staff), formFile(nil, "huge.txt", "", huge)).mustErr(t, 413, "too_large")
	if !strings.Contains(msg, "limit") {
		t.Errorf("413 message: %s", msg)
	}
	// just over extract.max_bytes: refused too, naming the limit
	over := bytes.Repeat([]byte("word "), maxFile/5+10)
	msg = e.do("POST", "/api/v1/documents", bearer(staff), formFile(nil, "over.txt", "", over)).mustErr(t, 413, "too_large")
	if !strings.Contains(msg, "extract.max_bytes") {
		t.Errorf("413 message: %s", msg)
	}
	// a JSON body over http.max_request_bytes
	e.do("POST", "/api/v1/documents", bearer(staff), jsonBody(map[string]any{"text": strings.Repeat("word ", 2000)})).mustErr(t, 413, "too_large")
	var n int
	if err := e.pool.QueryRow(context.Background(), `select count(*) from documents`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("refused uploads stored %d documents (%v)", n, err)
	}

	// a damaged PDF is stored, with a warning of what the run will do
	r := e.do("POST", "/api/v1/documents", bearer(staff), formFile(map[string]string{"title": "Broken"}, "broken.pdf", "application/pdf",
		[]byte("%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >>\nthis is not a PDF at all\n")))
	m := r.must(t, http.StatusCreated)
	w, _ := m["warning"].(string)
	if !strings.HasPrefix(w, "the next run will mark it failed: ") {
		t.Fatalf("warning %q", w)
	}
	id := docID(t, m)
	if d := doc(t, m); d["status"] != "pending" || d["content_type"] != "application/pdf" {
		t.Errorf("damaged PDF: %v", d)
	}
	e.runEngine()
	d := doc(t, e.do("GET", fmt.Sprintf("/api/v1/documents/%d", id), bearer(staff)).must(t, 200))
	if d["status"] != "failed" || d["error"] == "" {
		t.Errorf("after the run: %v", d)
	}
	// the fixed file clears the failure at the next run
	m = e.do("PUT", fmt.Sprintf("/api/v1/documents/%d", id), bearer(staff), formFile(nil, "fixed.txt", "", []byte(words(20, 200)))).must(t, 200)
	if _, ok := m["warning"]; ok || doc(t, m)["status"] != "pending" {
		t.Errorf("fixed file: %v", m)
	}
	e.runEngine()
	if d := doc(t, e.do("GET", fmt.Sprintf("/api/v1/documents/%d", id), bearer(staff)).must(t, 200)); d["status"] != "indexed" {
		t.Errorf("after the fix and a run: %v", d)
	}
	// plain text that the run will refuse (binary junk) warns too
	m = e.do("POST", "/api/v1/documents", bearer(staff), jsonBody(map[string]any{"text": "\x00\x01\x02\x03\x04\x05\x06 \x07\x08"})).must(t, http.StatusCreated)
	if w, _ := m["warning"].(string); w == "" {
		t.Errorf("unreadable text has no warning: %v", m)
	}
}

func TestAPI_RunsListTriggerAndMe(t *testing.T) {
	e := newAPIEnv(t, true, nil)
	teacher := e.user("tea", auth.RoleTeacher)
	admin := e.user("ada", auth.RoleAdmin)
	staff := e.user("sam", auth.RoleStaff)

	m := e.do("GET", "/api/v1/runs", bearer(teacher)).must(t, 200)
	if len(m["runs"].([]any)) != 0 || m["pending"] != 0.0 || m["running"] != false || m["daemon"] != true ||
		m["next_run"] != "2031-05-06T07:08:00Z" || m["next_offset"] != nil {
		t.Errorf("runs of an empty archive: %v", m)
	}
	for i := range 3 {
		e.do("POST", "/api/v1/documents", bearer(staff), jsonBody(map[string]any{"text": words(uint64(30+i), 80)})).must(t, http.StatusCreated)
		if i < 2 {
			e.runEngine()
		}
	}
	m = e.do("GET", "/api/v1/runs", bearer(teacher)).must(t, 200)
	runs := m["runs"].([]any)
	if len(runs) != 2 || m["pending"] != 1.0 {
		t.Fatalf("runs: %v", m)
	}
	newest := runs[0].(map[string]any)
	if newest["id"].(float64) <= runs[1].(map[string]any)["id"].(float64) || newest["status"] != "committed" || newest["docs_indexed"] != 1.0 {
		t.Errorf("runs are not newest first, or wrong: %v", runs)
	}
	m = e.do("GET", "/api/v1/runs?limit=1", bearer(teacher)).must(t, 200)
	if r := m["runs"].([]any); len(r) != 1 || m["next_offset"] != 1.0 || r[0].(map[string]any)["id"] != newest["id"] {
		t.Errorf("runs page 1: %v", m)
	}
	m = e.do("GET", "/api/v1/runs?limit=1&offset=1", bearer(teacher)).must(t, 200)
	if r := m["runs"].([]any); len(r) != 1 || m["next_offset"] != nil {
		t.Errorf("runs page 2: %v", m)
	}
	e.do("GET", "/api/v1/runs?limit=-3", bearer(teacher)).mustErr(t, 400, "bad_request")

	// run now: admins only, the daemon is asked
	e.do("POST", "/api/v1/runs", bearer(staff)).mustErr(t, 403, "forbidden")
	if e.runner.calls() != 0 {
		t.Fatal("a refused request reached the runner")
	}
	e.runner.mu.Lock()
	e.runner.running = true
	e.runner.mu.Unlock()
	m = e.do("POST", "/api/v1/runs", bearer(admin)).must(t, http.StatusAccepted)
	if m["requested"] != true || m["running"] != true || e.runner.calls() != 1 {
		t.Errorf("run now: %v, %d calls", m, e.runner.calls())
	}

	// me
	m = e.do("GET", "/api/v1/me", bearer(staff)).must(t, 200)
	if u := m["user"].(map[string]any); u["name"] != "sam" || u["role"] != "staff" || m["auth"] != "token" {
		t.Errorf("me by token: %v", m)
	}
	cookie, _ := e.session("tea")
	m = e.do("GET", "/api/v1/me", withSession(cookie, "")).must(t, 200)
	if u := m["user"].(map[string]any); u["name"] != "tea" || u["role"] != "teacher" || m["auth"] != "session" {
		t.Errorf("me by session: %v", m)
	}

	// a server without a daemon says so
	e2 := newAPIEnv(t, false, nil)
	admin2 := e2.user("ada", auth.RoleAdmin)
	msg := e2.do("POST", "/api/v1/runs", bearer(admin2)).mustErr(t, http.StatusServiceUnavailable, "no_daemon")
	if !strings.Contains(msg, "no daemon in this process") {
		t.Errorf("503 message: %s", msg)
	}
	m = e2.do("GET", "/api/v1/runs", bearer(admin2)).must(t, 200)
	if m["daemon"] != false || m["next_run"] != nil || m["running"] != false {
		t.Errorf("runs without a daemon: %v", m)
	}
}

func TestAPI_UnknownRoutesAreJSON(t *testing.T) {
	e := newAPIEnv(t, true, nil)
	tok := e.user("tea", auth.RoleTeacher)
	e.do("GET", "/api/v1/nothing", bearer(tok)).mustErr(t, 404, "not_found")
	e.do("GET", "/api/v2/documents").mustErr(t, 404, "not_found")
	// Messages are readable as JSON text: "<token>", not "\u003ctoken\u003e".
	r := e.do("GET", "/api/v1/documents")
	if msg := r.mustErr(t, 401, "unauthenticated"); !strings.Contains(msg, "Bearer <token>") || !bytes.Contains(r.body, []byte("Bearer <token>")) {
		t.Fatalf("unauthenticated answer: %s", r.body)
	}
}
