package web

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// Selectors of a disguised document's report (web/templates/report.html,
// web/flags.go).
const (
	e2eSelFlagBox    = "#flags"
	e2eSelFlagMarks  = "#doc-text .flag-invisible"
	e2eSelFlagBadge  = "table.docs .b-flagged"
	e2eSelReportRegn = "#report-region"
)

// TestBrowser_DisguisedReport: a copy disguised with zero-width spaces is
// indexed by the daemon's prompt run; the teacher's report shows the
// warning box above the report, with the count, and marks each invisible
// character in the text with a visible sign (also in the print view); the
// documents list marks the document and filters it. Skipped like the
// journey when no Chromium is installed.
func TestBrowser_DisguisedReport(t *testing.T) {
	chrome := e2eFindBrowser(t)
	srv := e2eStartServer(t)
	shots := e2eShotDir(t)
	root := e2eStartBrowser(t, chrome)

	ws := strings.Fields(e2ePassageP())
	for i := 0; i < len(ws); i += 7 {
		ws[i] = ws[i][:2] + "\u200b" + ws[i][2:]
	}
	disguised := "My essay on water mills. " + strings.Join(ws, " ") + ". My own conclusions follow."
	var id int64
	if err := srv.pool.QueryRow(context.Background(), `insert into documents (external_id, title, kind, text) values
		('essays/disguised.txt', 'A disguised essay', 'essay', $1) returning id`, disguised).Scan(&id); err != nil {
		t.Fatal(err)
	}
	want := (len(ws) + 6) / 7
	deadline := time.Now().Add(e2eRunTimeout)
	for srv.count(t, fmt.Sprintf(`select count(*) from document_texts where doc_id = %d and flags is not null`, id)) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no run stored the disguised essay's flags within %v", e2eRunTimeout)
		}
		time.Sleep(200 * time.Millisecond)
	}

	teacher := root.newTab(t, e2eTeacher, srv.base, shots)
	teacher.step("a teacher opens the disguised essay's report")
	teacher.navigate("/login")
	teacher.signIn(e2eTeacher)
	teacher.navigate(fmt.Sprintf("/documents/%d", id))
	teacher.waitVisible(e2eSelFlagBox)
	box := teacher.text(e2eSelFlagBox)
	for _, s := range []string{"This text was disguised", fmt.Sprintf("%d ", want), "(invisible)"} {
		if !strings.Contains(box, s) {
			teacher.fatalf("the warning box %q lacks %q", box, s)
		}
	}
	if !e2eEval[bool](teacher, "the box above the report", `document.querySelector("`+e2eSelFlagBox+`").getBoundingClientRect().bottom <= document.querySelector("`+e2eSelReportRegn+`").getBoundingClientRect().top`) {
		teacher.fatalf("the warning box is not above the report")
	}
	// Each mark covers a flagged place (the invisible character, or the
	// word that holds it): together they hold every one.
	marks := e2eEval[[]string](teacher, "the marked places", `[...document.querySelectorAll("`+e2eSelFlagMarks+`")].map(e => e.textContent)`)
	if n := strings.Count(strings.Join(marks, ""), "\u200b"); len(marks) == 0 || n != want {
		teacher.fatalf("%d marks in the text holding %d invisible characters, want all %d", len(marks), n, want)
	}
	sign := e2eEval[string](teacher, "the sign shown for an invisible character", `getComputedStyle(document.querySelector("`+e2eSelFlagMarks+`"), "::before").content`)
	width := e2eEval[float64](teacher, "the width of a marked place", `document.querySelector("`+e2eSelFlagMarks+`").getBoundingClientRect().width`)
	if sign == "none" || sign == "" || width < 2 {
		teacher.fatalf("a marked invisible character shows nothing (::before %q, %.1f px wide)", sign, width)
	}
	if title := e2eEval[string](teacher, "a mark's title", `document.querySelector("`+e2eSelFlagMarks+`").title`); !strings.Contains(title, "Disguised: invisible") {
		teacher.fatalf("a mark's title is %q", title)
	}
	teacher.shot("report-disguised")

	teacher.step("the print view keeps the warning and the marks")
	teacher.call("emulate print media", func(ctx context.Context) error {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"})
		return err
	})
	if !teacher.visible(e2eSelFlagBox) || !teacher.visible(e2eSelFlagMarks) {
		teacher.fatalf("the print view hides the warning box or the marks")
	}
	teacher.call("back to screen media", func(ctx context.Context) error {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{})
		return err
	})

	teacher.step("the documents list marks it and filters the disguised documents")
	teacher.navigate("/documents?flagged=1")
	teacher.waitVisible(e2eSelFlagBadge)
	rows := e2eEval[[]string](teacher, "the listed documents", `[...document.querySelectorAll("table.docs tbody tr")].map(r => r.textContent)`)
	if len(rows) != 1 || !strings.Contains(rows[0], "A disguised essay") {
		teacher.fatalf("the flagged list shows %q, want the disguised essay alone", rows)
	}
	teacher.click("follow the marker to the report's warning", e2eSelFlagBadge)
	teacher.waitJS("the report at its warning", `location.hash === "#flags" && document.querySelector("`+e2eSelFlagBox+`")`)
	teacher.checkConsole()
	t.Logf("disguised report checked in %s", chrome)
}
