package web

// End-to-end tests in a real headless Chromium: the pages used as a person
// uses them, against `plagd serve` as it runs in production (the daemon with
// its prompt runs, the web interface, a real PostgreSQL). They also take the
// screenshots of docs/screenshots/ (make screenshots).
//
// Environment:
//
//	PLAGD_REQUIRE_BROWSER=1   fail instead of skip when no Chromium is installed (CI)
//	PLAGD_SCREENSHOTS=DIR     keep the screenshots (and the printed report.pdf) in DIR
//	PLAGD_BROWSER=PATH        the browser binary (default: chromium, chromium-browser, google-chrome on PATH)

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/plagd/plagd/auth"
	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/daemon"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/internal/testlog"
	"github.com/plagd/plagd/internal/testpdf"
	"github.com/plagd/plagd/store"
)

// Environment variables of the browser tests.
const (
	e2eEnvRequire     = "PLAGD_REQUIRE_BROWSER"
	e2eEnvScreenshots = "PLAGD_SCREENSHOTS"
	e2eEnvBrowser     = "PLAGD_BROWSER"
)

// Limits: the whole journey, one step (a navigation, a click and what it
// shows), and waiting for a run to index the uploads.
const (
	e2eTotalTimeout = 3 * time.Minute
	e2eStepTimeout  = 20 * time.Second
	e2eRunTimeout   = 60 * time.Second
)

// The browser window, and the width of an A4 page's text area (210 mm less
// 2 × 14 mm margins, at 96 px per inch) for the print view.
const (
	e2eWidth      = 1366
	e2eHeight     = 900
	e2ePrintWidth = 688
)

// The accounts of the journey.
const (
	e2ePassword = "correct horse battery"
	e2eStaff    = "staff1"
	e2eTeacher  = "teacher1"
	e2eAdmin    = "admin1"
)

// Selectors of the report, compare and check pages (web/templates/report.html,
// compare.html, check.html and web/static/report.js).
const (
	e2eSelFigure       = "#overall"                                     // the overall share of the text found elsewhere
	e2eSelSources      = "#sources"                                     // the ranked sources table
	e2eSelSourceRow    = "#sources tbody tr"                            // one source
	e2eSelMark         = "#doc-text mark"                               // a highlighted passage in the document's text
	e2eSelExcludeQuote = `#filters input[type=checkbox][name="quotes"]` // the "exclude quotations" checkbox of the filter form
	e2eSelFilterForm   = "#filters"                                     // the filter form
	e2eSelPrintButton  = "#print"                                       // the print button
	e2eSelCompareLeft  = "#compare .side-doc mark"                      // aligned passages, this document's side
	e2eSelCompareRight = "#compare .side-source mark"                   // aligned passages, the source's side
	e2eSelRestricted   = ".restricted-notice"                           // instead of a restricted source's text
	e2eSelCheckForm    = `form[action="/check"]`                        // "check a file now"
	e2eSelCheckFile    = `form[action="/check"] input[type=file]`
)

