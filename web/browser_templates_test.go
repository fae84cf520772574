package web

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// Selectors of the templates page (web/templates/templates.html).
const (
	e2eSelTemplateForm = "#template-form"
	e2eSelTemplateList = "#template-list"
	e2eSelFlash        = "p.flash"
)

// TestBrowser_StaffRegistersTemplate: staff open the Templates page from
// the menu, register a declaration form for theses through the form, and
// see it listed with what the next run will do; a teacher sees the list
// without the form. Skipped like the journey when no Chromium is installed.
func TestBrowser_StaffRegistersTemplate(t *testing.T) {
	chrome := e2eFindBrowser(t)
	srv := e2eStartServer(t)
	shots := e2eShotDir(t)
	root := e2eStartBrowser(t, chrome)
	declaration := e2eWords(4242, 40)

	staff := root.newTab(t, e2eStaff, srv.base, shots)
	staff.step("staff signs in and opens Templates from the menu")
	staff.navigate("/login")
	staff.signIn(e2eStaff)
	staff.waitVisible(`header nav a[href="/templates"]`)
	staff.click("click Templates in the menu", `header nav a[href="/templates"]`)
	staff.waitVisible(e2eSelTemplateForm)
	if got := staff.text(e2eSelTemplateList + " tbody"); !strings.Contains(got, "No templates are registered") {
		staff.fatalf("the new archive lists templates: %q", got)
	}
	kinds := e2eEval[[]string](staff, "the kinds offered", `[...document.querySelectorAll('#template-form select[name="kind"] option')].map(o => o.textContent.trim())`)
	if strings.Join(kinds, ",") != "all kinds,article,essay,seminar,thesis" {
		staff.fatalf("the kind select offers %q, want all kinds and the archive's kinds", kinds)
	}

	staff.step("staff registers the faculty declaration for theses")
	staff.do("fill in the form",
		chromedp.SendKeys(chromedp.CSS(e2eSelTemplateForm+` input[name="name"]`), "Faculty declaration"),
		chromedp.SetValue(chromedp.CSS(e2eSelTemplateForm+` select[name="kind"]`), "thesis"),
		chromedp.SetValue(chromedp.CSS(e2eSelTemplateForm+` textarea[name="body"]`), declaration))
	staff.click("click Register template", e2eSelTemplateForm+` button[type=submit]`)
	staff.waitVisible(e2eSelFlash)
	// the seeded archive has two theses
	if flash := staff.text(e2eSelFlash); !strings.Contains(flash, `registered for documents of kind "thesis"; the next run indexes 2 documents again`) {
		staff.fatalf("after registering the page says %q", flash)
	}
	row := staff.text(e2eSelTemplateList + " tbody tr")
	for _, want := range []string{"Faculty declaration", "thesis", "40", e2eStaff} {
		if !strings.Contains(row, want) {
			staff.fatalf("the template's row %q lacks %q", row, want)
		}
	}
	if e2eEval[bool](staff, "is the text unfolded", `document.querySelector("#template-list .tpl-body").open`) {
		staff.fatalf("the template's text shows before it is unfolded")
	}
	staff.do("unfold the text", chromedp.Click(chromedp.CSS(e2eSelTemplateList+" .tpl-body summary"), chromedp.NodeVisible))
	if got := staff.text(e2eSelTemplateList + " .tpl-body pre"); got != declaration {
		staff.fatalf("the unfolded text is %q, want the declaration", got)
	}
	staff.shot("templates")
	if n := srv.count(t, `select count(*) from templates where deleted_at is null and created_by = 'staff1' and kind = 'thesis'`); n != 1 {
		t.Fatalf("%d templates stored for theses by staff1, want 1", n)
	}

	teacher := root.newTab(t, e2eTeacher, srv.base, shots)
	teacher.step("a teacher reads the list, without the form")
	teacher.navigate("/login")
	teacher.signIn(e2eTeacher)
	teacher.navigate("/templates")
	teacher.waitVisible(e2eSelTemplateList)
	if row := teacher.text(e2eSelTemplateList + " tbody tr"); !strings.Contains(row, "Faculty declaration") {
		teacher.fatalf("the teacher's list row is %q", row)
	}
	if teacher.present(e2eSelTemplateForm) || teacher.present(`form[action^="/templates/"]`) {
		teacher.fatalf("a teacher is offered the form or a remove button")
	}
	for _, tb := range []*e2eTab{staff, teacher} {
		tb.checkConsole()
	}
	t.Logf("templates page checked in %s", chrome)
}
