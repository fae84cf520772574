package web

import (
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/plagd/plagd/auth"
)

// multiForm is a multipart form with fields and files (field name, file
// name, content), in order.
func multiForm(fields map[string]string, files ...[3]string) reqOpt {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	for _, f := range files {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, f[0], f[1]))
		h.Set("Content-Type", "application/octet-stream")
		w, _ := mw.CreatePart(h)
		w.Write([]byte(f[2]))
	}
	mw.Close()
	return body(mw.FormDataContentType(), buf.Bytes())
}

// TestAPI_IdenticalUpload: a byte-identical re-upload is refused with 409
// and the document it equals, unless duplicate=replace (the existing
// document takes the new name and details) or duplicate=new.
func TestAPI_IdenticalUpload(t *testing.T) {
	e := newAPIEnv(t, false, nil)
	staff := e.user("sam", auth.RoleStaff)
	file := words(1, 60)
	first := e.do("POST", "/api/v1/documents", bearer(staff),
		formFile(map[string]string{"title": "Essay", "author": "Jana"}, "essay.txt", "text/plain", []byte(file))).must(t, http.StatusCreated)
	id := docID(t, first)

	r := e.do("POST", "/api/v1/documents", bearer(staff), formFile(map[string]string{"title": "Again"}, "copy.txt", "text/plain", []byte(file)))
	msg := r.mustErr(t, http.StatusConflict, "identical")
	if !strings.Contains(msg, fmt.Sprintf("document %d", id)) || !strings.Contains(msg, "duplicate=replace") {
		t.Errorf("409 message %q should name document %d and the way on", msg, id)
	}
	if ex, _ := r.must(t, http.StatusConflict)["existing"].([]any); len(ex) != 1 || ex[0].(map[string]any)["id"].(float64) != float64(id) {
		t.Errorf("existing = %v, want [document %d]", ex, id)
	}

	rep := e.do("POST", "/api/v1/documents?duplicate=replace", bearer(staff),
		formFile(map[string]string{"year": "2021"}, "essay-final.txt", "text/plain", []byte(file))).must(t, http.StatusOK)
	d := doc(t, rep)
	if docID(t, rep) != id || rep["replaced"] != true || d["filename"] != "essay-final.txt" || d["title"] != "Essay" || d["author"] != "Jana" || d["year"].(float64) != 2021 {
		t.Errorf("replace answered %v; want document %d with the new file name and year, the title and author kept", rep, id)
	}
	again := e.do("POST", "/api/v1/documents", bearer(staff),
		formFile(map[string]string{"duplicate": "new"}, "copy.txt", "text/plain", []byte(file))).must(t, http.StatusCreated)
	if docID(t, again) == id || doc(t, again)["title"] != "copy" {
		t.Errorf("duplicate=new answered %v; want a new document titled by its file name", again)
	}
	e.do("POST", "/api/v1/documents?duplicate=maybe", bearer(staff),
		formFile(nil, "x.txt", "text/plain", []byte(words(2, 20)))).mustErr(t, http.StatusBadRequest, "bad_request")
}