// TestBrowser_TeacherStaffAdminJourney walks through the product as its three
// kinds of users do: staff upload an essay and a broken file, the daemon
// indexes them, a teacher reads the similarity report (highlighted passages,
// the quotation filter, the side-by-side view, the print view), a teacher
// meets the limits of the role, an admin starts a run, and a teacher checks
// a file without storing it.
func TestBrowser_TeacherStaffAdminJourney(t *testing.T) {
	chrome := e2eFindBrowser(t)
	start := time.Now()
	srv := e2eStartServer(t)
	shots := e2eShotDir(t)
	root := e2eStartBrowser(t, chrome)
	t.Logf("server %s, browser %s, screenshots in %s (set up in %v)", srv.base, chrome, shots, time.Since(start).Round(time.Millisecond))

	essayPDF := testpdf.Text("Mills, Rivers and Trade in the Northern Valleys", e2eEssayBody())
	dir := t.TempDir()
	essayPath := filepath.Join(dir, "essay-smith.pdf")
	brokenPath := filepath.Join(dir, "scan-broken.pdf")
	draftPath := filepath.Join(dir, "draft-chapter.txt")
	e2eWrite(t, essayPath, essayPDF)
	e2eWrite(t, brokenPath, []byte("%PDF-1.4 garbage"))
	e2eWrite(t, draftPath, []byte(e2eDraftText()))

	// 1. Staff signs in through the form and lands on the overview.
	staff := root.newTab(t, e2eStaff, srv.base, shots)
	staff.step("staff signs in")
	staff.navigate("/login")
	staff.shot("login")
	staff.signIn(e2eStaff)
	staff.waitJS("the overview after signing in", `location.pathname === "/" && document.querySelector("h1")?.textContent.trim() === "Overview"`)
	staff.waitVisible(".cards .card")

	// 2. Upload the essay and a broken PDF; the page reports each file.
	staff.step("staff uploads an essay and a broken PDF")
	staff.navigate("/documents")
	staff.waitVisible("#upload-form")
	staff.do("choose the files", chromedp.SetUploadFiles(chromedp.CSS(`#upload-form input[type=file][name=file]`), []string{essayPath, brokenPath}))
	staff.do("click Upload", chromedp.Click(chromedp.CSS(`#upload-form button[type=submit]`)))
	staff.waitVisible("#upload-list li.summary")
	okText := staff.text(`#upload-list li.ok`)
	if !strings.Contains(okText, "essay-smith.pdf") || !strings.Contains(okText, "stored as") {
		staff.fatalf("the essay's upload row says %q, want it stored", okText)
	}
	warnText := staff.text(`#upload-list li.warn`)
	if !strings.Contains(warnText, "scan-broken.pdf") || !strings.Contains(warnText, "failed") {
		staff.fatalf("the broken file's upload row says %q, want it stored but marked unreadable with the reason", warnText)
	}
	if n := e2eEval[int](staff, "error rows", `document.querySelectorAll("#upload-list li.error").length`); n != 0 {
		staff.fatalf("%d uploads were refused: %s", n, staff.text("#upload-list"))
	}
	essayID := e2eEval[int64](staff, "the essay's id", `+document.querySelector("#upload-list li.ok a").getAttribute("href").split("/").pop()`)
	brokenID := e2eEval[int64](staff, "the broken file's id", `+document.querySelector("#upload-list li.warn a").getAttribute("href").split("/").pop()`)
	t.Logf("essay is document %d, the broken file %d; upload list: %q", essayID, brokenID, staff.text("#upload-list"))
	staff.shot("documents")

	// 3. The daemon runs after the upload's notification: the documents page
	// shows the essay indexed and the broken file failed, with the reason.
	staff.step("the run indexes the essay and fails the broken file")
	statusJS := func(id int64) string {
		return fmt.Sprintf(`(() => { const a = document.querySelector('table.docs tbody a[href="/documents/%d"]');
			const tr = a && a.closest("tr"); if (!tr) return "";
			const b = tr.querySelector(".badge:not(.b-restricted)"); const r = tr.querySelector(".reason");
			return (b ? b.textContent.trim() : "") + "|" + (r ? r.textContent.trim() : ""); })()`, id)
	}
	deadline := time.Now().Add(e2eRunTimeout)
	var essayStatus, brokenStatus string
	for {
		staff.navigate("/documents")
		essayStatus = e2eEval[string](staff, "the essay's status", statusJS(essayID))
		brokenStatus = e2eEval[string](staff, "the broken file's status", statusJS(brokenID))
		if strings.HasPrefix(essayStatus, "indexed|") && strings.HasPrefix(brokenStatus, "failed|") {
			break
		}
		if time.Now().After(deadline) {
			staff.fatalf("after %v the documents page shows the essay %q and the broken file %q; want indexed and failed", e2eRunTimeout, essayStatus, brokenStatus)
		}
		time.Sleep(300 * time.Millisecond)
	}
	if reason := strings.TrimPrefix(brokenStatus, "failed|"); len(reason) < 10 {
		staff.fatalf("the broken file failed without a readable reason: %q", reason)
	}
	t.Logf("after %v: essay %q, broken file %q", time.Since(start).Round(time.Millisecond), essayStatus, brokenStatus)
	staff.shot("documents-indexed")

	// 4. The essay's report: the figure, the source with similarity both
	// ways, the highlighted passage; "exclude quotes" changes the figure.
	staff.step("the essay's report")
	report := fmt.Sprintf("/documents/%d", essayID)
	staff.navigate(report)
	staff.waitVisible(e2eSelFigure)
	figure := staff.text(e2eSelFigure)
	if !regexp.MustCompile(`\d+(\.\d+)?\s*%`).MatchString(figure) {
		staff.fatalf("the overall figure reads %q, want a percentage", figure)
	}
	rowA := staff.sourceRow(srv.docs["src-danube"])
	if !strings.Contains(rowA, "Trade Routes of the Lower Danube") {
		staff.fatalf("source %d is listed as %q, want its title", srv.docs["src-danube"], rowA)
	}
	toSrc, fromSrc := staff.similarities(srv.docs["src-danube"])
	for _, f := range []string{toSrc, fromSrc} {
		if !regexp.MustCompile(`^[1-9]\d*(\.\d+)? ?%$|^0\.[1-9] ?%$`).MatchString(f) {
			staff.fatalf("the source row %q shows the similarity both ways as %q and %q, want two non-zero percentages", rowA, toSrc, fromSrc)
		}
	}
	t.Logf("source %d: this → source %s, source → this %s", srv.docs["src-danube"], toSrc, fromSrc)
	marks := e2eEval[[]string](staff, "the highlighted passages", `[...document.querySelectorAll(`+e2eJS(e2eSelMark)+`)].map(m => m.textContent)`)
	if !e2eAnyShares(marks, e2ePassageP(), 8) {
		staff.fatalf("no highlighted passage holds the copied passage; the %d marks: %q", len(marks), marks)
	}
	staff.shot("report")

	// Each passage carries its source's number; the match overview beside
	// the text stays in view and steps through the passages.
	if n := e2eEval[int](staff, "source numbers", `document.querySelectorAll("#doc-text sup.src-num").length`); n == 0 || n != e2eEval[int](staff, "anchors", `document.querySelectorAll("#doc-text .match-anchor").length`) {
		staff.fatalf("%d source numbers at the passages, want one per passage", n)
	}
	staff.do("next match", chromedp.Click(chromedp.CSS(`#match-overview [data-match-step="1"]`), chromedp.NodeVisible))
	// The second step by script: the first scrolls the page smoothly, and a
	// click by coordinates during the scroll can land beside the button.
	e2eEval[bool](staff, "next match again", `(document.querySelector('#match-overview [data-match-step="1"]').click(), true)`)
	if pos := e2eEval[string](staff, "match position", `document.querySelector("[data-match-pos]").textContent`); !strings.HasPrefix(pos, "2 of ") {
		staff.fatalf("after two steps the overview says %q, want 2 of N", pos)
	}
	if !e2eEval[bool](staff, "the overview in view", `(() => { const r = document.getElementById("match-overview").getBoundingClientRect(); return r.top >= 0 && r.top < innerHeight; })()`) {
		staff.fatalf("the match overview is not in view after jumping to a match")
	}

	// The related documents (by topic) follow the sources, before the text.
	relatedRows := `document.querySelectorAll("#related:not([hidden]) tr[data-related]").length`
	relBefore := e2eEval[int](staff, "related rows", relatedRows)
	if relBefore == 0 || !e2eEval[bool](staff, "the related panel's place", `(() => { const s = document.getElementById("sources"), r = document.getElementById("related"), x = document.getElementById("text");
		return !!(s && r && x && (s.compareDocumentPosition(r) & Node.DOCUMENT_POSITION_FOLLOWING) && (r.compareDocumentPosition(x) & Node.DOCUMENT_POSITION_FOLLOWING)); })()`) {
		staff.fatalf("the report lists %d related documents, or the panel is not between the sources and the text", relBefore)
	}

	excluded := e2eEval[bool](staff, "the exclude-quotes checkbox", `document.querySelector(`+e2eJS(e2eSelExcludeQuote)+`).checked`)
	t.Logf("overall figure %q with quotes excluded=%v", figure, excluded)
	// By script, like the second step above: the match steps scroll the
	// page smoothly, and on a loaded machine a click by coordinates can
	// still land beside the checkbox while the page moves (CI, 2026-11-26).
	e2eEval[bool](staff, "toggle exclude quotes", `(() => { const e = document.querySelector(`+e2eJS(e2eSelExcludeQuote)+`); e.scrollIntoView({block: "center"}); e.click(); return true; })()`)
	toggled := staff.waitFigureChange(figure)
	t.Logf("overall figure %q with quotes excluded=%v", toggled, !excluded)
	if got := e2eEval[bool](staff, "the exclude-quotes checkbox", `document.querySelector(`+e2eJS(e2eSelExcludeQuote)+`).checked`); got == excluded {
		staff.fatalf("the exclude-quotes checkbox did not change")
	}
	// the partial reload carries the related panel over, not a placeholder
	if n := e2eEval[int](staff, "related rows", relatedRows); n != relBefore || e2eEval[int](staff, "related panels", `document.querySelectorAll("#related").length`) != 1 {
		staff.fatalf("after the filter changed the related panel has %d rows, want %d, in one panel", n, relBefore)
	}
	staff.shot("report-quotes-toggled")
	staff.do("toggle exclude quotes back", chromedp.Click(chromedp.CSS(e2eSelExcludeQuote)))
	back := staff.waitFigureChange(toggled)
	if back != figure {
		staff.fatalf("after toggling back the figure reads %q, want the original %q", back, figure)
	}

	// 5. Side by side with the source: the aligned passage on both sides.
	staff.step("the side-by-side view")
	staff.navigate(fmt.Sprintf("%s/compare/%d", report, srv.docs["src-danube"]))
	staff.waitVisible(e2eSelCompareLeft)
	staff.waitVisible(e2eSelCompareRight)
	left := e2eEval[[]string](staff, "marks of this document", `[...document.querySelectorAll(`+e2eJS(e2eSelCompareLeft)+`)].map(m => m.textContent)`)
	right := e2eEval[[]string](staff, "marks of the source", `[...document.querySelectorAll(`+e2eJS(e2eSelCompareRight)+`)].map(m => m.textContent)`)
	if !e2eAnyShares(left, e2ePassageP(), 8) || !e2eAnyShares(right, e2ePassageP(), 8) {
		staff.fatalf("the copied passage is not marked on both sides:\nleft %q\nright %q", left, right)
	}
	staff.shot("compare")

	// 6. The print view: no navigation or filters, the figure stays; the
	// browser prints it to a PDF.
	staff.step("the print view")
	staff.navigate(report)
	staff.waitVisible(e2eSelFigure)
	staff.waitVisible(e2eSelPrintButton)
	// As wide as the text area of an A4 sheet (210 mm less the margins, at
	// 96 px per inch), so that the screenshot shows what paper gets.
	staff.do("narrow the page to A4", chromedp.EmulateViewport(e2ePrintWidth, 900))
	staff.call("emulate print media", func(ctx context.Context) error {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"})
		return err
	})
	for _, sel := range []string{"header.top nav", "header.top .who", e2eSelFilterForm, e2eSelPrintButton, "#related"} {
		if staff.visible(sel) {
			staff.fatalf("%s is visible in the print view", sel)
		}
	}
	if !staff.visible(e2eSelFigure) {
		staff.fatalf("the overall figure is hidden in the print view")
	}
	staff.shot("report-print")
	pdf := e2eRun(staff, "print to PDF", chromedp.PrintToPDF(chromedp.PDFPaper(chromedp.PaperA4), chromedp.PDFPrintBackground()))
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) || len(pdf) < 1000 {
		staff.fatalf("the printed report is not a PDF (%d bytes)", len(pdf))
	}
	if os.Getenv(e2eEnvScreenshots) != "" {
		e2eWrite(t, filepath.Join(shots, "report.pdf"), pdf)
	}
	staff.call("back to screen media", func(ctx context.Context) error {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{})
		return err
	})
	staff.do("back to the window's width", chromedp.EmulateViewport(e2eWidth, e2eHeight))

	// 7. A teacher: the restricted source is listed with its figure but not
	// its text; no upload form, no "Run now", no users page.
	teacher := root.newTab(t, e2eTeacher, srv.base, shots)
	teacher.step("a teacher reads the report and meets the role's limits")
	teacher.navigate("/login")
	teacher.signIn(e2eTeacher)
	teacher.waitJS("the overview after signing in", `location.pathname === "/"`)
	teacher.navigate(report)
	teacher.waitVisible(e2eSelFigure)
	restrictedID := srv.docs["src-embargo"]
	rowC := teacher.sourceRow(restrictedID)
	if toC, fromC := teacher.similarities(restrictedID); !strings.Contains(toC, "%") || !strings.Contains(fromC, "%") || toC == "0.0 %" {
		teacher.fatalf("the restricted source's row %q shows the similarity as %q and %q, want its figures", rowC, toC, fromC)
	}
	teacher.navigate(fmt.Sprintf("%s/compare/%d", report, restrictedID))
	teacher.waitVisible(e2eSelRestricted)
	if body := teacher.text("main"); e2eSharesWords(body, e2eSourceOwn("src-embargo"), 6) {
		teacher.fatalf("the teacher sees the restricted source's text")
	}
	teacher.shot("compare-restricted")
	teacher.navigate("/documents")
	if teacher.present("#upload-form") {
		teacher.fatalf("a teacher sees the upload form")
	}
	teacher.navigate("/runs")
	if strings.Contains(teacher.text("main"), "Run now") || teacher.present(`form[action="/runs"]`) {
		teacher.fatalf(`a teacher sees "Run now"`)
	}
	if status := teacher.navigateStatus("/users"); status != http.StatusForbidden {
		teacher.fatalf("GET /users as a teacher answered %d, want 403", status)
	}
	if h1 := teacher.text("h1"); !strings.Contains(h1, "403") {
		teacher.fatalf("the refusal page's heading is %q, want it to say 403", h1)
	}
	teacher.shot("forbidden")

	// 8. An admin starts a run.
	admin := root.newTab(t, e2eAdmin, srv.base, shots)
	admin.step("an admin starts a run")
	admin.navigate("/login")
	admin.signIn(e2eAdmin)
	admin.waitJS("the overview after signing in", `location.pathname === "/"`)
	admin.navigate("/runs")
	admin.waitVisible(`form[action="/runs"] button`)
	if label := admin.text(`form[action="/runs"] button`); label != "Run now" {
		admin.fatalf("the run button says %q", label)
	}
	admin.click("click Run now", `form[action="/runs"] button`)
	admin.waitVisible("p.flash")
	if msg := admin.text("p.flash"); !strings.Contains(msg, "Run requested") {
		admin.fatalf("after Run now the page says %q", msg)
	}
	admin.shot("runs")
	admin.navigate("/users")
	admin.waitVisible("table.data")
	admin.shot("users")
	admin.navigate("/account")
	admin.waitVisible("h1")
	admin.shot("account")
	admin.navigate("/")
	admin.shot("overview")
	// The report as an admin: the restricted source's text is shown.
	admin.navigate(fmt.Sprintf("%s/compare/%d", report, restrictedID))
	admin.waitVisible(e2eSelCompareRight)
	if admin.present(e2eSelRestricted) {
		admin.fatalf("an admin gets the restricted notice instead of the text")
	}
	if body := admin.text("main"); !e2eSharesWords(body, e2eSourceOwn("src-embargo"), 6) {
		admin.fatalf("an admin does not see the restricted source's text")
	}

	// 9. "Check a file now" as a teacher: a report, and nothing stored.
	teacher.step("a teacher checks a file without storing it")
	before := srv.count(t, "select count(*) from documents")
	teacher.navigate("/check")
	teacher.waitVisible(e2eSelCheckForm)
	teacher.do("choose the file", chromedp.SetUploadFiles(chromedp.CSS(e2eSelCheckFile), []string{draftPath}))
	teacher.click("submit the check", e2eSelCheckForm+` button[type=submit]`)
	teacher.waitVisible(e2eSelFigure)
	if !strings.HasPrefix(teacher.location(), srv.base+"/check/") {
		teacher.fatalf("the check's result is at %s, want /check/{key}", teacher.location())
	}
	if sources := teacher.text(e2eSelSources); !strings.Contains(sources, "Trade Routes of the Lower Danube") {
		teacher.fatalf("the check's sources do not list the copied source: %q", sources)
	}
	marks = e2eEval[[]string](teacher, "the highlighted passages", `[...document.querySelectorAll(`+e2eJS(e2eSelMark)+`)].map(m => m.textContent)`)
	if !e2eAnyShares(marks, e2ePassageP(), 8) {
		teacher.fatalf("the check highlights no copied passage; marks %q", marks)
	}
	teacher.shot("check")
	if after := srv.count(t, "select count(*) from documents"); after != before {
		t.Fatalf("checking a file changed the number of documents from %d to %d", before, after)
	}

	for _, tb := range []*e2eTab{staff, teacher, admin} {
		tb.checkConsole()
	}
	t.Logf("journey done in %v", time.Since(start).Round(time.Millisecond))
}

