package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/plagd/plagd/auth"
	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/passage"
	"github.com/plagd/plagd/report"
	"github.com/plagd/plagd/store"
)

// rtWords makes n made-up words starting with prefix: texts share words
// only where a test copies them.
func rtWords(rng *rand.Rand, prefix string, n int) string {
	const letters = "abcdefghijklmnoprstuvz"
	ws := make([]string, n)
	for i := range ws {
		w := []byte(prefix)
		for k := 3 + rng.IntN(5); k > 0; k-- {
			w = append(w, letters[rng.IntN(len(letters))])
		}
		ws[i] = string(w)
	}
	return strings.Join(ws, " ")
}

// rtArchive is a small archive: a source the essay copies from, a source
// the essay quotes, an essay with a bibliography, and a restricted thesis
// that copies part of the essay.
type rtArchive struct {
	t    *testing.T
	pool *pgxpool.Pool
	cfg  config.Config
	srv  *Server
	base string

	src, quoted, essay, thesis int64
	copied, quote, thesisOwn   string // the copied passage, the quoted one, the thesis's own words
	essayOwn, srcOwn           string
	sessions                   map[string]rtSession
}

type rtSession struct{ cookie, csrf string }

func newRTArchive(t *testing.T, run bool) *rtArchive {
	t.Helper()
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := config.Default()
	cfg.DatabaseURL, cfg.DataDir, cfg.Engine.Nodes = url, t.TempDir(), 1
	cfg.Engine.MinShared = 2
	a := &rtArchive{t: t, pool: pool, cfg: cfg, sessions: map[string]rtSession{}}
	var err error
	if a.srv, err = New(Options{Config: cfg, DB: store.NewDB(pool), Log: zerolog.Nop()}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.srv.Close)
	hs := httptest.NewServer(a.srv.Handler())
	t.Cleanup(hs.Close)
	a.base = hs.URL

	rng := rand.New(rand.NewPCG(42, 1))
	srcText := rtWords(rng, "s", 300)
	quotedText := rtWords(rng, "q", 300)
	sw, qw := strings.Fields(srcText), strings.Fields(quotedText)
	a.copied = strings.Join(sw[100:160], " ")
	a.quote = strings.Join(qw[50:90], " ")
	a.srcOwn = strings.Join(sw[200:230], " ")
	a.essayOwn = rtWords(rng, "e", 120)
	essayText := a.essayOwn + "\n\n" + a.copied + ".\n\n" + rtWords(rng, "e", 150) +
		" as the author wrote, “" + a.quote + "” and then " + rtWords(rng, "e", 200) +
		"\n\nReferences\n" + rtWords(rng, "e", 40) + "\n"
	ew := strings.Fields(a.essayOwn)
	a.thesisOwn = rtWords(rng, "t", 200)
	thesisText := a.thesisOwn + "\n\n" + strings.Join(ew[20:70], " ") + "\n\n" + rtWords(rng, "t", 200)

	ctx := context.Background()
	ins := func(ext, title, author, kind string, year int, text string, restricted bool) int64 {
		var id int64
		if err := pool.QueryRow(ctx, `insert into documents (external_id, title, author, kind, year, text, restricted)
			values ($1, $2, $3, $4, $5, $6, $7) returning id`, ext, title, author, kind, year, text, restricted).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	a.src = ins("src-1", "Water Mills of the Valley", "Marta Horakova", "thesis", 2019, srcText, false)
	a.quoted = ins("src-2", "Letters from the Coast", "Jan Novak", "article", 2015, quotedText, false)
	a.essay = ins("essay-1", "My Essay on Mills", "Anna Student", "essay", 2024, essayText, false)
	a.thesis = ins("thesis-1", "Embargoed Thesis", "Eva Dvorak", "thesis", 2023, thesisText, true)
	if run {
		a.run()
	}
	users := auth.NewStore(pool)
	for name, role := range map[string]auth.Role{"teacher": auth.RoleTeacher, "teacher2": auth.RoleTeacher,
		"staff": auth.RoleStaff, "admin": auth.RoleAdmin} {
		u, err := users.AddUser(ctx, name, role, "a long password "+name)
		if err != nil {
			t.Fatal(err)
		}
		tok, sess, err := users.StartSession(ctx, u.ID, time.Hour, "127.0.0.1", "test")
		if err != nil {
			t.Fatal(err)
		}
		a.sessions[name] = rtSession{tok, sess.CSRF}
	}
	return a
}

func (a *rtArchive) run() {
	a.t.Helper()
	if _, err := a.srv.engine.Run(context.Background(), false); err != nil {
		a.t.Fatalf("run: %v", err)
	}
}

type rtResp struct {
	status int
	header http.Header
	body   string
}

// do sends a request as user ("" anonymous).
func (a *rtArchive) do(user, method, path, contentType string, body io.Reader) rtResp {
	a.t.Helper()
	req, err := http.NewRequest(method, a.base+path, body)
	if err != nil {
		a.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if s, ok := a.sessions[user]; ok {
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: s.cookie})
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return rtResp{resp.StatusCode, resp.Header, string(b)}
}

func (a *rtArchive) get(user, path string) rtResp { return a.do(user, "GET", path, "", nil) }

// multipart posts a form with a file (none when filename is "") as user,
// with the user's CSRF token.
func (a *rtArchive) multipart(user, path string, fields map[string]string, filename string, content []byte) rtResp {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("csrf", a.sessions[user].csrf)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	if filename != "" {
		w, _ := mw.CreateFormFile("file", filename)
		w.Write(content)
	}
	mw.Close()
	return a.do(user, "POST", path, mw.FormDataContentType(), &buf)
}

func (r rtResp) must(t *testing.T, status int, want ...string) rtResp {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d\n%.3000s", r.status, status, r.body)
	}
	for _, w := range want {
		if !strings.Contains(r.body, w) {
			t.Errorf("response lacks %q\n%.4000s", w, r.body)
		}
	}
	return r
}