// TestAPI_ImportManifest: a manifest and its files in one request; the
// rows land with their details, an identical file is reported on its row,
// a file not named is listed, and a manifest with an error imports nothing.
func TestAPI_ImportManifest(t *testing.T) {
	e := newAPIEnv(t, false, nil)
	staff := e.user("sam", auth.RoleStaff)
	teacher := e.user("tea", auth.RoleTeacher)
	existing := words(3, 50)
	e.do("POST", "/api/v1/documents", bearer(staff), formFile(nil, "old.txt", "text/plain", []byte(existing))).must(t, http.StatusCreated)

	manifest := "file,external_id,title,author,kind,year,restricted\n" +
		"a.txt,T-1,\"Water, and why\",Jana Nováková,thesis,2024,yes\n" +
		"b.txt,,,Petr,essay,,\n" +
		"same.txt,T-3,Same,,,,\n"
	r := e.do("POST", "/api/v1/documents/import", bearer(staff), multiForm(nil,
		[3]string{"manifest", "m.csv", manifest}, [3]string{"file", "a.txt", words(4, 50)}, [3]string{"file", "b.txt", words(5, 50)},
		[3]string{"file", "same.txt", existing}, [3]string{"file", "extra.txt", words(6, 50)})).must(t, http.StatusOK)
	if r["stored"].(float64) != 2 || r["identical"].(float64) != 1 || r["failed"].(float64) != 0 {
		t.Fatalf("import = %v", r)
	}
	if u, _ := r["unlisted"].([]any); len(u) != 1 || u[0] != "extra.txt" {
		t.Errorf("unlisted = %v, want [extra.txt]", r["unlisted"])
	}
	rows := r["rows"].([]any)
	a := rows[0].(map[string]any)
	got := e.do("GET", fmt.Sprintf("/api/v1/documents/%d", int64(a["id"].(float64))), bearer(staff)).must(t, http.StatusOK)
	d := doc(t, got)
	if d["title"] != "Water, and why" || d["author"] != "Jana Nováková" || d["kind"] != "thesis" || d["year"].(float64) != 2024 ||
		d["external_id"] != "T-1" || d["restricted"] != true {
		t.Errorf("row 2 stored as %v", d)
	}
	b := doc(t, e.do("GET", fmt.Sprintf("/api/v1/documents/%d", int64(rows[1].(map[string]any)["id"].(float64))), bearer(staff)).must(t, http.StatusOK))
	if b["title"] != "b" || b["author"] != "Petr" {
		t.Errorf("row 3 stored as %v, want the file name as title", b)
	}
	if s := rows[2].(map[string]any); s["id"] != nil || len(s["identical"].([]any)) != 1 || s["row"].(float64) != 4 {
		t.Errorf("row 4 = %v, want not stored, identical to old.txt", s)
	}

	// an error anywhere: nothing imported, each problem with row and column
	before := e.do("GET", "/api/v1/documents", bearer(staff)).must(t, http.StatusOK)["documents"].([]any)
	bad := e.do("POST", "/api/v1/documents/import", bearer(staff), multiForm(nil,
		[3]string{"manifest", "m.csv", "file,year\nc.txt,2020\nd.txt,twenty\nmissing.txt,\n"},
		[3]string{"file", "c.txt", words(7, 50)}, [3]string{"file", "d.txt", words(8, 50)}))
	bad.mustErr(t, http.StatusBadRequest, "bad_manifest")
	me := bad.must(t, http.StatusBadRequest)["manifest_errors"].([]any)
	if len(me) != 1 || me[0].(map[string]any)["row"].(float64) != 3 || me[0].(map[string]any)["column"] != "year" {
		t.Errorf("manifest_errors = %v, want row 3, column year", me)
	}
	missing := e.do("POST", "/api/v1/documents/import", bearer(staff), multiForm(nil,
		[3]string{"manifest", "m.csv", "file\nc.txt\nmissing.txt\n"}, [3]string{"file", "c.txt", words(7, 50)}))
	if msg := missing.mustErr(t, http.StatusBadRequest, "bad_manifest"); !strings.Contains(msg, `row 3, column file: no file named "missing.txt"`) {
		t.Errorf("missing file: %s", msg)
	}
	after := e.do("GET", "/api/v1/documents", bearer(staff)).must(t, http.StatusOK)["documents"].([]any)
	if len(after) != len(before) {
		t.Errorf("%d documents after refused manifests, %d before", len(after), len(before))
	}
	e.do("POST", "/api/v1/documents/import", bearer(teacher), multiForm(nil,
		[3]string{"manifest", "m.csv", "file\nc.txt\n"}, [3]string{"file", "c.txt", words(7, 50)})).mustErr(t, http.StatusForbidden, "forbidden")
}