// --- the server ---------------------------------------------------------

// e2eServer is `plagd serve` on a free local port over a fresh, seeded database.
type e2eServer struct {
	base   string
	pool   *pgxpool.Pool
	docs   map[string]int64 // seeded documents by external id
	daemon *daemon.Daemon
}

func e2eStartServer(t *testing.T) *e2eServer { t.Helper(); return e2eStartServerWith(t, nil) }

// e2eStartServerWith starts the server with tweak applied to its
// configuration (nil: none).
func e2eStartServerWith(t *testing.T, tweak func(*config.Config)) *e2eServer {
	t.Helper()
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	ctx := context.Background()

	srv := &e2eServer{pool: pool, docs: map[string]int64{}}
	for _, d := range e2eSources() {
		var id int64
		err := pool.QueryRow(ctx, `insert into documents (external_id, title, author, kind, year, text, restricted)
			values ($1, $2, $3, $4, $5, $6, $7) returning id`, d.externalID, d.title, d.author, d.kind, d.year, d.text, d.restricted).Scan(&id)
		if err != nil {
			t.Fatalf("seed %s: %v", d.externalID, err)
		}
		srv.docs[d.externalID] = id
	}
	users := auth.NewStore(pool)
	for name, role := range map[string]auth.Role{e2eStaff: auth.RoleStaff, e2eTeacher: auth.RoleTeacher, e2eAdmin: auth.RoleAdmin} {
		if _, err := users.AddUser(ctx, name, role, e2ePassword); err != nil {
			t.Fatalf("add user %s: %v", name, err)
		}
	}

	cfg := config.Default()
	cfg.DatabaseURL = url
	cfg.DataDir = t.TempDir()
	cfg.Engine.Nodes = 1
	cfg.Schedule.Cron = ""
	cfg.Schedule.Prompt = true
	cfg.Schedule.Debounce = 300 * time.Millisecond
	cfg.Schedule.Poll = time.Second
	cfg.HTTP.Listen = e2eFreeAddr(t)
	srv.base = "http://" + cfg.HTTP.Listen
	if tweak != nil {
		tweak(&cfg)
	}

	// The server's log is kept and shown only when the test fails.
	logs := &testlog.Buffer{}
	log := zerolog.New(logs).With().Timestamp().Logger().Level(zerolog.InfoLevel)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server log:\n%s", logs.String())
		}
	})

	d := daemon.NewDaemon(cfg, pool, log)
	srv.daemon = d
	ui, err := New(Options{Config: cfg, DB: store.NewDB(pool), Engine: d.Engine(), Runner: d, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	d.SetUI(ui.Handler())
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- d.Serve(sctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("serve did not stop within 30 s of its context ending")
		}
	})

	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case err := <-done:
			t.Fatalf("serve stopped before it was ready: %v", err)
		default:
		}
		resp, err := http.Get(srv.base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s/readyz did not answer 200 within 30 s (last: %v)", srv.base, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return srv
}