func (r rtResp) mustNot(t *testing.T, unwanted ...string) {
	t.Helper()
	for _, u := range unwanted {
		if strings.Contains(r.body, u) {
			t.Errorf("response holds %q, which it must not", u)
		}
	}
}

func (r rtResp) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(r.body), &m); err != nil {
		t.Fatalf("not JSON (%v): %.2000s", err, r.body)
	}
	return m
}

var (
	overallRE = regexp.MustCompile(`id="overall">([0-9.]+) %<`)
	markRE    = regexp.MustCompile(`<mark class="hl (c\d+)[^"]*"[^>]*>([^<]*)</mark>`)
	rowRE     = regexp.MustCompile(`<tr data-source="(\d+)" class="([^"]*)"`)
)

// overall reads the big figure of a report page, in percent.
func overall(t *testing.T, body string) float64 {
	t.Helper()
	m := overallRE.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no overall figure in\n%.3000s", body)
	}
	f, _ := strconv.ParseFloat(m[1], 64)
	return f
}

// marked is the text of the highlights of one colour class.
func marked(body, class string) string {
	var b strings.Builder
	for _, m := range markRE.FindAllStringSubmatch(body, -1) {
		if m[1] == class {
			b.WriteString(m[2])
		}
	}
	return b.String()
}

// rows lists the source rows of a report page: id → classes.
func rows(body string) map[int64]string {
	out := map[int64]string{}
	for _, m := range rowRE.FindAllStringSubmatch(body, -1) {
		id, _ := strconv.ParseInt(m[1], 10, 64)
		out[id] = m[2]
	}
	return out
}

func hasKey(m map[int64]string, k int64) bool { _, ok := m[k]; return ok }

func words5(s string) string { return strings.Join(strings.Fields(s)[:5], " ") }

// TestReportPage_HighlightsAndFilters: the teacher's report shows the
// copied passage highlighted in its source's colour, and the filters
// (quotes, minimum similarity, excluded sources) change the figures at once
// from one cached alignment; partial=1 returns the region alone.
func TestReportPage_HighlightsAndFilters(t *testing.T) {
	a := newRTArchive(t, true)
	page := fmt.Sprintf("/documents/%d", a.essay)
	r := a.get("teacher", page).must(t, http.StatusOK, "My Essay on Mills", "Anna Student", "essay", "2024", "essay-1",
		`id="sources"`, `id="doc-text"`, `id="filters"`, `id="print"`, "Water Mills of the Valley", "Marta Horakova",
		`<input type="hidden" name="csrf"`)
	r.mustNot(t, `action="/documents/`+itoa(a.essay)+`/edit"`) // teachers do not edit
	if got := marked(r.body, "c0"); !strings.Contains(got, words5(a.copied)) || !strings.Contains(got, a.copied[len(a.copied)-30:]) {
		t.Fatalf("the copied passage is not highlighted in the first source's colour: %q", got)
	}
	if !strings.Contains(r.body, `href="/documents/`+itoa(a.essay)+`/compare/`+itoa(a.src)+`#p1"`) {
		t.Errorf("the highlight does not link to the side-by-side view")
	}
	if !strings.Contains(r.body, `class="excl"`) {
		t.Errorf("no excluded (greyed) text: the quotation and the bibliography are excluded by default")
	}
	rs := rows(r.body)
	if _, ok := rs[a.quoted]; !ok || len(rs) != 3 { // the quoted source is listed, without passages
		t.Fatalf("source rows %v: want the three sources", rs)
	}
	withQuotesExcluded := overall(t, r.body)

	// quotes=0: the quotation counts, the figure rises.
	r = a.get("teacher", page+"?quotes=0").must(t, http.StatusOK)
	withQuotes := overall(t, r.body)
	if withQuotes <= withQuotesExcluded {
		t.Fatalf("overall figure with quotations %v, without %v: want it higher with them", withQuotes, withQuotesExcluded)
	}
	if got := marked(r.body, "c2"); !strings.Contains(got, words5(a.quote)) {
		t.Fatalf("with quotations counted, the quoted passage is not highlighted: %q", got)
	}

	// The API's figures are the page's.
	rep := a.get("teacher", "/api/v1/documents/"+itoa(a.essay)+"/report").must(t, http.StatusOK).json(t)
	if got := rep["coverage"].(float64) * 100; fmt.Sprintf("%.1f", got) != fmt.Sprintf("%.1f", withQuotesExcluded) {
		t.Fatalf("API coverage %v, page %v", got, withQuotesExcluded)
	}
	sims := map[int64]float64{}
	for _, s := range rep["sources"].([]any) {
		m := s.(map[string]any)
		sims[int64(m["id"].(float64))] = m["similarity"].(float64)
	}

	// min between the first source's similarity and the others': only it stays.
	min := (sims[a.src] + max(sims[a.thesis], sims[a.quoted])) / 2 * 100
	if sims[a.src] <= sims[a.thesis] || sims[a.src] <= sims[a.quoted] {
		t.Fatalf("similarities %v: want the copied source first", sims)
	}
	r = a.get("teacher", page+"?min="+strconv.FormatFloat(min, 'f', 3, 64)).must(t, http.StatusOK, "below the minimum similarity")
	if rs := rows(r.body); len(rs) != 1 || !hasKey(rs, a.src) {
		t.Fatalf("with min %.3f %%: rows %v, want only source %d", min, rs, a.src)
	}

	// exclude the first source: listed, ticked, not counted; the figure drops.
	r = a.get("teacher", page+"?exclude="+itoa(a.src)).must(t, http.StatusOK)
	if rs := rows(r.body); !strings.Contains(rs[a.src], "excluded") || len(rs) != 3 {
		t.Fatalf("excluded source's row: %v", rs)
	}
	if !regexp.MustCompile(`name="exclude" value="` + itoa(a.src) + `" form="filters" checked`).MatchString(r.body) {
		t.Errorf("the excluded source's box is not ticked")
	}
	if got := overall(t, r.body); got >= withQuotesExcluded {
		t.Fatalf("excluding the main source leaves the figure at %v (was %v)", got, withQuotesExcluded)
	}
	if got := marked(r.body, "c0"); got != "" {
		t.Fatalf("the excluded source is still highlighted: %q", got)
	}

	// The form's own encoding: checkbox "1" then hidden "0".
	r = a.get("teacher", page+"?quotes=1&quotes=0").must(t, http.StatusOK)
	if got := overall(t, r.body); got != withQuotesExcluded {
		t.Fatalf("quotes=1&quotes=0 gives %v, want %v: a ticked box wins over its hidden 0", got, withQuotesExcluded)
	}
	a.get("teacher", page+"?min=abc").must(t, http.StatusBadRequest)

	// partial=1: the region alone, with the same figure.
	r = a.get("teacher", page+"?quotes=0&partial=1").must(t, http.StatusOK, `id="report-region"`, `data-query="quotes=0"`)
	if !strings.HasPrefix(strings.TrimSpace(r.body), `<div id="report-region"`) || strings.Contains(r.body, "<html") ||
		strings.Contains(r.body, `id="filters"`) {
		t.Fatalf("partial=1 is not just the region:\n%.1500s", r.body)
	}
	if got := overall(t, r.body); got != withQuotes {
		t.Fatalf("partial figure %v, full page %v", got, withQuotes)
	}

	// One alignment for all of it.
	if cached, builds := a.srv.reports.stats(); cached != 1 || builds != 1 {
		t.Fatalf("report cache: %d cached, %d alignments; want 1 and 1", cached, builds)
	}

	// Staff see the edit and delete forms, with CSRF tokens.
	a.get("staff", page).must(t, http.StatusOK, `action="/documents/`+itoa(a.essay)+`/edit"`,
		`action="/documents/`+itoa(a.essay)+`/delete"`, `name="restricted"`, `name="external_id"`,
		`name="csrf" value="`+a.sessions["staff"].csrf+`"`)

	// Print: the stylesheet and the button.
	a.get("", "/static/report.css").must(t, http.StatusOK, "@media print", "print-color-adjust: exact", "break-inside: avoid", ".filterbar, .report-tools")
	a.get("", "/static/report.js").must(t, http.StatusOK, "window.print", "partial")

	// Unknown and pending documents.
	a.get("teacher", "/documents/999999").must(t, http.StatusNotFound)
	var pending int64
	if err := a.pool.QueryRow(context.Background(), `insert into documents (title, text) values ('Fresh', 'new words here') returning id`).Scan(&pending); err != nil {
		t.Fatal(err)
	}
	a.get("teacher", "/documents/"+itoa(pending)).must(t, http.StatusOK, "not been indexed yet").mustNot(t, `id="overall"`)
}

