package web

// Hostile requests (issue 14, items 5 to 8, 10 and 11): each test here
// reproduces an attack on the web layer and asserts the limit that stops
// it. docs/WEB.md ("Threat model and limits") lists them.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rs/zerolog"

	"github.com/plagd/plagd/auth"
	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/daemon"
	"github.com/plagd/plagd/internal/testlog"
	"github.com/plagd/plagd/store"
)

// multipartFiles is a multipart body with one file part of size bytes per
// entry of sizes, plus the given fields.
func multipartFiles(fields map[string]string, sizes ...int) reqOpt {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	for i, n := range sizes {
		w, _ := mw.CreateFormFile("file", fmt.Sprintf("big%d.txt", i))
		w.Write(bytes.Repeat([]byte("word "), n/5))
	}
	mw.Close()
	return body(mw.FormDataContentType(), buf.Bytes())
}

// multipartTempFiles lists the files net/http's multipart parser left in dir.
func multipartTempFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "multipart-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestGuard_MultipartTempFilesRemoved: multi-MB multipart bodies sent
// anonymously to /login and to an unknown path, and by staff in uploads
// that fail validation, leave no multipart-* file in the temporary
// directory (they once stayed forever: anyone could fill the disk).
func TestGuard_MultipartTempFilesRemoved(t *testing.T) {
	e := newAPIEnv(t, false, nil) // first: the test cluster must not live in TMPDIR
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where mime/multipart spills files (os.TempDir)
	staff := e.user("sam", auth.RoleStaff)
	cookie, csrf := e.session("sam")
	const big = 12 << 20 // over multipartMemory, so a parsed file spills to disk

	cases := []struct {
		name       string
		method     string
		path       string
		opts       []reqOpt
		wantStatus int
	}{
		{"anonymous POST /login", "POST", "/login", []reqOpt{multipartFiles(map[string]string{"name": "x"}, big)}, http.StatusUnsupportedMediaType},
		{"anonymous POST to an unknown path", "POST", "/no/such/page", []reqOpt{multipartFiles(nil, big)}, http.StatusNotFound},
		{"anonymous upload", "POST", "/api/v1/documents", []reqOpt{multipartFiles(nil, big)}, http.StatusUnauthorized},
		{"staff API upload of two files", "POST", "/api/v1/documents", []reqOpt{bearer(staff), multipartFiles(nil, big, big)}, http.StatusBadRequest},
		{"staff API upload with a bad year", "POST", "/api/v1/documents", []reqOpt{bearer(staff), multipartFiles(map[string]string{"year": "soon"}, big)}, http.StatusBadRequest},
		{"staff page upload without CSRF token", "POST", "/documents", []reqOpt{withSession(cookie, ""), multipartFiles(nil, big)}, http.StatusForbidden},
		{"staff page upload with a bad year", "POST", "/documents", []reqOpt{withSession(cookie, csrf), multipartFiles(map[string]string{"year": "soon"}, big)}, 0},
	}
	for _, c := range cases {
		r := e.do(c.method, c.path, c.opts...)
		if c.wantStatus != 0 && r.status != c.wantStatus {
			t.Errorf("%s: status %d, want %d: %.300s", c.name, r.status, c.wantStatus, r.body)
		}
		// The files go when the handler returns, before the answer is
		// flushed; poll a little in case the client saw it earlier.
		var left []string
		for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if left = multipartTempFiles(t, tmp); len(left) == 0 || time.Now().After(deadline) {
				break
			}
		}
		if len(left) > 0 {
			t.Errorf("%s: %d multipart temp files left behind: %v", c.name, len(left), left)
			for _, f := range left {
				os.Remove(f)
			}
		}
	}
}