func (s *e2eServer) count(t *testing.T, query string) int {
	t.Helper()
	var n int
	if err := s.pool.QueryRow(context.Background(), query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// e2eFreeAddr finds a free local TCP port.
func e2eFreeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// --- the corpus -----------------------------------------------------------

// e2eVocabulary is what the generated texts are made of: content words only,
// so that two texts share a run of five words only where a passage was
// copied on purpose.
var e2eVocabulary = strings.Fields(`
abbey acorn anchor archive autumn balcony barley barrel basket beacon beetle bellows birch
blanket bonfire boulder bracket bramble bridge bucket cabin canal candle canvas carriage
castle cellar chapel charcoal chimney cider cinder clover cobble copper cottage courtyard
cradle crystal cupboard dairy dawn dockyard drizzle dune ember estate falcon fern ferry
fiddle flagstone flint forge fountain furnace gable garden garnet glacier granary granite
gravel harbour harness harvest hazel heather hedgerow hillside hollow horizon inkwell
island ivory journey kettle kiln ladder lagoon lantern larch ledger lighthouse linen
locket loft lumber machine manor maple market marsh meadow merchant mill mirror monastery
moorland mortar mosaic nettle oak orchard outpost paddock parchment pasture pebble
pendulum pepper pewter pilgrim pinewood plough pocket pottery quarry quill railway
rampart raven reservoir ribbon ridge rivet saddle sailcloth salt satchel sawmill scaffold
schooner scroll sentry shepherd shingle shipyard shutter silver sledge slate smithy
sparrow spindle spire stable staircase steeple stirrup storehouse stream summit
tannery tapestry tavern terrace thatch thimble thistle timber tinder tollgate tower
trellis turnip valley velvet village vineyard violet wagon warehouse watermill weaver
wharf wheat wicker willow windmill winter workshop yarrow bargain borrow carry collect
deliver drift endure gather govern harbor inherit labour measure mend negotiate polish
quarrel reckon repair scatter settle shelter sharpen stitch summon tremble wander
weigh whisper ancient bitter brittle crooked dusty eager faded fertile frozen gentle
golden hollowed humble idle lofty muddy narrow patient quiet restless rugged rusty
scarce silent slender sturdy swift tidy weary wooden`)

// e2eWords makes n words of text from seed: sentences of 8 to 16 words,
// capitalised and ending in a full stop.
func e2eWords(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	var b strings.Builder
	left := 0
	for i := range n {
		w := e2eVocabulary[r.IntN(len(e2eVocabulary))]
		if left == 0 {
			left = 8 + r.IntN(9)
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
		left--
		if left == 0 || i == n-1 {
			b.WriteByte('.')
			left = 0
		}
	}
	return b.String()
}

// The passages the essay shares with the archive: P copied from a thesis, Q
// quoted (in straight double quotes) from an article, R copied from a
// restricted thesis.
func e2ePassageP() string { return e2eWords(101, 70) }
func e2ePassageQ() string { return e2eWords(202, 45) }
func e2ePassageR() string { return e2eWords(303, 45) }

// e2eSourceOwn is the text of a seeded source that no other text holds
// (all of it but the passage it shares).
func e2eSourceOwn(externalID string) string {
	for i, d := range e2eSources() {
		if d.externalID == externalID {
			seed := uint64(1000 + 10*i)
			return e2eWords(seed, 220) + "\n\n" + e2eWords(seed+1, 260)
		}
	}
	panic("no source " + externalID)
}

type e2eSource struct {
	externalID, title, author, kind string
	year                            int
	restricted                      bool
	text                            string
}

// e2eSources are the archive before the essay arrives.
func e2eSources() []e2eSource {
	docs := []e2eSource{
		{externalID: "src-danube", title: "Trade Routes of the Lower Danube", author: "Marta Horakova", kind: "thesis", year: 2019},
		{externalID: "src-letters", title: "Letters from the Northern Coast", author: "Jan Novak", kind: "article", year: 2015},
		{externalID: "src-embargo", title: "Water Power in Mountain Villages", author: "Eva Dvorak", kind: "thesis", year: 2023, restricted: true},
		{externalID: "src-flora", title: "Notes on Alpine Flora", author: "Petr Kral", kind: "seminar", year: 2021},
		{externalID: "src-bridges", title: "Stone Bridges of Bohemia", author: "Lucie Cerna", kind: "essay", year: 2018},
	}
	inner := map[string]string{"src-danube": e2ePassageP(), "src-letters": e2ePassageQ(), "src-embargo": e2ePassageR()}
	for i := range docs {
		seed := uint64(1000 + 10*i)
		parts := []string{e2eWords(seed, 220)}
		if p, ok := inner[docs[i].externalID]; ok {
			parts = append(parts, p)
		}
		parts = append(parts, e2eWords(seed+1, 260))
		docs[i].text = strings.Join(parts, "\n\n")
	}
	return docs
}

// e2eEssayBody is the uploaded essay: its own words around P, the quotation
// of Q and R.
func e2eEssayBody() string {
	return strings.Join([]string{
		e2eWords(11, 110),
		e2ePassageP(),
		e2eWords(12, 70),
		`As the letters from the coast put it, "` + e2ePassageQ() + `" ` + e2eWords(13, 40),
		e2ePassageR(),
		e2eWords(14, 90),
	}, "\n\n")
}

// e2eDraftText is the file checked without storing it: its own words and P.
func e2eDraftText() string {
	return strings.Join([]string{e2eWords(21, 90), e2ePassageP(), e2eWords(22, 90)}, "\n\n")
}

// e2eSharesWords tells whether text holds n consecutive words of passage
// (compared by words, so line breaks and punctuation do not matter).
func e2eSharesWords(text, passage string, n int) bool {
	norm := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !(r >= 'a' && r <= 'z') })
	}
	t := " " + strings.Join(norm(text), " ") + " "
	p := norm(passage)
	for i := 0; i+n <= len(p); i++ {
		if strings.Contains(t, " "+strings.Join(p[i:i+n], " ")+" ") {
			return true
		}
	}
	return false
}