// TestReportPage_CommonText: a declaration that 13 documents carry (more
// than the automatic df cap of a small archive, 10) is common text. No pair
// of documents is similar for it; the report greys it, says in how many
// documents it is found, leaves it out of the figures and of the passages;
// the teacher's switch (common=0) counts it, and the figure rises.
func TestReportPage_CommonText(t *testing.T) {
	a := newRTArchive(t, false)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 7))
	declaration := rtWords(rng, "d", 60)
	prepend := func(id int64) {
		if _, err := a.pool.Exec(ctx, `update documents set text = $2 || E'\n\n' || text where id = $1`, id, declaration); err != nil {
			t.Fatal(err)
		}
	}
	prepend(a.essay)
	prepend(a.src)
	var carriers []int64
	for i := range 11 {
		var id int64
		if err := a.pool.QueryRow(ctx, `insert into documents (external_id, kind, text) values ($1, 'thesis', $2) returning id`,
			"carrier-"+itoa(int64(i)), declaration+"\n\n"+rtWords(rng, "c"+itoa(int64(i)), 200)).Scan(&id); err != nil {
			t.Fatal(err)
		}
		carriers = append(carriers, id)
	}
	a.run()
	var rows int
	if err := a.pool.QueryRow(ctx, `select count(*) from similarities where doc_id = any($1) or other_id = any($1)`, carriers).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != 0 {
		t.Fatalf("%d similarity rows for documents that share only the declaration: want none", rows)
	}

	page := fmt.Sprintf("/documents/%d", a.essay)
	r := a.get("teacher", page).must(t, http.StatusOK, `class="excl common"`, "Common text, found in 13 documents",
		`name="common" value="1" checked`, "common text: found in many documents")
	if got := marked(r.body, "c0"); strings.Contains(got, words5(declaration)) || !strings.Contains(got, words5(a.copied)) {
		t.Fatalf("highlights %q: want the copied passage and not the declaration", got)
	}
	left := overall(t, r.body)

	r = a.get("teacher", page+"?common=0").must(t, http.StatusOK, "common text, counted")
	if got := marked(r.body, "c0"); !strings.Contains(got, words5(declaration)) {
		t.Fatalf("with common text counted, the declaration shared with the source is not highlighted: %q", got)
	}
	if counted := overall(t, r.body); counted <= left {
		t.Fatalf("overall figure %v with common text counted, %v without: want it higher", counted, left)
	}

	rep := a.get("teacher", "/api/v1/documents/"+itoa(a.essay)+"/report").must(t, http.StatusOK).json(t)
	common, _ := rep["common"].([]any)
	if len(common) != 1 || common[0].(map[string]any)["docs"].(float64) != 13 {
		t.Fatalf("API common text %v: want one range found in 13 documents", rep["common"])
	}
	if ex := rep["filter"].(map[string]any)["exclusions"].(map[string]any); ex["common"] != true {
		t.Fatalf("API filter exclusions %v: want common text left out by default", ex)
	}
}