// TestAPI_Status: what a waiting page asks: the next run (the daemon's
// prompt run when it comes before the schedule), the last committed run and
// the statuses of the documents named.
func TestAPI_Status(t *testing.T) {
	e := newAPIEnv(t, true, nil)
	teacher := e.user("tea", auth.RoleTeacher)
	staff := e.user("sam", auth.RoleStaff)
	id := docID(t, e.do("POST", "/api/v1/documents", bearer(staff), formFile(nil, "a.txt", "text/plain", []byte(words(9, 60)))).must(t, http.StatusCreated))
	e.runner.mu.Lock()
	e.runner.prompt = time.Now().Add(8 * time.Second)
	e.runner.mu.Unlock()
	st := e.do("GET", fmt.Sprintf("/api/v1/status?documents=%d,999999", id), bearer(teacher)).must(t, http.StatusOK)
	if st["daemon"] != true || st["running"] != false || st["last_run"].(float64) != 0 || st["pending"].(float64) != 1 {
		t.Errorf("status = %v", st)
	}
	if in := st["next_run_in_s"].(float64); in < 6 || in > 8 {
		t.Errorf("next_run_in_s = %v, want about 8 (the prompt run, before the schedule)", in)
	}
	if docs := st["documents"].([]any); len(docs) != 1 || docs[0].(map[string]any)["status"] != "pending" {
		t.Errorf("documents = %v, want only %d, pending", docs, id)
	}
	e.runEngine()
	st = e.do("GET", fmt.Sprintf("/api/v1/status?documents=%d", id), bearer(teacher)).must(t, http.StatusOK)
	if st["last_run"].(float64) == 0 || st["pending"].(float64) != 0 || st["documents"].([]any)[0].(map[string]any)["status"] != "indexed" {
		t.Errorf("after the run: %v", st)
	}
	e.do("GET", "/api/v1/status?documents=1,x", bearer(teacher)).mustErr(t, http.StatusBadRequest, "bad_request")
}