// e2eAnyShares tells whether the highlighted texts hold n consecutive words
// of passage (a passage may be split over several marks).
func e2eAnyShares(marks []string, passage string, n int) bool {
	return e2eSharesWords(strings.Join(marks, " "), passage, n)
}

// --- the browser ----------------------------------------------------------

// e2eFindBrowser returns the Chromium to drive, or skips the test (fails it
// with PLAGD_REQUIRE_BROWSER=1).
func e2eFindBrowser(t *testing.T) string {
	t.Helper()
	required := os.Getenv(e2eEnvRequire) == "1"
	if testing.Short() && !required {
		t.Skip("browser tests are skipped with -short")
	}
	if p := os.Getenv(e2eEnvBrowser); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no Chromium found (chromium, chromium-browser or google-chrome on PATH, or " + e2eEnvBrowser + "); on Debian: apt-get install chromium"
	if required {
		t.Fatal(msg + " (" + e2eEnvRequire + "=1)")
	}
	t.Skip(msg)
	return ""
}

// e2eShotDir is where screenshots go: PLAGD_SCREENSHOTS, or a temporary
// directory so that the code path always runs.
func e2eShotDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv(e2eEnvScreenshots)
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// e2eBrowser is one headless Chromium; each user gets a tab in a browser
// context of its own (its own cookies).
type e2eBrowser struct {
	ctx context.Context
}