// TestReportPage_Compare: the side-by-side view numbers the passages,
// links each highlight to its counterpart, and shows context.
func TestReportPage_Compare(t *testing.T) {
	a := newRTArchive(t, true)
	r := a.get("teacher", fmt.Sprintf("/documents/%d/compare/%d", a.essay, a.src)).must(t, http.StatusOK,
		`id="compare"`, `class="coltext side-doc"`, `class="coltext side-source"`, `id="a1"`, `id="b1"`,
		`href="#b1"`, `href="#a1"`, `<tr id="p1">`, "Water Mills of the Valley", "Back to the report",
		`<span class="who">This text:</span>`, `<span class="who">Source 1:</span>`, "Open the source's own report")
	if got := marked(r.body, "c0"); !strings.Contains(got, words5(a.copied)) {
		t.Fatalf("the passage is not highlighted: %q", got)
	}
	// Figures both ways.
	if n := strings.Count(r.body, `class="fig"`); n != 5 {
		t.Errorf("%d figures, want similarity both ways, shared chunks and coverage both ways", n)
	}
	a.get("teacher", fmt.Sprintf("/documents/%d/compare/%d", a.essay, 999999)).must(t, http.StatusNotFound)
	// The quoted source: no passage with quotes excluded, one without.
	a.get("teacher", fmt.Sprintf("/documents/%d/compare/%d", a.essay, a.quoted)).must(t, http.StatusOK, "No passages")
	a.get("teacher", fmt.Sprintf("/documents/%d/compare/%d?quotes=0", a.essay, a.quoted)).must(t, http.StatusOK, `<tr id="p1">`)
}

// TestReportPage_Restricted: a restricted document's text reaches admins
// only, whether it is the report's document or one of its sources, on the
// pages and in the API; figures and headers reach everyone. The flag is
// read fresh, not from the cached report.
func TestReportPage_Restricted(t *testing.T) {
	a := newRTArchive(t, true)
	thesisWords := words5(a.thesisOwn)

	// The restricted thesis's own report.
	for _, user := range []string{"teacher", "staff"} {
		r := a.get(user, "/documents/"+itoa(a.thesis)).must(t, http.StatusOK, "Embargoed Thesis", "Eva Dvorak", "restricted-notice", `id="overall"`, "My Essay on Mills")
		r.mustNot(t, thesisWords, `id="doc-text"`)
		c := a.get(user, fmt.Sprintf("/documents/%d/compare/%d", a.thesis, a.essay)).must(t, http.StatusOK, "restricted-notice", `class="coltext side-source"`)
		c.mustNot(t, thesisWords, `class="coltext side-doc"`)
		j := a.get(user, "/api/v1/documents/"+itoa(a.thesis)+"/report").must(t, http.StatusOK).json(t)
		if _, has := j["text"]; has || j["text_withheld"] != true || j["restricted"] != true {
			t.Fatalf("%s: API report of the restricted thesis: text present=%v, withheld=%v, restricted=%v", user, has, j["text_withheld"], j["restricted"])
		}
	}
	a.get("admin", "/documents/"+itoa(a.thesis)).must(t, http.StatusOK, thesisWords, `id="doc-text"`).mustNot(t, "restricted-notice")
	j := a.get("admin", "/api/v1/documents/"+itoa(a.thesis)+"/report").must(t, http.StatusOK).json(t)
	if !strings.Contains(fmt.Sprint(j["text"]), thesisWords) || j["restricted"] != true {
		t.Fatalf("admin: API report of the restricted thesis lacks its text")
	}

	// The thesis as a source of the essay.
	for _, user := range []string{"teacher", "staff"} {
		r := a.get(user, "/documents/"+itoa(a.essay)).must(t, http.StatusOK, "Embargoed Thesis", `data-source="`+itoa(a.thesis)+`"`)
		r.mustNot(t, thesisWords)
		c := a.get(user, fmt.Sprintf("/documents/%d/compare/%d", a.essay, a.thesis)).must(t, http.StatusOK, "restricted-notice", `class="coltext side-doc"`, "Restricted text")
		c.mustNot(t, thesisWords, `class="coltext side-source"`)
		j := a.get(user, "/api/v1/documents/"+itoa(a.essay)+"/report").must(t, http.StatusOK).json(t)
		for _, s := range j["sources"].([]any) {
			m := s.(map[string]any)
			_, has := m["text"]
			restricted := int64(m["id"].(float64)) == a.thesis
			if restricted == has || (m["restricted"] == true) != restricted || (m["text_withheld"] == true) != restricted {
				t.Fatalf("%s: API source %v: text present %v, restricted %v, withheld %v", user, m["id"], has, m["restricted"], m["text_withheld"])
			}
		}
		if !strings.Contains(fmt.Sprint(j["text"]), words5(a.essayOwn)) {
			t.Fatalf("%s: the essay's own text is missing from its API report", user)
		}
		p := a.get(user, fmt.Sprintf("/api/v1/documents/%d/report/%d", a.essay, a.thesis)).must(t, http.StatusOK).json(t)
		src := p["source"].(map[string]any)
		if src["restricted"] != true || src["text_withheld"] != true || p["similarity"].(float64) <= 0 {
			t.Fatalf("%s: pair report header %v", user, p)
		}
		for _, x := range p["passages"].([]any) {
			pm := x.(map[string]any)
			if _, has := pm["source_text"]; has || pm["doc_text"] == nil {
				t.Fatalf("%s: pair passage %v: want the essay's excerpt only", user, pm)
			}
		}
		if len(p["passages"].([]any)) == 0 {
			t.Fatalf("%s: pair report without passages", user)
		}
	}
	a.get("admin", fmt.Sprintf("/documents/%d/compare/%d", a.essay, a.thesis)).must(t, http.StatusOK, thesisWords, `class="coltext side-source"`).mustNot(t, "restricted-notice")
	p := a.get("admin", fmt.Sprintf("/api/v1/documents/%d/report/%d", a.essay, a.thesis)).must(t, http.StatusOK).json(t)
	if pm := p["passages"].([]any)[0].(map[string]any); pm["source_text"] == nil || pm["doc_text"] != pm["source_text"] {
		t.Fatalf("admin: pair passage %v: want both excerpts, equal (a verbatim copy)", pm)
	}
	a.get("teacher", fmt.Sprintf("/api/v1/documents/%d/report/%d", a.essay, 999999)).must(t, http.StatusNotFound, `"not_found"`)

	// Restricting a source after its report was cached hides it at once.
	a.get("teacher", fmt.Sprintf("/documents/%d/compare/%d", a.essay, a.src)).must(t, http.StatusOK, words5(a.srcOwn))
	if _, err := a.pool.Exec(context.Background(), `update documents set restricted = true where id = $1`, a.src); err != nil {
		t.Fatal(err)
	}
	a.get("teacher", fmt.Sprintf("/documents/%d/compare/%d", a.essay, a.src)).must(t, http.StatusOK, "restricted-notice").mustNot(t, words5(a.srcOwn))
}

