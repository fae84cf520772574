package web

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/plagd/plagd/config"
)

// TestBrowser_UploadDeskAndLivePages is issue 19 items 13 and 10 as staff
// and a teacher meet them: the upload form above the list, details typed
// per file for several files (and kind for all) landing with the
// documents, a byte-identical re-upload warned about with a choice, a
// manifest import in the page, and pages that follow the run: a pending
// report turns into the report and the documents table shows the new
// statuses, with no navigation by the test, once a run commits. Runs here
// happen only when the test asks (no schedule, no prompt runs), so that the
// pages are seen waiting first.
func TestBrowser_UploadDeskAndLivePages(t *testing.T) {
	chrome := e2eFindBrowser(t)
	srv := e2eStartServerWith(t, func(cfg *config.Config) { cfg.Schedule.Prompt = false; cfg.Schedule.Cron = "" })
	shots := e2eShotDir(t)
	root := e2eStartBrowser(t, chrome)
	ctx := context.Background()

	dir := t.TempDir()
	water, fire, earth, air := filepath.Join(dir, "water.txt"), filepath.Join(dir, "fire.txt"), filepath.Join(dir, "earth.txt"), filepath.Join(dir, "air.txt")
	e2eWrite(t, water, []byte(e2eWords(701, 220)))
	e2eWrite(t, fire, []byte(e2eWords(702, 220)))
	e2eWrite(t, earth, []byte(e2eWords(703, 220)))
	e2eWrite(t, air, []byte(e2eWords(704, 220)))
	manifest := filepath.Join(dir, "manifest.csv")
	if err := os.WriteFile(manifest, []byte("file,external_id,title,author,kind,year,restricted\n"+
		"earth.txt,ARC-1,\"Earth, soil and roots\",Eva Dvořáková,thesis,2019,no\n"+
		"air.txt,ARC-2,Air,Jan Novák,essay,2020,yes\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	staff := root.newTab(t, e2eStaff, srv.base, shots)
	staff.step("staff opens the documents page")
	staff.navigate("/login")
	staff.signIn(e2eStaff)
	staff.waitJS("the overview", `location.pathname === "/"`)
	staff.navigate("/documents")
	staff.waitVisible("#upload-form")
	if above := e2eEval[bool](staff, "form above the list", `document.querySelector("#upload-form").getBoundingClientRect().top < document.querySelector("#doc-table").getBoundingClientRect().top`); !above {
		staff.fatalf("the upload form is below the documents list")
	}

	staff.step("staff uploads two files with details per file")
	staff.do("choose two files", chromedp.SetUploadFiles(chromedp.CSS(`#upload-form input[type=file][name=file]`), []string{water, fire}))
	staff.waitVisible(`#upload-form [data-upload-rows] tbody tr:nth-child(2)`)
	if staff.visible(`#upload-form [data-single-file]`) {
		staff.fatalf("with two files the one-file details should give way to a row per file")
	}
	staff.do("type the details",
		chromedp.SetValue(chromedp.CSS(`#upload-form [data-upload-rows] tbody tr:nth-child(1) input[name=row-title]`), "Water and why it flows"),
		chromedp.SetValue(chromedp.CSS(`#upload-form [data-upload-rows] tbody tr:nth-child(1) input[name=row-author]`), "Jana Nováková"),
		chromedp.SetValue(chromedp.CSS(`#upload-form [data-upload-rows] tbody tr:nth-child(1) input[name=row-external_id]`), "T-1"),
		chromedp.SetValue(chromedp.CSS(`#upload-form [data-upload-rows] tbody tr:nth-child(2) input[name=row-author]`), "Petr Svoboda"),
		chromedp.SetValue(chromedp.CSS(`#upload-form [data-upload-rows] tbody tr:nth-child(2) input[name=row-year]`), "2023"),
		chromedp.SetValue(chromedp.CSS(`#upload-form input[name=kind]`), "thesis"),
		chromedp.SetValue(chromedp.CSS(`#upload-form input[name=year]`), "2024"))
	staff.shot("upload-desk")
	staff.do("click Upload", chromedp.Click(chromedp.CSS(`#upload-form button[type=submit]`)))
	staff.waitVisible("#upload-list li.summary")
	type row struct {
		id                         int64
		title, author, kind, extID string
		year                       int
		restricted                 bool
	}
	read := func(filename string) row {
		t.Helper()
		var r row
		if err := srv.pool.QueryRow(ctx, `select id, coalesce(title,''), coalesce(author,''), coalesce(kind,''), coalesce(external_id,''), coalesce(year,0), restricted
			from documents where filename = $1 and deleted_at is null order by id limit 1`, filename).
			Scan(&r.id, &r.title, &r.author, &r.kind, &r.extID, &r.year, &r.restricted); err != nil {
			staff.fatalf("read %s: %v", filename, err)
		}
		return r
	}
	w, f := read("water.txt"), read("fire.txt")
	if w.title != "Water and why it flows" || w.author != "Jana Nováková" || w.extID != "T-1" || w.kind != "thesis" || w.year != 2024 {
		staff.fatalf("water.txt stored as %+v", w)
	}
	if f.title != "fire" || f.author != "Petr Svoboda" || f.kind != "thesis" || f.year != 2023 {
		staff.fatalf("fire.txt stored as %+v (want its own year over the shared one, the shared kind)", f)
	}

	staff.step("staff uploads water.txt again: warned, then replaces")
	staff.navigate("/documents")
	staff.do("choose the same file", chromedp.SetUploadFiles(chromedp.CSS(`#upload-form input[type=file][name=file]`), []string{water}))
	staff.do("click Upload", chromedp.Click(chromedp.CSS(`#upload-form button[type=submit]`)))
	staff.waitVisible(`#upload-list li.warn button[data-duplicate=replace]`)
	if msg := staff.text("#upload-list li.warn"); !strings.Contains(msg, fmt.Sprintf("byte for byte the file of document %d", w.id)) {
		staff.fatalf("the identical upload says %q", msg)
	}
	staff.shot("upload-identical")
	staff.do("click Replace", chromedp.Click(chromedp.CSS(`#upload-list li.warn button[data-duplicate=replace]`)))
	staff.waitJS("the replaced row", `document.querySelector("#upload-list li.ok")?.textContent.includes("replaced the file of document `+fmt.Sprint(w.id)+`")`)
	if n := srv.count(t, `select count(*) from documents where filename = 'water.txt'`); n != 1 {
		staff.fatalf("%d documents named water.txt, want 1 (replaced, not stored twice)", n)
	}

	staff.step("staff imports two files with a manifest")
	staff.navigate("/documents")
	staff.do("open the manifest form", chromedp.Click(chromedp.CSS(`#manifest summary`)))
	staff.do("choose the manifest and files",
		chromedp.SetUploadFiles(chromedp.CSS(`#manifest-form input[name=manifest]`), []string{manifest}),
		chromedp.SetUploadFiles(chromedp.CSS(`#manifest-form input[name=file]`), []string{earth, air}))
	staff.click("click Import", `#manifest-form button[type=submit]`)
	staff.waitVisible(".flash")
	if msg := staff.text(".flash"); !strings.Contains(msg, "Manifest imported: 2 of 2 rows stored") {
		staff.fatalf("the import says %q", msg)
	}
	if e, a := read("earth.txt"), read("air.txt"); e.title != "Earth, soil and roots" || e.author != "Eva Dvořáková" || e.extID != "ARC-1" ||
		e.year != 2019 || e.restricted || a.kind != "essay" || !a.restricted {
		staff.fatalf("manifest rows stored as %+v and %+v", e, a)
	}

	staff.step("a pending report waits, then shows itself after the run")
	staff.navigate(fmt.Sprintf("/documents/%d", f.id))
	staff.waitVisible("[data-wait-doc]")
	staff.waitJS("the wait in words", `document.querySelector("[data-wait-msg]").textContent.includes("Waiting for the next run")`)
	staff.shot("report-pending")
	teacher := root.newTab(t, e2eTeacher, srv.base, shots)
	teacher.navigate("/login")
	teacher.signIn(e2eTeacher)
	teacher.waitJS("the overview", `location.pathname === "/"`)
	teacher.navigate("/documents")
	teacher.waitJS("pending rows", `document.querySelector('#doc-table tr[data-doc="`+fmt.Sprint(f.id)+`"] .badge')?.textContent === "pending"`)
	teacher.waitJS("the live line", `!document.querySelector("[data-live-status]").hidden`)

	srv.daemon.RequestRun()
	staff.waitJS("the report after the run", `!!document.querySelector("#overall") && !document.querySelector("[data-wait-doc]")`)
	teacher.waitJS("the table after the run", `document.querySelector('#doc-table tr[data-doc="`+fmt.Sprint(f.id)+`"] .badge')?.textContent === "indexed"`)
	if loc := teacher.location(); !strings.HasSuffix(loc, "/documents") {
		teacher.fatalf("the teacher's tab moved to %s", loc)
	}
	teacher.shot("documents-refreshed")
	staff.checkConsole()
	teacher.checkConsole()
}