func e2eStartBrowser(t *testing.T, path string) *e2eBrowser {
	t.Helper()
	// The whole journey's limit; the browser ends with it.
	ctx, cancelTotal := context.WithTimeout(context.Background(), e2eTotalTimeout)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox, // tests run as root in CI containers
		chromedp.DisableGPU,
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("font-render-hinting", "none"),
		chromedp.WindowSize(e2eWidth, e2eHeight),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancelBrowser()
		cancelAlloc()
		cancelTotal()
	})
	if err := chromedp.Do(bctx); err != nil { // starts the browser
		if os.Getenv(e2eEnvRequire) != "1" && errors.Is(err, exec.ErrNotFound) {
			t.Skipf("browser %s does not start: %v", path, err)
		}
		t.Fatalf("start %s: %v", path, err)
	}
	return &e2eBrowser{ctx: bctx}
}

// e2eTab is one user's tab.
type e2eTab struct {
	t     *testing.T
	ctx   context.Context
	user  string
	base  string
	shots string
	stepN string

	mu      sync.Mutex
	console []chromedp.ConsoleMessage
}

func (b *e2eBrowser) newTab(t *testing.T, user, base, shots string) *e2eTab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(b.ctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	tab := &e2eTab{t: t, ctx: ctx, user: user, base: base, shots: shots}
	if err := chromedp.Do(ctx); err != nil { // opens the tab, without a step's timeout
		t.Fatalf("open a tab for %s: %v", user, err)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(e2eWidth, e2eHeight)); err != nil {
		t.Fatalf("viewport: %v", err)
	}
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			tab.mu.Lock()
			tab.console = append(tab.console, m)
			tab.mu.Unlock()
		}
	}()
	return tab
}

