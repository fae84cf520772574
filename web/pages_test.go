package web

import (
	"bytes"
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/plagd/plagd/auth"
	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/store"
)

// site is a web server over a fresh database, with a browser-like client
// per signed-in user.
type site struct {
	t      testing.TB
	pool   *pgxpool.Pool
	cfg    config.Config
	srv    *Server
	http   *httptest.Server
	runner *fakeRunner
}

func newSite(t testing.TB) *site {
	t.Helper()
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := config.Default()
	cfg.DatabaseURL, cfg.DataDir, cfg.Engine.Nodes = url, t.TempDir(), 1
	st := &site{t: t, pool: pool, cfg: cfg, runner: &fakeRunner{}}
	var err error
	if st.srv, err = New(Options{Config: cfg, DB: store.NewDB(pool), Runner: st.runner, Log: zerolog.Nop()}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.srv.Close)
	st.http = httptest.NewServer(st.srv.Handler())
	t.Cleanup(st.http.Close)
	return st
}

// user creates an account.
func (st *site) user(name string, role auth.Role, password string) {
	st.t.Helper()
	if _, err := auth.NewStore(st.pool).AddUser(context.Background(), name, role, password); err != nil {
		st.t.Fatal(err)
	}
}

// browser is a cookie-keeping client that does not follow redirects, so
// tests see them.
type browser struct {
	t    testing.TB
	base string
	c    *http.Client
	csrf string
}

func (st *site) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: st.t, base: st.http.URL, c: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

type page struct {
	status int
	body   string
	header http.Header
}

func (b *browser) do(req *http.Request) page {
	b.t.Helper()
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if m := csrfMeta.FindSubmatch(body); m != nil {
		b.csrf = string(m[1])
	}
	return page{resp.StatusCode, string(body), resp.Header}
}

var (
	csrfMeta   = regexp.MustCompile(`<meta name="csrf-token" content="([^"]+)">`)
	hiddenCSRF = regexp.MustCompile(`name="csrf" value="([^"]+)"`)
)

func (b *browser) get(path string) page {
	req, _ := http.NewRequest("GET", b.base+path, nil)
	return b.do(req)
}