// serveWithLimits serves h on a loopback port with plagd serve's
// http.Server and the given HTTP limits.
func serveWithLimits(t *testing.T, c config.HTTP, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := daemon.NewHTTPServer(c, h)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// closedWithin connects to addr, sends head, then trickles one byte of
// tail every interval, and reports how long the server took to close the
// connection (or limit, if it never did).
func closedWithin(t *testing.T, addr, head, tail string, interval, limit time.Duration) time.Duration {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	go func() {
		for i := 0; i < len(tail); i++ {
			time.Sleep(interval)
			if _, err := conn.Write([]byte{tail[i]}); err != nil {
				return
			}
		}
	}()
	conn.SetReadDeadline(start.Add(limit))
	_, err = io.Copy(io.Discard, conn)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return limit
	}
	return time.Since(start)
}

// TestHTTPServer_SlowClientsDisconnected: clients trickling their headers
// or their body one byte at a time, or idling on a keep-alive connection,
// are disconnected within the configured timeouts (200 such connections
// were all still open after 60 s).
func TestHTTPServer_SlowClientsDisconnected(t *testing.T) {
	st := newSite(t)
	c := st.cfg.HTTP
	c.ReadHeaderTimeout, c.ReadTimeout, c.IdleTimeout = time.Second, 2*time.Second, 2*time.Second
	addr := serveWithLimits(t, c, st.srv.Handler())
	const limit = 20 * time.Second // far above the timeouts; a held connection reaches it
	const bound = 8 * time.Second  // a disconnect must come well before

	trickle := strings.Repeat("x", 200)
	cases := []struct{ name, head, tail string }{
		{"headers trickled", "GET /login HTTP/1.1\r\nHost: plagd\r\nX-Slow: ", trickle},
		{"body trickled", "POST /login HTTP/1.1\r\nHost: plagd\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 200\r\n\r\n", trickle},
		{"idle keep-alive", "GET /login HTTP/1.1\r\nHost: plagd\r\n\r\n", ""},
	}
	var wg sync.WaitGroup
	for _, tc := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := closedWithin(t, addr, tc.head, tc.tail, 500*time.Millisecond, limit)
			t.Logf("%s: closed after %s", tc.name, d.Round(time.Millisecond))
			if d > bound {
				t.Errorf("%s: connection still open after %s (read_header_timeout %s, read_timeout %s, idle_timeout %s)",
					tc.name, d.Round(time.Millisecond), c.ReadHeaderTimeout, c.ReadTimeout, c.IdleTimeout)
			}
		}()
	}
	wg.Wait()
}

// TestUploads_ConcurrencyCap: with http.max_concurrent_uploads uploads in
// progress, one more is answered 503 with Retry-After at once; when they
// end, uploads are taken again.
func TestUploads_ConcurrencyCap(t *testing.T) {
	e := newAPIEnv(t, false, func(c *config.Config) { c.HTTP.MaxConcurrentUploads = 2 })
	staff := e.user("sam", auth.RoleStaff)
	addr := strings.TrimPrefix(e.base, "http://")
	var held []net.Conn
	for range 2 { // two uploads whose bodies never finish
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "POST /api/v1/documents HTTP/1.1\r\nHost: plagd\r\nAuthorization: Bearer %s\r\n"+
			"Content-Type: multipart/form-data; boundary=XX\r\nContent-Length: 100000\r\n\r\n--XX\r\n", staff)
		held = append(held, conn)
	}
	for deadline := time.Now().Add(10 * time.Second); len(e.srv.uploads.slots) < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the held uploads never took their slots (%d taken)", len(e.srv.uploads.slots))
		}
	}
	upload := formFile(map[string]string{"title": "third"}, "third.txt", "text/plain", []byte(words(1, 200)))
	r := e.do("POST", "/api/v1/documents", bearer(staff), upload)
	r.mustErr(t, http.StatusServiceUnavailable, "busy")
	if r.header.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
	for _, c := range held {
		c.Close()
	}
	for deadline := time.Now().Add(10 * time.Second); len(e.srv.uploads.slots) > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the slots of closed uploads were not released (%d taken)", len(e.srv.uploads.slots))
		}
	}
	e.do("POST", "/api/v1/documents", bearer(staff),
		formFile(map[string]string{"title": "fourth"}, "fourth.txt", "text/plain", []byte(words(2, 200)))).must(t, http.StatusCreated)
}