// step names what the user does next, for the log and for failures.
func (b *e2eTab) step(name string) {
	b.t.Helper()
	b.stepN = name
	b.t.Logf("== %s: %s", b.user, name)
}

// fatalf saves a screenshot and the HTML of the page for the post-mortem,
// then fails the test.
func (b *e2eTab) fatalf(format string, args ...any) {
	b.t.Helper()
	msg := fmt.Sprintf(format, args...)
	dir, err := os.MkdirTemp("", "plagd-browser-failure-*")
	if err == nil {
		ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
		defer cancel()
		slug := regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(strings.ToLower(b.user+"-"+b.stepN), "-")
		if png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
			_ = os.WriteFile(filepath.Join(dir, slug+".png"), png, 0o644)
		}
		if html, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.documentElement.outerHTML`)); err == nil {
			_ = os.WriteFile(filepath.Join(dir, slug+".html"), []byte(html), 0o644)
		}
		loc, _ := chromedp.Run(ctx, chromedp.Location())
		msg += fmt.Sprintf("\n(page %s; screenshot and HTML in %s)", loc, dir)
	}
	b.mu.Lock()
	seen := map[string]bool{}
	for _, m := range b.console {
		if !seen[m.String()] {
			seen[m.String()] = true
			msg += "\nconsole " + m.String()
		}
	}
	b.mu.Unlock()
	b.t.Fatalf("%s, step %q: %s", b.user, b.stepN, msg)
}

// do runs actions within a step's time limit.
func (b *e2eTab) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, e2eStepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.fatalf("%s: %v", what, err)
	}
}

// call runs a protocol command (see cdp.Call) within a step's time limit.
func (b *e2eTab) call(what string, f func(ctx context.Context) error) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, e2eStepTimeout)
	defer cancel()
	if err := f(ctx); err != nil {
		b.fatalf("%s: %v", what, err)
	}
}

// e2eRun runs an action that returns a value, within a step's time limit.
func e2eRun[T any](b *e2eTab, what string, a chromedp.Action[T]) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, e2eStepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		b.fatalf("%s: %v", what, err)
	}
	return v
}

// e2eEval evaluates a JavaScript expression in the page.
func e2eEval[T any](b *e2eTab, what, expr string) T {
	b.t.Helper()
	return e2eRun(b, what, chromedp.Evaluate[T](expr))
}

// e2eJS quotes s as a JavaScript string.
func e2eJS(s string) string {
	q, _ := json.Marshal(s)
	return string(q)
}

// navigate opens a path of the site and waits for the page to load.
func (b *e2eTab) navigate(path string) {
	b.t.Helper()
	b.do("open "+path, chromedp.Navigate(b.base+path))
}

// navigateStatus opens a path and returns the HTTP status of the page.
func (b *e2eTab) navigateStatus(path string) int {
	b.t.Helper()
	resp := e2eRun(b, "open "+path, chromedp.NavigateResponse(b.base+path))
	if resp == nil {
		b.fatalf("open %s: no response", path)
	}
	return int(resp.Status)
}

// click clicks what sel finds and waits for the page it leads to.
func (b *e2eTab) click(what, sel string) {
	b.t.Helper()
	e2eRun(b, what, chromedp.WaitEvent(cdppage.LoadEventFired, nil, chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible)))
}

func (b *e2eTab) signIn(user string) {
	b.t.Helper()
	b.waitVisible(`input[name="name"]`)
	if label := b.text(`section.login button[type=submit]`); label != "Sign in" {
		b.fatalf("the login button says %q, want Sign in", label)
	}
	b.do("type the name and password",
		chromedp.SendKeys(chromedp.CSS(`input[name="name"]`), user),
		chromedp.SendKeys(chromedp.CSS(`input[name="password"]`), e2ePassword))
	b.click("click Sign in", `section.login button[type=submit]`)
}

func (b *e2eTab) waitVisible(sel string) {
	b.t.Helper()
	b.do("wait for "+sel+" to show", chromedp.WaitVisible(chromedp.CSS(sel)))
}

// text is the visible text of the first element sel finds.
func (b *e2eTab) text(sel string) string {
	b.t.Helper()
	return strings.TrimSpace(e2eRun(b, "read "+sel, chromedp.Text(chromedp.CSS(sel), chromedp.NodeReady)))
}

// present tells whether the page has an element sel finds, now.
func (b *e2eTab) present(sel string) bool {
	b.t.Helper()
	return e2eEval[bool](b, "look for "+sel, `document.querySelector(`+e2eJS(sel)+`) !== null`)
}

// visible tells whether the first element sel finds is rendered, now.
func (b *e2eTab) visible(sel string) bool {
	b.t.Helper()
	return e2eEval[bool](b, "is "+sel+" visible", `(() => { const e = document.querySelector(`+e2eJS(sel)+`);
		if (!e) return false; const r = e.getBoundingClientRect(); const s = getComputedStyle(e);
		return r.width > 0 && r.height > 0 && s.visibility !== "hidden" && s.display !== "none"; })()`)
}

func (b *e2eTab) location() string {
	b.t.Helper()
	return e2eRun(b, "read the location", chromedp.Location())
}

// waitJS waits until a JavaScript condition holds, across navigations.
func (b *e2eTab) waitJS(what, cond string) {
	b.t.Helper()
	deadline := time.Now().Add(e2eStepTimeout)
	var last error
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(b.ctx, 2*time.Second)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!(`+cond+`)`))
		cancel()
		if err == nil && ok {
			return
		}
		last = err
		time.Sleep(100 * time.Millisecond)
	}
	b.fatalf("waited %v for %s (%s); last error %v", e2eStepTimeout, what, cond, last)
}