// post sends a form with the session's CSRF token (unless the form has one).
func (b *browser) post(path string, form url.Values) page {
	if _, ok := form["csrf"]; !ok {
		form.Set("csrf", b.csrf)
	}
	req, _ := http.NewRequest("POST", b.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(req)
}

// signIn goes through the real login form.
func (b *browser) signIn(name, password string) page {
	b.t.Helper()
	p := b.get("/login")
	m := hiddenCSRF.FindStringSubmatch(p.body)
	if m == nil {
		b.t.Fatalf("login form has no CSRF field:\n%s", p.body)
	}
	res := b.post("/login", url.Values{"name": {name}, "password": {password}, "csrf": {m[1]}, "next": {"/"}})
	if res.status == http.StatusSeeOther {
		b.get("/") // picks up the session's CSRF token
	}
	return res
}

func (p page) must(t *testing.T, status int, want ...string) page {
	t.Helper()
	if p.status != status {
		t.Fatalf("status %d, want %d\n%.2000s", p.status, status, p.body)
	}
	for _, w := range want {
		if !strings.Contains(p.body, w) {
			t.Errorf("page lacks %q\n%.3000s", w, p.body)
		}
	}
	return p
}

func TestLogin_FlowCookiesAndLogout(t *testing.T) {
	st := newSite(t)
	st.user("ana", auth.RoleTeacher, "teacher password 1")
	b := st.browser()

	// anonymous: pages redirect to the login form with the way back
	p := b.get("/documents?q=x")
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/login?next="+url.QueryEscape("/documents?q=x") {
		t.Fatalf("anonymous /documents: %d %q", p.status, p.header.Get("Location"))
	}
	b.get("/login").must(t, 200, "Sign in to plagd", `name="password"`)

	// a forged login (no login-CSRF cookie match) is refused
	b.post("/login", url.Values{"name": {"ana"}, "password": {"teacher password 1"}, "csrf": {"forged"}}).must(t, 403, "expired")
	// wrong password
	res := b.signIn("ana", "wrong password!")
	res.must(t, http.StatusUnauthorized, "Wrong user name or password")

	res = b.signIn("ana", "teacher password 1")
	if res.status != http.StatusSeeOther || res.header.Get("Location") != "/" {
		t.Fatalf("sign-in: %d %q\n%s", res.status, res.header.Get("Location"), res.body)
	}
	var session *http.Cookie
	for _, c := range strings.Split(strings.Join(res.header.Values("Set-Cookie"), "\n"), "\n") {
		if strings.HasPrefix(c, sessionCookie+"=") {
			hc, err := http.ParseSetCookie(c)
			if err != nil {
				t.Fatal(err)
			}
			session = hc
		}
	}
	if session == nil || !session.HttpOnly || session.SameSite != http.SameSiteLaxMode || session.Path != "/" {
		t.Fatalf("session cookie %+v: want HttpOnly, SameSite=Lax, Path=/", session)
	}
	if !session.Expires.IsZero() || session.MaxAge != 0 {
		t.Fatalf("session cookie expires at %v (max-age %d): a fixed expiry would cut the sliding session short", session.Expires, session.MaxAge)
	}
	if session.Secure {
		t.Fatalf("plain HTTP to 127.0.0.1 with cookie_secure=auto must not set Secure (the browser would drop it)")
	}
	b.get("/").must(t, 200, "Overview", "ana", "Sign out")

	// the login page of a signed-in user goes on to next
	if p := b.get("/login?next=/runs"); p.status != http.StatusSeeOther || p.header.Get("Location") != "/runs" {
		t.Fatalf("signed-in /login: %d %q", p.status, p.header.Get("Location"))
	}
	// an open redirect through next is not possible
	if safeNext("//evil.example/x") != "/" || safeNext("https://evil.example") != "/" || safeNext("/\\evil") != "/" || safeNext("/runs?x=1") != "/runs?x=1" {
		t.Fatal("safeNext lets a foreign redirect through")
	}

	// sign-out needs the CSRF token, then ends the session server-side
	b.post("/logout", url.Values{"csrf": {"forged"}}).must(t, 403, "CSRF")
	if p := b.post("/logout", url.Values{}); p.status != http.StatusSeeOther {
		t.Fatalf("logout: %d", p.status)
	}
	if p := b.get("/"); p.status != http.StatusSeeOther {
		t.Fatalf("after logout: %d, want a redirect to /login", p.status)
	}
	var sessions int
	st.pool.QueryRow(context.Background(), `select count(*) from sessions`).Scan(&sessions)
	if sessions != 0 {
		t.Fatalf("%d sessions left after logout", sessions)
	}
}

func TestLogin_SecureCookieBehindTLSAndThrottle(t *testing.T) {
	st := newSite(t)
	st.user("bob", auth.RoleStaff, "staff password 1")
	r := httptest.NewRequest("GET", "https://plagd.example.edu/login", nil)
	if !st.srv.cookieSecure(r) {
		t.Fatal("a request to a non-loopback host must get Secure cookies")
	}
	r = httptest.NewRequest("GET", "http://localhost:8080/login", nil)
	r.Header.Set("X-Forwarded-Proto", "https")
	if !st.srv.cookieSecure(r) {
		t.Fatal("a request forwarded from HTTPS must get Secure cookies")
	}
	st.srv.cfg.HTTP.CookieSecure = "always"
	if !st.srv.cookieSecure(httptest.NewRequest("GET", "http://127.0.0.1/", nil)) {
		t.Fatal("cookie_secure=always")
	}
	st.srv.cfg.HTTP.CookieSecure = "auto"

	b := st.browser()
	for i := 0; i < 6; i++ {
		b.signIn("bob", "not the password")
	}
	// blocked now, even with the right password
	b.signIn("bob", "staff password 1").must(t, http.StatusTooManyRequests, "Too many failed attempts")
	st.srv.now = func() time.Time { return time.Now().Add(time.Hour) }
	if p := b.signIn("bob", "staff password 1"); p.status != http.StatusSeeOther {
		t.Fatalf("after the wait: %d", p.status)
	}
}