// TestLogin_ConcurrentWrongPasswordsAreReserved: fifty concurrent wrong
// passwords for one name evaluate at most auth.login_attempts of them; the
// rest are refused 429 before any hash (all fifty were once evaluated).
func TestLogin_ConcurrentWrongPasswordsAreReserved(t *testing.T) {
	st := newSite(t)
	st.user("bob", auth.RoleStaff, "staff password 1")
	b := st.browser()
	m := hiddenCSRF.FindStringSubmatch(b.get("/login").body)
	if m == nil {
		t.Fatal("login form has no CSRF field")
	}
	u, _ := url.Parse(b.base + "/login")
	var loginCookie *http.Cookie
	for _, c := range b.c.Jar.Cookies(u) {
		if c.Name == loginCSRFCookie {
			loginCookie = c
		}
	}
	if loginCookie == nil {
		t.Fatal("no login CSRF cookie")
	}
	// Every answer sets a fresh login cookie: send the first one by hand,
	// without the jar, so that all fifty carry the same matching pair.
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	const n = 50
	statuses := make(chan int, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			form := url.Values{"name": {"bob"}, "password": {"wrong password"}, "csrf": {m[1]}}
			req, _ := http.NewRequest("POST", b.base+"/login", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.AddCookie(&http.Cookie{Name: loginCookie.Name, Value: loginCookie.Value})
			<-start
			resp, err := client.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			statuses <- resp.StatusCode
		}()
	}
	close(start)
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for s := range statuses {
		count[s]++
	}
	if allowed := st.cfg.Auth.LoginAttempts; count[http.StatusUnauthorized] > allowed || count[http.StatusTooManyRequests] < n-allowed ||
		count[http.StatusUnauthorized]+count[http.StatusTooManyRequests] != n {
		t.Fatalf("statuses %v: want at most %d evaluated (401) and the rest 429", count, allowed)
	}
}

// TestLoginThrottle_FloodKeepsBlockers: a flood of new names from many
// addresses neither grows the throttle beyond auth.throttle_entries nor
// frees the guesser it blocks (the old table was emptied once it held
// 100 000 names); a flood from one address is stopped by its own bucket.
func TestLoginThrottle_FloodKeepsBlockers(t *testing.T) {
	cfg := config.Default().Auth
	th := newLoginThrottle(cfg)
	now := time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC)
	for range cfg.LoginAttempts {
		if th.reserve("bob", "10.0.0.1", now) > 0 {
			t.Fatal("blocked before the allowed attempts were used")
		}
	}
	if th.reserve("bob", "10.0.0.1", now) == 0 {
		t.Fatal("not blocked after the allowed attempts")
	}
	for i := range cfg.ThrottleEntries + 1000 { // more names than the table holds
		ip := fmt.Sprintf("10.%d.%d.%d", 1+i>>16, i>>8&255, i&255)
		th.reserve(fmt.Sprintf("user%d", i), ip, now)
		if i%1000 == 0 && th.reserve("bob", "10.0.0.1", now) == 0 {
			t.Fatalf("the flood freed the blocked guesser after %d names", i)
		}
	}
	if th.reserve("bob", "10.0.0.1", now) == 0 {
		t.Fatal("the flood freed the blocked guesser")
	}
	if n := th.size(); n > cfg.ThrottleEntries || n < cfg.ThrottleEntries/2 { // full, not emptied
		t.Fatalf("the table holds %d buckets, want at most %d and not emptied", n, cfg.ThrottleEntries)
	}
	one := newLoginThrottle(cfg)
	refused := 0
	for i := range 10_000 {
		if one.reserve(fmt.Sprintf("user%d", i), "192.0.2.7", now) > 0 {
			refused++
		}
	}
	if refused < 10_000-cfg.LoginAttemptsPerAddress || one.size() > 3*cfg.LoginAttemptsPerAddress {
		t.Fatalf("one address spraying names: %d of 10000 refused, %d buckets", refused, one.size())
	}
}