// waitFigureChange waits until the overall figure differs from old, also
// when the filter reloads the page, and returns it.
func (b *e2eTab) waitFigureChange(old string) string {
	b.t.Helper()
	deadline := time.Now().Add(e2eStepTimeout)
	cur := old
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(b.ctx, 2*time.Second)
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const e = document.querySelector(`+e2eJS(e2eSelFigure)+`); return e ? e.innerText.trim() : ""; })()`))
		cancel()
		if err == nil && s != "" && s != old {
			// let a reload settle: the same value twice
			time.Sleep(150 * time.Millisecond)
			ctx, cancel := context.WithTimeout(b.ctx, 2*time.Second)
			again, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const e = document.querySelector(`+e2eJS(e2eSelFigure)+`); return e ? e.innerText.trim() : ""; })()`))
			cancel()
			if err == nil && again == s {
				return s
			}
		}
		if err == nil && s != "" {
			cur = s
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.fatalf("the overall figure stayed %q for %v after the filter changed", cur, e2eStepTimeout)
	return ""
}

// sourceRow is the text of the report's row for source id (found by its
// link to the source or to the side-by-side view).
func (b *e2eTab) sourceRow(id int64) string {
	b.t.Helper()
	js := fmt.Sprintf(`(() => { for (const tr of document.querySelectorAll(%s)) {
		if (tr.querySelector('a[href$="/compare/%d"], a[href="/documents/%d"], [data-source="%d"]') || tr.dataset.source === "%d") return tr.innerText; }
		return ""; })()`, e2eJS(e2eSelSourceRow), id, id, id, id)
	row := e2eEval[string](b, fmt.Sprintf("the row of source %d", id), js)
	if row == "" {
		b.fatalf("the report lists no source %d; sources: %q", id, b.text(e2eSelSources))
	}
	return row
}

// similarities reads the two similarity columns of source id's row in the
// report, found by their headings ("This → source", "Source → this").
func (b *e2eTab) similarities(id int64) (there, back string) {
	b.t.Helper()
	js := fmt.Sprintf(`(() => {
		const heads = [...document.querySelectorAll("#sources thead th")].map(th => th.textContent.trim());
		const tr = document.querySelector('#sources tbody tr[data-source="%d"]');
		const i = heads.indexOf("This → source"), j = heads.indexOf("Source → this");
		if (!tr || i < 0 || j < 0) return [];
		return [tr.cells[i].innerText.trim(), tr.cells[j].innerText.trim()]; })()`, id)
	v := e2eEval[[]string](b, fmt.Sprintf("the similarities of source %d", id), js)
	if len(v) != 2 {
		b.fatalf("the sources table has no columns \"This → source\" and \"Source → this\" with a row for source %d", id)
	}
	return v[0], v[1]
}

// shot saves a full-page screenshot as name.png. (Quality 100 is what
// makes chromedp capture PNG; anything less is JPEG.)
func (b *e2eTab) shot(name string) {
	b.t.Helper()
	png := e2eRun(b, "screenshot "+name, chromedp.FullScreenshot(100))
	if !bytes.HasPrefix(png, []byte("\x89PNG")) {
		b.fatalf("screenshot %s is not a PNG", name)
	}
	e2eWrite(b.t, filepath.Join(b.shots, name+".png"), png)
}

// checkConsole fails the test for uncaught exceptions and Content Security
// Policy violations of the pages, and logs other errors and warnings.
func (b *e2eTab) checkConsole() {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, m := range b.console {
		switch {
		case m.IsException() || strings.Contains(m.Text, "Content Security Policy"):
			b.t.Errorf("%s: console %s (%s:%d)", b.user, m, m.URL, m.Line)
		case m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleWarning:
			b.t.Logf("%s: console %s (%s)", b.user, m, m.URL)
		}
	}
}

func e2eWrite(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