func TestPages_OverviewRunsAndRunNow(t *testing.T) {
	st := newSite(t)
	st.user("teach", auth.RoleTeacher, "teacher password 1")
	st.user("root", auth.RoleAdmin, "admin password 12")
	pgtest.Exec(t, st.pool, `insert into documents (external_id, title, text) values ('a', 'First essay', 'one two three four five six seven eight')`)

	tb := st.browser()
	tb.signIn("teach", "teacher password 1")
	tb.get("/").must(t, 200, "Overview", "documents", "pending changes", "No run has committed yet", "Check a file now")
	p := tb.get("/runs").must(t, 200, "Runs", "2031-05-06")
	if strings.Contains(p.body, "Run now") {
		t.Error("a teacher sees the Run now button")
	}
	tb.post("/runs", url.Values{}).must(t, 403, "admin role")

	ab := st.browser()
	ab.signIn("root", "admin password 12")
	ab.get("/runs").must(t, 200, "Run now")
	if p := ab.post("/runs", url.Values{}); p.status != http.StatusSeeOther {
		t.Fatalf("run now: %d", p.status)
	}
	ab.get("/runs?done=x").must(t, 200)
	if st.runner.calls() != 1 {
		t.Fatalf("run requested %d times, want 1", st.runner.calls())
	}
	// a server without a daemon says so instead of pretending
	st.srv.runner = nil
	ab.post("/runs", url.Values{}).must(t, http.StatusServiceUnavailable, "plagd serve")
}