// TestCheck_Flow: checking a text stores nothing, shows the report to its
// owner only, and says clearly when there is no index yet or the file has
// no text.
func TestCheck_Flow(t *testing.T) {
	a := newRTArchive(t, false)
	rng := rand.New(rand.NewPCG(7, 7))
	essayText := rtWords(rng, "d", 100) + "\n\n" + a.copied + "\n\n" + rtWords(rng, "d", 100)

	// Before any run: a clear message, not a 500.
	a.multipart("teacher", "/check", map[string]string{"text": essayText}, "", nil).must(t, http.StatusServiceUnavailable, "no run has committed yet")
	tok := a.token("teacher")
	a.api(tok, "POST", "/api/v1/check", "application/json", []byte(`{"text": "some words to check"}`)).
		must(t, http.StatusServiceUnavailable, `"no_index"`, "no run has committed yet")
	a.run()

	count := func() int {
		var n int
		if err := a.pool.QueryRow(context.Background(), `select (select count(*) from documents) + (select count(*) from document_texts) + (select count(*) from runs)`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := count()
	a.get("teacher", "/check").must(t, http.StatusOK, `action="/check"`, `enctype="multipart/form-data"`, `name="file"`, `name="text"`,
		`name="csrf" value="`+a.sessions["teacher"].csrf+`"`)
	r := a.multipart("teacher", "/check", map[string]string{}, "draft.txt", []byte(essayText)).must(t, http.StatusSeeOther)
	loc := r.header.Get("Location")
	if !strings.HasPrefix(loc, "/check/") || len(loc) < 20 {
		t.Fatalf("check redirects to %q", loc)
	}
	res := a.get("teacher", loc).must(t, http.StatusOK, "draft.txt", "Water Mills of the Valley", `id="overall"`, "not stored")
	if got := marked(res.body, "c0"); !strings.Contains(got, words5(a.copied)) {
		t.Fatalf("the check does not highlight the copied passage: %q", got)
	}
	if overall(t, res.body) <= 0 {
		t.Fatalf("the check's figure is 0")
	}
	a.get("teacher", loc+"?partial=1&min=99").must(t, http.StatusOK, `id="report-region"`)
	a.get("teacher", fmt.Sprintf("%s/compare/%d", loc, a.src)).must(t, http.StatusOK, `id="a1"`, `id="b1"`, "draft.txt")
	a.get("teacher2", loc).must(t, http.StatusNotFound)
	a.get("admin", loc).must(t, http.StatusNotFound)
	a.get("teacher2", fmt.Sprintf("%s/compare/%d", loc, a.src)).must(t, http.StatusNotFound)
	a.get("teacher", "/check/nonexistent").must(t, http.StatusNotFound)

	// Pasted text, and the restricted thesis among the sources: its
	// side of the side-by-side view is withheld from a teacher.
	r = a.multipart("teacher", "/check", map[string]string{"text": a.essayOwn}, "", nil).must(t, http.StatusSeeOther)
	loc = r.header.Get("Location")
	a.get("teacher", loc).must(t, http.StatusOK, "Pasted text", "Embargoed Thesis")
	a.get("teacher", fmt.Sprintf("%s/compare/%d", loc, a.thesis)).must(t, http.StatusOK, "restricted-notice").mustNot(t, words5(a.thesisOwn))

	// Errors: nothing to check, a file without text.
	a.multipart("teacher", "/check", map[string]string{"text": "  "}, "", nil).must(t, http.StatusBadRequest, "nothing to check")
	a.multipart("teacher", "/check", nil, "scan.pdf", []byte("%PDF-1.4 garbage")).must(t, http.StatusUnprocessableEntity, "scan.pdf", `class="error"`)

	// The API: JSON text, a file, and a file without text.
	j := a.api(tok, "POST", "/api/v1/check?quotes=0", "application/json",
		[]byte(`{"text": `+strconv.Quote(essayText)+`, "filename": "e.txt"}`)).must(t, http.StatusOK).json(t)
	if j["filename"] != "e.txt" || !strings.Contains(fmt.Sprint(j["text"]), words5(a.copied)) || len(j["sources"].([]any)) == 0 {
		t.Fatalf("API check: %v", j)
	}
	if f := j["filter"].(map[string]any)["exclusions"].(map[string]any); f["quotes"] != false || f["bibliography"] != true {
		t.Fatalf("API check filter %v", f)
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	w, _ := mw.CreateFormFile("file", "scan.pdf")
	w.Write([]byte("%PDF-1.4 garbage"))
	mw.Close()
	form := buf.Bytes()
	a.do("teacher", "POST", "/api/v1/check", mw.FormDataContentType(), bytes.NewReader(form)).must(t, http.StatusForbidden) // a session needs its CSRF token
	a.api(tok, "POST", "/api/v1/check", mw.FormDataContentType(), form).must(t, http.StatusUnprocessableEntity, `"unprocessable"`, "scan.pdf")
	a.api(tok, "POST", "/api/v1/check", "application/json", []byte(`{"text": "  "}`)).must(t, http.StatusBadRequest, `"bad_request"`)
	a.api(tok, "POST", "/api/v1/check?min=x", "application/json", []byte(`{"text": "a b c"}`)).must(t, http.StatusBadRequest)

	if after := count(); after != before {
		t.Fatalf("checks stored something: %d rows before, %d after", before, after)
	}
}

// token makes an API token for user.
func (a *rtArchive) token(user string) string {
	a.t.Helper()
	tok, _, err := auth.NewStore(a.pool).CreateToken(context.Background(), user, "test", 0)
	if err != nil {
		a.t.Fatal(err)
	}
	return tok
}

func (a *rtArchive) api(tok, method, path, contentType string, body []byte) rtResp {
	a.t.Helper()
	req, _ := http.NewRequest(method, a.base+path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+tok)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return rtResp{resp.StatusCode, resp.Header, string(b)}
}

// TestReportAPI_Shape pins the JSON of the report routes.
func TestReportAPI_Shape(t *testing.T) {
	a := newRTArchive(t, true)
	tok := a.token("admin")
	r := a.api(tok, "GET", fmt.Sprintf("/api/v1/documents/%d/report?exclude=%d&min=0.5", a.essay, a.quoted), "", nil).must(t, http.StatusOK)
	var rep struct {
		Doc        int64   `json:"doc"`
		ExternalID string  `json:"external_id"`
		Title      string  `json:"title"`
		Author     string  `json:"author"`
		Kind       string  `json:"kind"`
		Year       int     `json:"year"`
		Restricted *bool   `json:"restricted"`
		Status     string  `json:"status"`
		Coverage   float64 `json:"coverage"`
		Chunks     int     `json:"chunks"`
		Text       string  `json:"text"`
		Excluded   []passage.Range
		Filter     report.Filter `json:"filter"`
		Sources    []struct {
			ID         int64             `json:"id"`
			Title      string            `json:"title"`
			Author     string            `json:"author"`
			Restricted *bool             `json:"restricted"`
			Similarity float64           `json:"similarity"`
			Reverse    float64           `json:"reverse"`
			Shared     int               `json:"shared_chunks"`
			Passages   []passage.Passage `json:"passages"`
			CoverageA  float64           `json:"coverage_doc"`
			CoverageB  float64           `json:"coverage_source"`
			Text       string            `json:"text"`
		} `json:"sources"`
	}
	if err := json.Unmarshal([]byte(r.body), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Doc != a.essay || rep.Title != "My Essay on Mills" || rep.Author != "Anna Student" || rep.Kind != "essay" || rep.Year != 2024 ||
		rep.ExternalID != "essay-1" || rep.Restricted == nil || *rep.Restricted || rep.Status != "indexed" || rep.Chunks == 0 ||
		rep.Coverage <= 0 || len(rep.Excluded) == 0 || rep.Text == "" {
		t.Fatalf("report header: %s", r.body[:min(len(r.body), 1500)])
	}
	if !slices.Equal(rep.Filter.ExcludeSources, []int64{a.quoted}) || rep.Filter.MinSimilarity != 0.005 || !rep.Filter.Exclusions.Quotes {
		t.Fatalf("filter %+v", rep.Filter)
	}
	if len(rep.Sources) != 2 || rep.Sources[0].ID != a.src {
		t.Fatalf("sources %+v", rep.Sources)
	}
	s := rep.Sources[0]
	if s.Title != "Water Mills of the Valley" || s.Author != "Marta Horakova" || s.Restricted == nil || s.Similarity <= 0 || s.Reverse <= 0 ||
		s.Shared == 0 || len(s.Passages) != 1 || s.CoverageA <= 0 || s.CoverageB <= 0 || s.Text == "" {
		t.Fatalf("source %+v", s)
	}
	p := s.Passages[0]
	if rep.Text[p.AStart:p.AEnd] != a.copied || s.Text[p.BStart:p.BEnd] != a.copied {
		t.Fatalf("passage offsets do not cut the copied text")
	}
	if th := rep.Sources[1]; th.ID != a.thesis || th.Restricted == nil || !*th.Restricted || th.Text == "" {
		t.Fatalf("the thesis, restricted, with its text for an admin: %+v", th)
	}

	// A document with no report yet: 409 no_report; unknown: 404.
	var pending int64
	if err := a.pool.QueryRow(context.Background(), `insert into documents (title, text) values ('Fresh', 'new words') returning id`).Scan(&pending); err != nil {
		t.Fatal(err)
	}
	a.api(tok, "GET", "/api/v1/documents/"+itoa(pending)+"/report", "", nil).must(t, http.StatusConflict, `"no_report"`)
	a.api(tok, "GET", "/api/v1/documents/999999/report", "", nil).must(t, http.StatusNotFound, `"not_found"`)
	a.api(tok, "GET", "/api/v1/documents/x/report", "", nil).must(t, http.StatusNotFound, `"not_found"`)

	// The pair report.
	r = a.api(tok, "GET", fmt.Sprintf("/api/v1/documents/%d/report/%d", a.essay, a.src), "", nil).must(t, http.StatusOK)
	var pair struct {
		Document, Source struct {
			ID         int64  `json:"id"`
			Title      string `json:"title"`
			Restricted *bool  `json:"restricted"`
		}
		Rank           int                `json:"rank"`
		Similarity     float64            `json:"similarity"`
		Reverse        float64            `json:"reverse"`
		Shared         int                `json:"shared_chunks"`
		CoverageDoc    float64            `json:"coverage_doc"`
		CoverageSource float64            `json:"coverage_source"`
		Exclusions     passage.Exclusions `json:"exclusions"`
		Passages       []struct {
			passage.Passage
			DocText    string `json:"doc_text"`
			SourceText string `json:"source_text"`
		} `json:"passages"`
	}
	if err := json.Unmarshal([]byte(r.body), &pair); err != nil {
		t.Fatal(err)
	}
	if pair.Document.ID != a.essay || pair.Source.ID != a.src || pair.Rank != 1 || pair.Similarity <= 0 || pair.Reverse <= 0 || pair.Shared == 0 ||
		pair.CoverageDoc <= 0 || pair.CoverageSource <= 0 || !pair.Exclusions.Bibliography || len(pair.Passages) != 1 ||
		pair.Passages[0].DocText != a.copied || pair.Passages[0].SourceText != a.copied || pair.Passages[0].AEnd == 0 {
		t.Fatalf("pair report: %s", r.body)
	}
}

// ---- pure parts ----

func TestReportQuery_Parse(t *testing.T) {
	for _, c := range []struct {
		q    string
		want reportQuery
		bad  bool
	}{
		{"", reportQuery{Quotes: true, Bib: true, Blocks: true, Common: true}, false},
		{"min=5&exclude=3&exclude=4,5&quotes=0&source=9", reportQuery{Min: 5, MinText: "5", Exclude: []int64{3, 4, 5}, Quotes: false, Bib: true, Blocks: false, Common: true, Source: 9}, false},
		{"min=2,5%25&quotes=1&quotes=0&bib=1&bib=0&bib=0", reportQuery{Min: 2.5, MinText: "2.5", Quotes: true, Bib: true, Blocks: true, Common: true}, false},
		{"bib=0&blocks=1&quotes=0", reportQuery{Quotes: false, Bib: false, Blocks: true, Common: true}, false},
		{"quotes=0&quotes=0", reportQuery{Quotes: false, Bib: true, Blocks: false, Common: true}, false},
		{"common=0", reportQuery{Quotes: true, Bib: true, Blocks: true, Common: false}, false},
		{"words=8&common=0", reportQuery{Words: 8, Quotes: true, Bib: true, Blocks: true, Common: false}, false},
		{"versions=1", reportQuery{Quotes: true, Bib: true, Blocks: true, Common: true, Versions: true}, false},
		{"versions=maybe", reportQuery{}, true},
		{"words=-1", reportQuery{}, true},
		{"words=many", reportQuery{}, true},
		{"common=2", reportQuery{}, true},
		{"min=-1", reportQuery{}, true},
		{"min=101", reportQuery{}, true},
		{"min=NaN", reportQuery{}, true},
		{"exclude=x", reportQuery{}, true},
		{"quotes=maybe", reportQuery{}, true},
		{"source=0", reportQuery{}, true},
	} {
		v, _ := url.ParseQuery(c.q)
		got, err := parseReportQuery(v)
		if c.bad {
			if err == nil || !errors.Is(err, errBadRequest) {
				t.Errorf("%q: err %v, want a bad request", c.q, err)
			}
			continue
		}
		if err != nil || fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%q: %+v, %v; want %+v", c.q, got, err, c.want)
		}
		// values() round-trips
		back, err := parseReportQuery(got.values(true))
		if err != nil || fmt.Sprint(back) != fmt.Sprint(got) {
			t.Errorf("%q: values %q parse to %+v", c.q, got.values(true).Encode(), back)
		}
	}
}

func TestSegmentText(t *testing.T) {
	text := "0123456789abcdefghij"
	spans := []span{{r: passage.Range{Start: 2, End: 8}, rank: 1, src: 20, n: 1}, {r: passage.Range{Start: 5, End: 12}, rank: 0, src: 10, n: 1}}
	ex := []passage.Range{{Start: 10, End: 15}}
	segs := segmentText(text, spans, ex, nil, func(_ int, active []span, excluded bool) segment {
		s := segment{}
		for _, a := range active {
			s.Class += strconv.FormatInt(a.src, 10) + " "
		}
		if excluded {
			s.Class += "x"
		}
		return s
	})
	var got []string
	var all strings.Builder
	for _, s := range segs {
		got = append(got, s.Text+"|"+s.Class)
		all.WriteString(s.Text)
	}
	want := []string{"01|", "234|20 ", "567|20 10 ", "89|10 ", "ab|10 x", "cde|x", "fghij|"}
	if !slices.Equal(got, want) || all.String() != text {
		t.Fatalf("segments %q, want %q", got, want)
	}
}

func TestMakeExcerpt(t *testing.T) {
	text := "one two three four five six seven eight nine ten"
	i := strings.Index(text, "five")
	e := makeExcerpt(text, i, i+len("five six"), 2)
	if e.Before != "…three four " || e.Match != "five six" || e.After != " seven eight…" {
		t.Fatalf("excerpt %+v", e)
	}
	e = makeExcerpt(text, 0, 3, 30)
	if e.Before != "" || e.Match != "one" || !strings.HasSuffix(e.After, "ten") {
		t.Fatalf("excerpt at the start %+v", e)
	}
}

func TestCheckCache_OwnerTTLAndBounds(t *testing.T) {
	c := newCheckCache(2, time.Hour)
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	c.now = func() time.Time { return now }
	e1 := c.put(1, "a.txt", report.Report{Text: "a"}, nearDupResult{})
	if _, ok := c.get(e1.Key, 1); !ok {
		t.Fatal("owner cannot read their check")
	}
	if _, ok := c.get(e1.Key, 2); ok {
		t.Fatal("another user reads the check")
	}
	if _, ok := c.get(e1.Key, 0); ok {
		t.Fatal("nobody reads the check")
	}
	now = now.Add(30 * time.Minute)
	e2 := c.put(1, "b.txt", report.Report{Text: "b"}, nearDupResult{})
	e3 := c.put(1, "c.txt", report.Report{Text: "c"}, nearDupResult{})
	if _, ok := c.get(e1.Key, 1); ok {
		t.Fatal("the oldest check outlived the entry bound")
	}
	if e2.Key == e3.Key {
		t.Fatal("keys repeat")
	}
	now = now.Add(31 * time.Minute)
	if _, ok := c.get(e2.Key, 1); !ok {
		t.Fatal("a check younger than the TTL is gone")
	}
	now = now.Add(30 * time.Minute)
	if _, ok := c.get(e2.Key, 1); ok {
		t.Fatal("a check older than the TTL is still there")
	}
	c.maxBytes = 10
	c.put(3, "", report.Report{Text: strings.Repeat("x", 8)}, nearDupResult{})
	c.put(3, "", report.Report{Text: strings.Repeat("y", 8)}, nearDupResult{})
	if c.order.Len() != 1 || c.bytes != 8 {
		t.Fatalf("byte bound: %d entries, %d bytes", c.order.Len(), c.bytes)
	}
}

func TestReportCache_LRUAndOneBuild(t *testing.T) {
	c := newReportCache(2)
	ctx := context.Background()
	var mu sync.Mutex
	built := map[reportKey]int{}
	build := func(k reportKey) func(context.Context) (report.Report, error) {
		return func(context.Context) (report.Report, error) {
			time.Sleep(20 * time.Millisecond)
			mu.Lock()
			built[k]++
			mu.Unlock()
			return report.Report{Doc: k.doc}, nil
		}
	}
	k1, k2, k3 := reportKey{doc: 1, run: 1}, reportKey{doc: 2, run: 1}, reportKey{doc: 1, run: 2}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if rep, err := c.get(ctx, k1, build(k1)); err != nil || rep.Doc != 1 {
				t.Errorf("get: %v %v", rep.Doc, err)
			}
		}()
	}
	wg.Wait()
	if built[k1] != 1 {
		t.Fatalf("8 concurrent requests aligned %d times", built[k1])
	}
	c.get(ctx, k2, build(k2))
	c.get(ctx, k1, build(k1)) // k1 most recent
	c.get(ctx, k3, build(k3)) // evicts k2
	c.get(ctx, k1, build(k1))
	c.get(ctx, k2, build(k2))
	if built[k1] != 1 || built[k2] != 2 || built[k3] != 1 {
		t.Fatalf("builds %v: want k2 evicted once, k1 kept", built)
	}
	if n, _ := c.stats(); n != 2 {
		t.Fatalf("%d cached, bound 2", n)
	}
	// errors are not cached
	fail := errors.New("boom")
	if _, err := c.get(ctx, reportKey{doc: 9, run: 9}, func(context.Context) (report.Report, error) { return report.Report{}, fail }); !errors.Is(err, fail) {
		t.Fatal(err)
	}
	if _, err := c.get(ctx, reportKey{doc: 9, run: 9}, build(reportKey{doc: 9, run: 9})); err != nil {
		t.Fatal(err)
	}
}

// TestSplitAtBlankLines: a highlight that runs across a paragraph break
// leaves the blank line plain (no coloured sliver), keeps its anchors on
// its first piece and loses no byte.
func TestSplitAtBlankLines(t *testing.T) {
	segs := []segment{
		{Text: "plain\n\n"},
		{Text: "end of one.\n \nStart of two\nsame paragraph", Class: "hl c1", Href: "#p1", Anchors: []string{"p1"}, Label: "1"},
		{Text: "\n\n", Class: "hl c1"},
	}
	got := splitAtBlankLines(segs)
	var all, want strings.Builder
	for _, s := range segs {
		want.WriteString(s.Text)
	}
	var shape []string
	for _, s := range got {
		all.WriteString(s.Text)
		shape = append(shape, fmt.Sprintf("%q|%s|%v|%s", s.Text, s.Class, s.Anchors, s.Label))
	}
	wantShape := []string{`"plain\n\n"||[]|`, `"end of one."|hl c1|[p1]|1`, `"\n \n"||[]|`,
		`"Start of two\nsame paragraph"|hl c1|[]|`, `"\n\n"||[]|`}
	if all.String() != want.String() || !slices.Equal(shape, wantShape) {
		t.Fatalf("split:\n%q\nwant\n%q", shape, wantShape)
	}
}

// TestOverview_HeldBack: the Overview says when an open transaction holds
// changes back, with its server process and how to end it.
func TestOverview_HeldBack(t *testing.T) {
	a := newRTArchive(t, true)
	pid, end := pgtest.OpenXact(t, a.pool)
	pgtest.Exec(t, a.pool, `update documents set text = text || ' more' where id = $1`, a.essay)
	a.get("teacher", "/").must(t, http.StatusOK, "1 change held back", "server process "+strconv.Itoa(pid),
		"pg_terminate_backend("+strconv.Itoa(pid)+")")
	end()
	a.get("teacher", "/").must(t, http.StatusOK).mustNot(t, "held back")
}