// TestSafeNext: only a canonical same-site path survives as a post-login
// redirect; every way browsers turn a path into another host becomes "/".
func TestSafeNext(t *testing.T) {
	good := map[string]string{
		"/":                      "/",
		"/runs":                  "/runs",
		"/runs?x=1":              "/runs?x=1",
		"/documents?q=a+b":       "/documents?q=a+b",
		"/documents/5/compare/7": "/documents/5/compare/7",
		"/documents?q=%C3%A9":    "/documents?q=%C3%A9",
		"/documents#frag":        "/documents",
	}
	for in, want := range good {
		if got := safeNext(in); got != want {
			t.Errorf("safeNext(%q) = %q, want %q", in, got, want)
		}
	}
	bad := []string{
		"", "runs", "//evil.example", "///evil.example", "/\\evil.example", "\\\\evil.example", "/\\/evil.example",
		"https://evil.example", "http:evil.example", "javascript:alert(1)", "//evil.example/%2F..",
		"/\t/evil.example", "/%09/evil.example", "/%09%09/evil.example", "/\n/evil.example", "/%0a/evil.example",
		"/%0d%0a/evil.example", "/\r/evil.example", "/%2F/evil.example", "/%2f/evil.example", "%2F%2Fevil.example",
		"/%5Cevil.example", "/%5c%5cevil.example", "/%00/evil.example", "/\x00/evil.example", "/%ff/evil.example",
		"/%E2%80%AE/evil.example", "/\u202e/evil.example", "/%20/evil.example", "/ /evil.example", " /evil.example",
		"/\x7f/evil.example", "/%7F/evil.example", "/%C2%85/evil.example", "/%25%30%39/evil" + strings.Repeat("x", 3000),
		"//%09evil.example", "/%2F%2Fevil.example",
	}
	for _, in := range bad {
		if got := safeNext(in); got != "/" {
			t.Errorf("safeNext(%q) = %q, want \"/\"", in, got)
		}
	}
}

// TestLogin_NextThroughRealFlow: the login form, the sign-in and a
// signed-in visit to /login all send a hostile next to "/".
func TestLogin_NextThroughRealFlow(t *testing.T) {
	st := newSite(t)
	st.user("ana", auth.RoleTeacher, "teacher password 1")
	for _, next := range []string{"/\t/evil.example", "//evil.example", "/\\evil.example", "https://evil.example", "/%2F/evil.example"} {
		b := st.browser()
		p := b.get("/login?next="+url.QueryEscape(next)).must(t, http.StatusOK)
		if !strings.Contains(p.body, `name="next" value="/"`) {
			t.Errorf("next=%q: the login form does not carry \"/\"", next)
		}
		m := hiddenCSRF.FindStringSubmatch(p.body)
		if m == nil {
			t.Fatal("login form has no CSRF field")
		}
		res := b.post("/login", url.Values{"name": {"ana"}, "password": {"teacher password 1"}, "csrf": {m[1]}, "next": {next}})
		if res.status != http.StatusSeeOther || res.header.Get("Location") != "/" {
			t.Errorf("sign-in with next=%q: %d to %q, want 303 to /", next, res.status, res.header.Get("Location"))
		}
		if p := b.get("/login?next=" + url.QueryEscape(next)); p.status != http.StatusSeeOther || p.header.Get("Location") != "/" {
			t.Errorf("signed-in /login?next=%q: %d to %q, want 303 to /", next, p.status, p.header.Get("Location"))
		}
	}
}