func TestPages_DocumentsUploadEditDelete(t *testing.T) {
	st := newSite(t)
	st.user("staff1", auth.RoleStaff, "staff password 1")
	st.user("teach", auth.RoleTeacher, "teacher password 1")
	pgtest.Exec(t, st.pool, `insert into documents (external_id, title, author, text) values ('x1', 'Water in the city', 'Nováková', 'some text here')`)

	tb := st.browser()
	tb.signIn("teach", "teacher password 1")
	p := tb.get("/documents").must(t, 200, "Water in the city", "Nováková", "pending")
	if strings.Contains(p.body, "upload-form") {
		t.Error("a teacher sees the upload form")
	}
	tb.get("/documents?q=nomatch").must(t, 200, "No documents match")

	sb := st.browser()
	sb.signIn("staff1", "staff password 1")
	sb.get("/documents").must(t, 200, "Upload documents", `id="upload-form"`)

	// the form upload (no scripts): two files, one of them unreadable
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("csrf", sb.csrf)
	mw.WriteField("kind", "essay")
	fw, _ := mw.CreateFormFile("file", "good essay.txt")
	fw.Write([]byte("A plain text essay about rivers and bridges, long enough to be read."))
	fw, _ = mw.CreateFormFile("file", "broken.pdf")
	fw.Write([]byte("%PDF-1.4 this is not really a pdf"))
	mw.Close()
	req, _ := http.NewRequest("POST", sb.base+"/documents", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	res := sb.do(req)
	if res.status != http.StatusSeeOther {
		t.Fatalf("upload: %d %s", res.status, res.body)
	}
	loc, _ := url.Parse(res.header.Get("Location"))
	done := loc.Query().Get("done")
	if !strings.Contains(done, "2 of 2 files stored") || !strings.Contains(done, "broken.pdf: stored, but the next run will mark it failed") {
		t.Fatalf("upload message %q", done)
	}
	var n int
	st.pool.QueryRow(context.Background(), `select count(*) from documents where kind = 'essay' and title in ('good essay', 'broken')`).Scan(&n)
	if n != 2 {
		t.Fatalf("%d uploaded documents stored with their kind and title, want 2", n)
	}

	var id int64
	st.pool.QueryRow(context.Background(), `select id from documents where external_id = 'x1'`).Scan(&id)
	path := "/documents/" + itoa(id)
	// a teacher cannot edit or delete
	tb.post(path+"/edit", url.Values{"title": {"hacked"}}).must(t, 403)
	tb.post(path+"/delete", url.Values{}).must(t, 403)
	// staff edits metadata and restricts it: no change-log entry (no re-index)
	var before, after int
	st.pool.QueryRow(context.Background(), `select count(*) from plagd_changes where doc_id = $1`, id).Scan(&before)
	if p := sb.post(path+"/edit", url.Values{"title": {"Water in the town"}, "author": {"Nováková"}, "kind": {"thesis"},
		"year": {"2024"}, "external_id": {"x1"}, "restricted_shown": {"1"}, "restricted": {"on"}}); p.status != http.StatusSeeOther {
		t.Fatalf("edit: %d %s", p.status, p.body)
	}
	st.pool.QueryRow(context.Background(), `select count(*) from plagd_changes where doc_id = $1`, id).Scan(&after)
	var title string
	var restricted bool
	var year int
	st.pool.QueryRow(context.Background(), `select title, restricted, year from documents where id = $1`, id).Scan(&title, &restricted, &year)
	if title != "Water in the town" || !restricted || year != 2024 || after != before {
		t.Fatalf("after edit: %q restricted=%v year=%d, change-log %d→%d", title, restricted, year, before, after)
	}
	sb.post(path+"/edit", url.Values{"year": {"next year"}}).must(t, 400, "not a year")
	sb.post("/documents/999999/edit", url.Values{"title": {"x"}}).must(t, 404)
	// external ids stay unique
	pgtest.Exec(t, st.pool, `insert into documents (external_id, text) values ('taken', 'x')`)
	sb.post(path+"/edit", url.Values{"external_id": {"taken"}}).must(t, 409, "external id")

	if p := sb.post(path+"/delete", url.Values{}); p.status != http.StatusSeeOther {
		t.Fatalf("delete: %d", p.status)
	}
	sb.get("/documents?status=deleted").must(t, 200, "Water in the town")
}

func TestPages_AccountTokensAndPassword(t *testing.T) {
	st := newSite(t)
	st.user("teach", auth.RoleTeacher, "teacher password 1")
	st.user("other", auth.RoleTeacher, "other password 12")
	b := st.browser()
	b.signIn("teach", "teacher password 1")
	b.get("/account").must(t, 200, "Your account", "No tokens")
	p := b.post("/account/tokens", url.Values{"name": {"import script"}, "days": {"30"}}).must(t, 200, "Your new API token", "import script")
	tok := regexp.MustCompile(`id="new-token">([^<]+)<`).FindStringSubmatch(p.body)
	if tok == nil {
		t.Fatal("no token shown")
	}
	// the token works on the API, without a cookie
	req, _ := http.NewRequest("GET", st.http.URL+"/api/v1/me", nil)
	req.Header.Set("Authorization", "Bearer "+tok[1])
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode == http.StatusUnauthorized {
		t.Fatalf("the new token is refused: %v %v", err, resp.Status)
	}
	resp.Body.Close()
	if p := b.get("/account"); strings.Contains(p.body, tok[1]) {
		t.Fatal("the token is shown again after its creation")
	}
	toks, _ := auth.NewStore(st.pool).Tokens(context.Background(), "teach")
	// another user cannot revoke it
	ob := st.browser()
	ob.signIn("other", "other password 12")
	ob.post("/account/tokens/"+itoa(toks[0].ID)+"/revoke", url.Values{}).must(t, 404)
	if p := b.post("/account/tokens/"+itoa(toks[0].ID)+"/revoke", url.Values{}); p.status != http.StatusSeeOther {
		t.Fatalf("revoke own token: %d", p.status)
	}
	b.get("/account").must(t, 200, "revoked")

	b.post("/account/password", url.Values{"current": {"wrong"}, "new": {"new password 123"}, "repeat": {"new password 123"}}).must(t, 401, "current password is wrong")
	b.post("/account/password", url.Values{"current": {"teacher password 1"}, "new": {"short"}, "repeat": {"short"}}).must(t, 400, "at least 10")
	if p := b.post("/account/password", url.Values{"current": {"teacher password 1"}, "new": {"new password 123"}, "repeat": {"new password 123"}}); p.status != http.StatusSeeOther {
		t.Fatalf("change password: %d %s", p.status, p.body)
	}
	if p := b.get("/account"); p.status != http.StatusSeeOther {
		t.Fatal("changing the password must end the session")
	}
	if p := st.browser().signIn("teach", "new password 123"); p.status != http.StatusSeeOther {
		t.Fatal("the new password does not work")
	}
}

func TestPages_UsersAdmin(t *testing.T) {
	st := newSite(t)
	st.user("root", auth.RoleAdmin, "admin password 12")
	st.user("staff1", auth.RoleStaff, "staff password 1")
	sb := st.browser()
	sb.signIn("staff1", "staff password 1")
	sb.get("/users").must(t, 403, "admin role")

	ab := st.browser()
	ab.signIn("root", "admin password 12")
	ab.get("/users").must(t, 200, "Add a user", "staff1", "root")
	p := ab.post("/users", url.Values{"name": {"new.teacher"}, "role": {"teacher"}}).must(t, 200, "Password for new.teacher")
	pw := regexp.MustCompile(`<code class="token">([^<]+)</code>`).FindStringSubmatch(p.body)
	if pw == nil {
		t.Fatal("no password shown")
	}
	if res := st.browser().signIn("new.teacher", pw[1]); res.status != http.StatusSeeOther {
		t.Fatalf("the generated password does not sign in: %d", res.status)
	}
	ab.post("/users", url.Values{"name": {"new.teacher"}, "role": {"teacher"}}).must(t, 409, "exists")
	ab.post("/users", url.Values{"name": {"x"}, "role": {"boss"}}).must(t, 400)

	// role change, disable, enable, reset
	if p := ab.post("/users/staff1", url.Values{"action": {"role"}, "role": {"teacher"}}); p.status != http.StatusSeeOther {
		t.Fatalf("role: %d %s", p.status, p.body)
	}
	if u, _ := auth.NewStore(st.pool).User(context.Background(), "staff1"); u.Role != auth.RoleTeacher {
		t.Fatalf("role after change: %s", u.Role)
	}
	ab.post("/users/staff1", url.Values{"action": {"disable"}})
	sb.get("/").must(t, http.StatusSeeOther) // the disabled user's session ends
	ab.post("/users/staff1", url.Values{"action": {"enable"}})
	p = ab.post("/users/staff1", url.Values{"action": {"reset"}}).must(t, 200, "Password for staff1")
	pw = regexp.MustCompile(`<code class="token">([^<]+)</code>`).FindStringSubmatch(p.body)
	if res := st.browser().signIn("staff1", pw[1]); res.status != http.StatusSeeOther {
		t.Fatal("reset password does not sign in")
	}
	// an admin cannot lock themselves out
	ab.post("/users/root", url.Values{"action": {"role"}, "role": {"staff"}}).must(t, 400, "yourself")
	ab.post("/users/root", url.Values{"action": {"disable"}}).must(t, 400, "yourself")
	ab.post("/users/nobody", url.Values{"action": {"reset"}}).must(t, 404)
}

func TestSecurityHeaders(t *testing.T) {
	st := newSite(t)
	resp, err := http.Get(st.http.URL + "/login")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for h, want := range map[string]string{"Content-Security-Policy": "script-src 'self'", "X-Frame-Options": "DENY",
		"X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"} {
		if !strings.Contains(resp.Header.Get(h), want) {
			t.Errorf("%s = %q, want %q", h, resp.Header.Get(h), want)
		}
	}
	resp, err = http.Get(st.http.URL + "/static/style.css")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("static: %v %v", err, resp.Status)
	}
	resp.Body.Close()
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestPages_NotFoundAndForbiddenShowTheUser(t *testing.T) {
	st := newSite(t)
	st.user("teach", auth.RoleTeacher, "teacher password 1")
	b := st.browser()
	b.signIn("teach", "teacher password 1")
	b.get("/no/such/page").must(t, 404, "There is no page at /no/such/page", "Sign out")
	b.get("/users").must(t, 403, "This needs the admin role", "Sign out", "teach")
	if p := b.get("/favicon.ico"); p.status != http.StatusMovedPermanently {
		t.Fatalf("favicon: %d", p.status)
	}
	b.get("/api/v1/nothing").must(t, 404, `"code": "not_found"`)
}

func TestPages_ReplaceFileReindexes(t *testing.T) {
	st := newSite(t)
	st.user("staff1", auth.RoleStaff, "staff password 1")
	var id int64
	st.pool.QueryRow(context.Background(), `insert into documents (external_id, title, filename, content) values ('s1', 'Scan', 'scan.pdf', '%PDF-1.4 broken') returning id`).Scan(&id)
	pgtest.Exec(t, st.pool, `delete from plagd_changes`)
	b := st.browser()
	b.signIn("staff1", "staff password 1")
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("csrf", b.csrf)
	mw.WriteField("title", "Scan, fixed")
	fw, _ := mw.CreateFormFile("file", "fixed.txt")
	fw.Write([]byte("The corrected text of the scanned thesis, now readable."))
	mw.Close()
	req, _ := http.NewRequest("POST", b.base+"/documents/"+itoa(id)+"/edit", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if p := b.do(req); p.status != http.StatusSeeOther {
		t.Fatalf("edit with a file: %d %s", p.status, p.body)
	}
	var filename, title string
	var changes int
	st.pool.QueryRow(context.Background(), `select filename, title, (select count(*) from plagd_changes where doc_id = $1) from documents where id = $1`, id).
		Scan(&filename, &title, &changes)
	if filename != "fixed.txt" || title != "Scan, fixed" || changes != 1 {
		t.Fatalf("after replacing the file: filename %q title %q, %d change-log entries (want 1: the next run re-indexes it)", filename, title, changes)
	}
}
