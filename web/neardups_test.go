package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/plagd/plagd/auth"
)

// ndText is a text of n words drawn Zipf-like from made-up words starting
// with prefix, under a title line. Like prose, a few words carry most of
// the weight, so editing 1 % of the words moves the simhash by 0 to 2 bits
// (over 400 seeds, 3 for 1 in 200); uniformly random words, each used
// once, would move it by about 3 bits, the default distance, and the tests
// would be a coin toss. Different prefixes share no words: such texts are
// about 32 bits apart. The tests use fixed seeds, so they never flake.
func ndText(seed uint64, prefix string, n int) string {
	rng := rand.New(rand.NewPCG(seed, 3))
	vocab := strings.Fields(rtWords(rng, prefix, 500))
	z := rand.NewZipf(rng, 1.5, 2, uint64(len(vocab)-1))
	var b strings.Builder
	b.WriteString("On the " + rtWords(rng, prefix, 4) + "\n\n")
	for i := range n {
		if i > 0 {
			if i%14 == 0 {
				b.WriteString(". ")
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(vocab[z.Uint64()])
	}
	b.WriteString(".\n")
	return b.String()
}

// ndEdit is text with a new title line and k of its words replaced by new
// ones: a lightly edited resubmission (k = 1 % of the words).
func ndEdit(text string, k int) string {
	_, body, _ := strings.Cut(text, "\n\n")
	ws := strings.Split(body, " ")
	for i := range k {
		ws[(i*7919+13)%len(ws)] = fmt.Sprintf("edited%d", i)
	}
	return "A revised version, submitted again\n\n" + strings.Join(ws, " ")
}

// nearIDs reads "near_duplicates" of a response: id → distance. It fails
// the test when the field is missing or not a list.
func nearIDs(t *testing.T, m map[string]any) map[int64]int {
	t.Helper()
	raw, ok := m["near_duplicates"].([]any)
	if !ok {
		t.Fatalf("near_duplicates is %T (%v), want a list", m["near_duplicates"], m["near_duplicates"])
	}
	out := map[int64]int{}
	for _, x := range raw {
		d := x.(map[string]any)
		out[int64(d["id"].(float64))] = int(d["distance"].(float64))
	}
	return out
}

// ndArchive is an API server with a staff and a teacher token and
// sessions.
type ndArchive struct {
	*apiEnv
	staff, teacher, admin string
}

func newNDArchive(t *testing.T) *ndArchive {
	e := newAPIEnv(t, false, nil)
	return &ndArchive{apiEnv: e, staff: e.user("staff", auth.RoleStaff), teacher: e.user("teacher", auth.RoleTeacher),
		admin: e.user("admin", auth.RoleAdmin)}
}

// create uploads a plain text through the API as staff.
func (a *ndArchive) create(title, text string, restricted bool) (int64, map[string]any) {
	a.t.Helper()
	m := a.do("POST", "/api/v1/documents", bearer(a.staff),
		jsonBody(map[string]any{"title": title, "text": text, "restricted": restricted})).must(a.t, http.StatusCreated)
	return docID(a.t, m), m
}

// page gets a page as user (by session), wanting status 200.
func (a *ndArchive) page(user, path string) string {
	a.t.Helper()
	cookie, _ := a.session(user)
	r := a.do("GET", path, withSession(cookie, ""))
	if r.status != http.StatusOK {
		a.t.Fatalf("GET %s as %s: %d\n%.2000s", path, user, r.status, r.body)
	}
	return string(r.body)
}

// TestNearDups_UploadReportAndDelete: an edited copy of a document is
// reported as its near-duplicate in the upload's response, before any run;
// an unrelated text is not; after a run the report and the near-duplicates
// route list it; once the original is deleted it is listed no more.
func TestNearDups_UploadReportAndDelete(t *testing.T) {
	a := newNDArchive(t)
	textA := ndText(1, "a", 600)
	idA, mA := a.create("Original essay", textA, false)
	if got := nearIDs(t, mA); len(got) != 0 {
		t.Fatalf("the first upload has near-duplicates %v", got)
	}
	if _, has := mA["near_duplicates_error"]; has {
		t.Fatalf("near_duplicates_error on a working check: %v", mA["near_duplicates_error"])
	}

	idB, mB := a.create("Resubmitted essay", ndEdit(textA, 6), false)
	got := nearIDs(t, mB)
	if d, ok := got[idA]; !ok || d > a.cfg.NearDup.Distance || len(got) != 1 {
		t.Fatalf("B's upload lists near-duplicates %v, want only A (%d) within %d bits", got, idA, a.cfg.NearDup.Distance)
	}
	nd := mB["near_duplicates"].([]any)[0].(map[string]any)
	if nd["title"] != "Original essay" || nd["pending"] != true || nd["restricted"] != false {
		t.Fatalf("B's near-duplicate entry %v: want A's title, pending (no run yet), not restricted", nd)
	}

	idC, mC := a.create("Unrelated essay", ndText(2, "c", 600), false)
	if got := nearIDs(t, mC); len(got) != 0 {
		t.Fatalf("an unrelated text lists near-duplicates %v", got)
	}

	// before any run: the route knows them from the upload-time hashes
	l := a.do("GET", fmt.Sprintf("/api/v1/documents/%d/near-duplicates", idA), bearer(a.teacher)).must(t, http.StatusOK)
	if got := nearIDs(t, l); len(got) != 1 || l["checked"] != true || int(l["distance"].(float64)) != a.cfg.NearDup.Distance {
		t.Fatalf("A's near-duplicates before a run: %v", l)
	} else if _, ok := got[idB]; !ok {
		t.Fatalf("A's near-duplicates %v lack B (%d)", got, idB)
	}

	a.runEngine()
	rep := a.do("GET", fmt.Sprintf("/api/v1/documents/%d/report", idB), bearer(a.teacher)).must(t, http.StatusOK)
	got = nearIDs(t, rep)
	if d, ok := got[idA]; !ok || d > a.cfg.NearDup.Distance || len(got) != 1 {
		t.Fatalf("B's report lists near-duplicates %v, want A (%d)", got, idA)
	}
	if rep["near_duplicates"].([]any)[0].(map[string]any)["pending"] != false {
		t.Fatalf("A is still pending after the run: %v", rep["near_duplicates"])
	}
	if got := nearIDs(t, a.do("GET", fmt.Sprintf("/api/v1/documents/%d/report", idC), bearer(a.teacher)).must(t, http.StatusOK)); len(got) != 0 {
		t.Fatalf("C's report lists near-duplicates %v", got)
	}

	a.do("DELETE", fmt.Sprintf("/api/v1/documents/%d", idA), bearer(a.staff)).must(t, http.StatusOK)
	if got := nearIDs(t, a.do("GET", fmt.Sprintf("/api/v1/documents/%d/report", idB), bearer(a.teacher)).must(t, http.StatusOK)); len(got) != 0 {
		t.Fatalf("B's report still lists %v after A was deleted", got)
	}
	if got := nearIDs(t, a.do("GET", fmt.Sprintf("/api/v1/documents/%d/near-duplicates", idB), bearer(a.teacher)).must(t, http.StatusOK)); len(got) != 0 {
		t.Fatalf("B's near-duplicates still list %v after A was deleted", got)
	}
	a.do("GET", "/api/v1/documents/999999/near-duplicates", bearer(a.teacher)).mustErr(t, http.StatusNotFound, "not_found")
	a.do("GET", "/api/v1/documents/x/near-duplicates", bearer(a.teacher)).mustErr(t, http.StatusNotFound, "not_found")
}

// TestNearDups_ReplaceAndCheckFailure: replacing a document's text checks
// the new text (PUT answers with near_duplicates; metadata alone does
// not), and a near-duplicate check that cannot be made does not fail the
// upload: it is stored, and the response says the check failed.
func TestNearDups_ReplaceAndCheckFailure(t *testing.T) {
	a := newNDArchive(t)
	textA := ndText(3, "a", 600)
	idA, _ := a.create("Original", textA, false)
	idB, _ := a.create("Another", ndText(4, "b", 600), false)

	m := a.do("PUT", fmt.Sprintf("/api/v1/documents/%d", idB), bearer(a.staff), jsonBody(map[string]any{"text": ndEdit(textA, 6)})).must(t, http.StatusOK)
	if got := nearIDs(t, m); len(got) != 1 || got[idA] > a.cfg.NearDup.Distance {
		t.Fatalf("B's new text lists near-duplicates %v, want A (%d)", got, idA)
	} else if _, ok := got[idA]; !ok {
		t.Fatalf("B's new text lists near-duplicates %v, want A (%d)", got, idA)
	}
	m = a.do("PUT", fmt.Sprintf("/api/v1/documents/%d", idB), bearer(a.staff), jsonBody(map[string]any{"title": "Renamed"})).must(t, http.StatusOK)
	if _, has := m["near_duplicates"]; has {
		t.Fatalf("a metadata update answers with near_duplicates: %v", m["near_duplicates"])
	}

	// the check reads neardup_models first: without it, it fails
	if _, err := a.pool.Exec(context.Background(), `alter table neardup_models rename to neardup_models_gone`); err != nil {
		t.Fatal(err)
	}
	idC, mC := a.create("Copy while broken", textA, false)
	if msg, _ := mC["near_duplicates_error"].(string); !strings.Contains(msg, "could not be made") {
		t.Fatalf("near_duplicates_error %q, want the check reported as not made", msg)
	}
	if got := nearIDs(t, mC); len(got) != 0 {
		t.Fatalf("a failed check lists %v", got)
	}
	if idC == 0 || a.changes(idC) != 1 {
		t.Fatalf("the document was not stored for the next run (id %d)", idC)
	}
}

// TestNearDups_UploadFormWithoutScripts: the upload form's fallback sends
// the browser to the documents page, which gives each stored file its
// verdict with its near-duplicates linked.
func TestNearDups_UploadFormWithoutScripts(t *testing.T) {
	a := newNDArchive(t)
	textA := ndText(5, "a", 600)
	idA, _ := a.create("Original essay", textA, false)

	cookie, csrf := a.session("staff")
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("csrf", csrf)
	for name, text := range map[string]string{"copy.txt": ndEdit(textA, 6), "other.txt": ndText(6, "o", 600)} {
		fw, _ := mw.CreateFormFile("file", name)
		fw.Write([]byte(text))
	}
	mw.Close()
	r := a.do("POST", "/documents", withSession(cookie, ""), body(mw.FormDataContentType(), buf.Bytes()))
	if r.status != http.StatusSeeOther {
		t.Fatalf("form upload: %d %s", r.status, r.body)
	}
	loc, _ := url.Parse(r.header.Get("Location"))
	if done := loc.Query().Get("done"); !strings.Contains(done, "2 of 2 files stored") || !strings.Contains(done, "1 file is a near-duplicate") {
		t.Fatalf("upload message %q", done)
	}
	if n := len(strings.Split(loc.Query().Get("uploaded"), ",")); n != 2 {
		t.Fatalf("uploaded=%q, want the two new ids", loc.Query().Get("uploaded"))
	}
	p := a.page("staff", loc.String())
	want := fmt.Sprintf(`near-duplicate of <a href="/documents/%d">#%d “Original essay”</a> (`, idA, idA)
	if !strings.Contains(p, want) {
		t.Fatalf("the documents page lacks the verdict %q\n%.4000s", want, p)
	}
	for _, w := range []string{`id="uploaded"`, "copy.txt", "other.txt", "; no near-duplicate<"} {
		if !strings.Contains(p, w) {
			t.Errorf("the documents page lacks %q", w)
		}
	}
}

// TestNearDups_ReportPage: the report page shows its near-duplicates first,
// above the figures and the sources, with links to their reports and to the
// side-by-side view; with none, it says so with the distance; a pending
// upload's page lists them before any run.
func TestNearDups_ReportPage(t *testing.T) {
	a := newNDArchive(t)
	textA := ndText(7, "a", 600)
	idA, _ := a.create("Original essay", textA, false)
	idB, _ := a.create("Resubmitted essay", ndEdit(textA, 6), false)
	idC, _ := a.create("Unrelated essay", ndText(8, "c", 600), false)

	// pending, no report yet: the near-duplicates are there already
	p := a.page("teacher", fmt.Sprintf("/documents/%d", idB))
	for _, w := range []string{`id="near-duplicates"`, fmt.Sprintf(`data-neardup="%d"`, idA), `>pending</span>`, "after the next run", "has not been indexed yet"} {
		if !strings.Contains(p, w) {
			t.Errorf("B's pending page lacks %q", w)
		}
	}

	a.runEngine()
	p = a.page("teacher", fmt.Sprintf("/documents/%d", idB))
	nd, src, fig := strings.Index(p, `id="near-duplicates"`), strings.Index(p, `id="sources"`), strings.Index(p, `id="overall"`)
	if nd < 0 || src < 0 || fig < 0 || nd > src || nd > fig {
		t.Fatalf("near-duplicates at %d, figures at %d, sources at %d: want the near-duplicates first", nd, fig, src)
	}
	for _, w := range []string{
		fmt.Sprintf(`<a href="/documents/%d">Original essay</a>`, idA),
		fmt.Sprintf(`href="/documents/%d/compare/%d">Side by side</a>`, idB, idA),
		// A, its earlier version, is listed apart and not counted (issue 19
		// item 4: the resubmission once hid the real source at 98.8 %)
		`id="versions"`, "not counted", `id="versions-toggle"`, "Count them",
	} {
		if !strings.Contains(p, w) {
			t.Errorf("B's report lacks %q", w)
		}
	}
	if strings.Contains(p, fmt.Sprintf(`data-source="%d"`, idA)) {
		t.Errorf("B's report lists its near-duplicate A among the sources")
	}
	withA := a.page("teacher", fmt.Sprintf("/documents/%d?versions=1", idB))
	if !strings.Contains(withA, "counted in the figures, as asked") || overallOf(t, withA) <= overallOf(t, p) {
		t.Errorf("with versions=1 the figure is %v, without %v: want it higher when A counts", overallOf(t, withA), overallOf(t, p))
	}
	if strings.Contains(p[nd:src], ">pending</span>") {
		t.Errorf("A is marked pending after the run")
	}
	a.page("teacher", fmt.Sprintf("/documents/%d/compare/%d", idB, idA)) // the link works

	p = a.page("teacher", fmt.Sprintf("/documents/%d", idC))
	if w := fmt.Sprintf("No near-duplicates: no other document's fingerprint is within %d bits", a.cfg.NearDup.Distance); !strings.Contains(p, w) {
		t.Errorf("C's report lacks %q", w)
	}
	// the filters' partial region does not carry the section (it stays put)
	cookie, _ := a.session("teacher")
	r := a.do("GET", fmt.Sprintf("/documents/%d?partial=1", idB), withSession(cookie, ""))
	if r.status != http.StatusOK || bytes.Contains(r.body, []byte(`id="near-duplicates"`)) {
		t.Errorf("partial region: %d, near-duplicate section present=%v", r.status, bytes.Contains(r.body, []byte(`id="near-duplicates"`)))
	}
}

// TestNearDups_RestrictedForTeacher: near-duplicates follow the sources'
// rule for restricted documents: a teacher sees that a restricted document
// is a near-duplicate (header, distance, flagged), never its text.
func TestNearDups_RestrictedForTeacher(t *testing.T) {
	a := newNDArchive(t)
	textA := ndText(9, "a", 600)
	idA, _ := a.create("Embargoed thesis", textA, true)
	textB := ndEdit(textA, 6)
	idB, mB := a.create("Open copy", textB, false)
	if got := nearIDs(t, mB); len(got) != 1 {
		t.Fatalf("B's upload lists %v, want the restricted A", got)
	}
	a.runEngine()
	aWords := strings.Join(strings.Fields(strings.SplitN(textA, "\n\n", 2)[1])[200:206], " ")

	l := a.do("GET", fmt.Sprintf("/api/v1/documents/%d/near-duplicates", idB), bearer(a.teacher)).must(t, http.StatusOK)
	list := l["near_duplicates"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["restricted"] != true || list[0].(map[string]any)["title"] != "Embargoed thesis" {
		t.Fatalf("teacher: B's near-duplicates %v, want A flagged restricted", list)
	}
	rep := a.do("GET", fmt.Sprintf("/api/v1/documents/%d/report", idB), bearer(a.teacher)).must(t, http.StatusOK)
	if nd := rep["near_duplicates"].([]any); len(nd) != 1 || nd[0].(map[string]any)["restricted"] != true {
		t.Fatalf("teacher: B's report near-duplicates %v", nd)
	}
	raw, _ := json.Marshal(rep["near_duplicates"])
	if strings.Contains(string(raw), aWords) || strings.Contains(string(raw), `"text"`) {
		t.Fatalf("near_duplicates carry text: %s", raw)
	}

	p := a.page("teacher", fmt.Sprintf("/documents/%d", idB))
	nd := p[strings.Index(p, `id="near-duplicates"`):strings.Index(p, `id="sources"`)]
	if !strings.Contains(nd, "Embargoed thesis") || !strings.Contains(nd, "b-restricted") {
		t.Errorf("teacher: the section does not list A as restricted:\n%s", nd)
	}
	c := a.page("teacher", fmt.Sprintf("/documents/%d/compare/%d", idB, idA))
	if !strings.Contains(c, "restricted-notice") || strings.Contains(c, `class="coltext side-source"`) {
		t.Errorf("teacher: the side-by-side view with the restricted near-duplicate shows its text")
	}
	// A's own report: a teacher sees its near-duplicates, not its text
	p = a.page("teacher", fmt.Sprintf("/documents/%d", idA))
	if !strings.Contains(p, fmt.Sprintf(`data-neardup="%d"`, idB)) || !strings.Contains(p, "restricted-notice") || strings.Contains(p, `id="doc-text"`) {
		t.Errorf("teacher: A's report should list B and withhold A's text")
	}
	if c := a.page("admin", fmt.Sprintf("/documents/%d/compare/%d", idB, idA)); !strings.Contains(c, `class="coltext side-source"`) {
		t.Errorf("admin: the side-by-side view withholds the restricted text")
	}
}

// TestNearDups_Check: "check a file now" lists the archive's near-duplicates
// of the checked text first, on the page and in the API, and stores
// nothing.
func TestNearDups_Check(t *testing.T) {
	a := newNDArchive(t)
	textA := ndText(11, "a", 600)
	idA, _ := a.create("Original essay", textA, false)
	a.create("Unrelated essay", ndText(12, "c", 600), false)
	if _, err := a.srv.engine.Run(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	var before int
	a.pool.QueryRow(context.Background(), `select count(*) from simhashes`).Scan(&before)

	m := a.do("POST", "/api/v1/check", bearer(a.teacher), jsonBody(map[string]any{"text": ndEdit(textA, 6)})).must(t, http.StatusOK)
	if got := nearIDs(t, m); len(got) != 1 {
		t.Fatalf("check lists near-duplicates %v, want A (%d)", got, idA)
	} else if _, ok := got[idA]; !ok {
		t.Fatalf("check lists near-duplicates %v, want A (%d)", got, idA)
	}
	if got := nearIDs(t, a.do("POST", "/api/v1/check", bearer(a.teacher), jsonBody(map[string]any{"text": ndText(13, "z", 600)})).must(t, http.StatusOK)); len(got) != 0 {
		t.Fatalf("an unrelated check lists %v", got)
	}

	cookie, csrf := a.session("teacher")
	form := url.Values{"csrf": {csrf}, "text": {ndEdit(textA, 6)}}
	r := a.do("POST", "/check", withSession(cookie, ""), body("application/x-www-form-urlencoded", []byte(form.Encode())))
	if r.status != http.StatusSeeOther {
		t.Fatalf("check form: %d %.500s", r.status, r.body)
	}
	p := string(a.do("GET", r.header.Get("Location"), withSession(cookie, "")).body)
	nd, src := strings.Index(p, `id="near-duplicates"`), strings.Index(p, `id="sources"`)
	if nd < 0 || src < 0 || nd > src {
		t.Fatalf("check page: near-duplicates at %d, sources at %d", nd, src)
	}
	if w := fmt.Sprintf(`href="%s/compare/%d">Side by side</a>`, r.header.Get("Location"), idA); !strings.Contains(p, w) {
		t.Errorf("check page lacks %q", w)
	}
	var after int
	a.pool.QueryRow(context.Background(), `select count(*) from simhashes`).Scan(&after)
	if after != before {
		t.Fatalf("checks stored hashes: %d → %d", before, after)
	}
}

// overallOf is the report page's overall figure, in percent.
func overallOf(t *testing.T, page string) float64 {
	t.Helper()
	return overall(t, page)
}