// TestQuery_NULAndInvalidUTF8Are400: a NUL or invalid UTF-8 in a query
// parameter is the client's error, 400 with a plain message; PostgreSQL's
// text never reaches the client.
func TestQuery_NULAndInvalidUTF8Are400(t *testing.T) {
	e := newAPIEnv(t, false, nil)
	tok := e.user("tina", auth.RoleTeacher)
	cookie, _ := e.session("tina")
	for _, q := range []string{"q=%00", "q=a%00b", "q=%ff", "status=%00", "status=%c3%28", "q=" + strings.Repeat("x", 5000)} {
		r := e.do("GET", "/api/v1/documents?"+q, bearer(tok))
		msg := r.mustErr(t, http.StatusBadRequest, "bad_request")
		if strings.Contains(msg, "SQLSTATE") || strings.Contains(msg, "invalid byte") || strings.Contains(msg, "UTF8") {
			t.Errorf("?%.40s: the message quotes the database: %s", q, msg)
		}
		p := e.do("GET", "/documents?"+q, withSession(cookie, ""))
		if p.status != http.StatusBadRequest || strings.Contains(string(p.body), "SQLSTATE") {
			t.Errorf("page /documents?%.40s: %d %.300s", q, p.status, p.body)
		}
	}
}

// TestInternalError_ShowsRequestIDNotDatabase: an unexpected database
// error is logged with a request id; the answer says only "internal error
// (request id X)", on the API and on pages.
func TestInternalError_ShowsRequestIDNotDatabase(t *testing.T) {
	e := newAPIEnv(t, false, nil)
	var logs testlog.Buffer
	e.srv.log = zerolog.New(&logs)
	tok := e.user("tina", auth.RoleTeacher)
	cookie, _ := e.session("tina")
	if _, err := e.pool.Exec(context.Background(), `alter table documents rename to documents_elsewhere`); err != nil {
		t.Fatal(err)
	}
	for _, r := range []apiResp{e.do("GET", "/api/v1/documents", bearer(tok)), e.do("GET", "/documents", withSession(cookie, ""))} {
		id := r.header.Get("X-Request-Id")
		body := string(r.body)
		if r.status != http.StatusInternalServerError || id == "" || !strings.Contains(body, "internal error (request id "+id+")") {
			t.Fatalf("status %d, X-Request-Id %q: %.500s", r.status, id, body)
		}
		for _, leak := range []string{"SQLSTATE", "does not exist", "relation", "documents_elsewhere"} {
			if strings.Contains(body, leak) {
				t.Errorf("the answer shows the database error (%q): %.500s", leak, body)
			}
		}
		if l := logs.String(); !strings.Contains(l, `"request_id":"`+id+`"`) || !strings.Contains(l, "does not exist") {
			t.Errorf("the log lacks the error with request id %s:\n%s", id, l)
		}
	}
}

// TestUpload_LongFilenameCapped: a 10,004-character file name is stored
// cut to 255 bytes with its extension kept (it was stored whole).
func TestUpload_LongFilenameCapped(t *testing.T) {
	e := newAPIEnv(t, false, nil)
	staff := e.user("sam", auth.RoleStaff)
	name := strings.Repeat("a", 9499) + "\u202e" + strings.Repeat("é", 500) + ".txt" // 10,004 characters
	if n := utf8.RuneCountInString(name); n != 10004 {
		t.Fatalf("test name has %d characters", n)
	}
	var buf bytes.Buffer // by hand: formFile's %q would escape the bidi override
	mw := multipart.NewWriter(&buf)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="`+name+`"`)
	h.Set("Content-Type", "text/plain")
	w, _ := mw.CreatePart(h)
	w.Write([]byte(words(3, 200)))
	mw.Close()
	d := doc(t, e.do("POST", "/api/v1/documents", bearer(staff), body(mw.FormDataContentType(), buf.Bytes())).must(t, http.StatusCreated))
	stored, _ := d["filename"].(string)
	title, _ := d["title"].(string)
	if len(stored) > store.MaxFileNameBytes || !strings.HasSuffix(stored, ".txt") || !utf8.ValidString(stored) || strings.ContainsRune(stored, '\u202e') {
		t.Errorf("stored file name: %d bytes %q, want at most %d ending in .txt, without the bidi override", len(stored), stored, store.MaxFileNameBytes)
	}
	if len(title) > store.MaxFileNameBytes || title == "" {
		t.Errorf("default title: %d bytes", len(title))
	}
	if got := uploadName(`C:\Users\x\essay.pdf`); got != "essay.pdf" {
		t.Errorf("uploadName of a Windows path: %q", got)
	}
}