// TestPages_UploadDesk: without scripts, one file lands with the form's
// details; a byte-identical one is not stored again and the page says
// which document it equals; the form is above the list; a manifest with an
// error shows the page with the row and column; a pending report reloads
// itself and says when the next run is due; a failed one gives its reason
// once, without Print, and tells a teacher whom to ask.
func TestPages_UploadDesk(t *testing.T) {
	e := newAPIEnv(t, true, nil)
	e.user("sam", auth.RoleStaff)
	e.user("tea", auth.RoleTeacher)
	cookie, csrf := e.session("sam")
	tc, _ := e.session("tea")
	sess := withSession(cookie, csrf)

	page := string(e.do("GET", "/documents", sess).body)
	if up, list := strings.Index(page, `id="upload-form"`), strings.Index(page, `id="doc-table"`); up < 0 || list < 0 || up > list {
		t.Errorf("the upload form (at %d) should come before the documents table (at %d)", up, list)
	}
	file := words(10, 60)
	fields := map[string]string{"csrf": csrf, "title": "Water", "author": "Jana Nováková", "external_id": "T-9", "kind": "thesis", "year": "2024", "restricted": "on"}
	r := e.do("POST", "/documents", sess, formFile(fields, "water.txt", "text/plain", []byte(file)))
	if r.status != http.StatusSeeOther {
		t.Fatalf("upload: %d %s", r.status, r.body)
	}
	loc, _ := url.Parse(r.header.Get("Location"))
	if !strings.Contains(loc.Query().Get("done"), "1 of 1 files stored") {
		t.Errorf("upload said %q", loc.Query().Get("done"))
	}
	var title, author, ext, kind string
	var year int
	var restricted bool
	var id int64
	if err := e.pool.QueryRow(context.Background(), `select id, title, author, external_id, kind, year, restricted from documents where filename = 'water.txt'`).
		Scan(&id, &title, &author, &ext, &kind, &year, &restricted); err != nil {
		t.Fatal(err)
	}
	if title != "Water" || author != "Jana Nováková" || ext != "T-9" || kind != "thesis" || year != 2024 || !restricted {
		t.Errorf("stored %q %q %q %q %d %v", title, author, ext, kind, year, restricted)
	}

	r = e.do("POST", "/documents", sess, formFile(map[string]string{"csrf": csrf}, "water-again.txt", "text/plain", []byte(file)))
	loc, _ = url.Parse(r.header.Get("Location"))
	if done := loc.Query().Get("done"); !strings.Contains(done, fmt.Sprintf("byte for byte the file of document %d", id)) || !strings.Contains(done, "0 of 1 files stored") {
		t.Errorf("identical upload said %q", done)
	}
	r = e.do("POST", "/documents", sess, formFile(map[string]string{"csrf": csrf, "duplicate": "new"}, "water-again.txt", "text/plain", []byte(file)))
	if loc, _ = url.Parse(r.header.Get("Location")); !strings.Contains(loc.Query().Get("done"), "1 of 1 files stored") {
		t.Errorf("duplicate=new said %q", loc.Query().Get("done"))
	}

	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("csrf", csrf)
	w, _ := mw.CreateFormFile("manifest", "m.csv")
	w.Write([]byte("file,year\nx.txt,twenty\n"))
	w, _ = mw.CreateFormFile("file", "x.txt")
	w.Write([]byte(words(11, 40)))
	mw.Close()
	r = e.do("POST", "/documents/import", sess, body(mw.FormDataContentType(), buf.Bytes()))
	if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "Row 2, column <code>year</code>") ||
		!strings.Contains(string(r.body), "The manifest was not imported") {
		t.Errorf("bad manifest page: %d %.3000s", r.status, r.body)
	}

	// a pending report: the wait, and a reload for browsers without scripts
	e.runner.mu.Lock()
	e.runner.prompt = time.Now().Add(9 * time.Second)
	e.runner.mu.Unlock()
	rep := string(e.do("GET", fmt.Sprintf("/documents/%d", id), withSession(tc, "")).body)
	if !strings.Contains(rep, `<noscript><meta http-equiv="refresh"`) || !strings.Contains(rep, fmt.Sprintf(`data-wait-doc="%d"`, id)) ||
		!strings.Contains(rep, "Waiting for the next run, in about") {
		t.Errorf("pending report lacks the wait or the refresh: %.3000s", rep)
	}
	if strings.Contains(string(e.do("GET", "/documents", sess).body), "http-equiv") {
		t.Errorf("the documents page must not reload itself (app.js refreshes its table)")
	}

	// a failed document: the reason once, no Print, and whom a teacher asks
	bad := docID(t, e.do("POST", "/api/v1/documents", withSession(cookie, csrf), formFile(nil, "scan.pdf", "application/pdf", []byte("%PDF-1.4 not really"))).must(t, http.StatusCreated))
	e.runEngine()
	rep = string(e.do("GET", fmt.Sprintf("/documents/%d", bad), withSession(tc, "")).body)
	var reason string
	e.pool.QueryRow(context.Background(), `select error from document_status where doc_id = $1`, bad).Scan(&reason)
	if reason == "" || strings.Count(rep, reason[:min(len(reason), 30)]) != 1 {
		t.Errorf("the failure reason %q should appear once: %.4000s", reason, rep)
	}
	if strings.Contains(rep, "data-print") || !strings.Contains(rep, "Archive staff (role staff or admin) can replace its file") {
		t.Errorf("failed report for a teacher: Print offered, or no word on whom to ask: %.4000s", rep)
	}
	ov := string(e.do("GET", "/", withSession(tc, "")).body)
	if strings.Contains(ov, "Open one and replace its file") || !strings.Contains(ov, "ask them") {
		t.Errorf("a teacher's overview tells them to do what they cannot: %.3000s", ov)
	}
}
