package web

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReportPDF: the report page links its printed report with its
// filters; the page route and the API serve a PDF that holds the index,
// the sources and who made it; a restricted text is printed for admins
// only; a document without a report says why (409).
func TestReportPDF(t *testing.T) {
	a := newRTArchive(t, true)
	page := fmt.Sprintf("/documents/%d", a.essay)
	link := fmt.Sprintf(`href="/documents/%d/report.pdf?quotes=0"`, a.essay) // quotes is always named
	a.get("teacher", page+"?quotes=0").must(t, http.StatusOK, `id="pdf-report"`, link)

	for _, path := range []string{page + "/report.pdf?quotes=0", fmt.Sprintf("/api/v1/documents/%d/report.pdf?quotes=0", a.essay)} {
		r := a.get("teacher", path).must(t, http.StatusOK)
		if ct := r.header.Get("Content-Type"); ct != "application/pdf" || !strings.HasPrefix(r.body, "%PDF-") {
			t.Fatalf("%s: %s, %.10q", path, ct, r.body)
		}
		if cd := r.header.Get("Content-Disposition"); !strings.Contains(cd, fmt.Sprintf("plagd-report-%d-My-Essay-on-Mills.pdf", a.essay)) {
			t.Fatalf("%s: Content-Disposition %q", path, cd)
		}
		if dir := os.Getenv(e2eEnvScreenshots); dir != "" && strings.HasPrefix(path, "/documents/") {
			// make screenshots keeps the server's printed report beside the pages
			if err := os.WriteFile(filepath.Join(dir, "report-server.pdf"), []byte(r.body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		text := pdfText(t, r.body)
		for _, want := range []string{"with these filters", "Similarity index (the default filters", "Water Mills of the Valley", "by teacher",
			"Left out of the figures: the bibliography and common text",
			"Source: restricted; only admins can read its text.", "[1] " + strings.Fields(a.copied)[0]} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: the PDF lacks %q:\n%s", path, want, text)
			}
		}
	}
	thesisWords := strings.Join(strings.Fields(a.thesisOwn)[:6], " ")
	if text := pdfText(t, a.get("teacher", fmt.Sprintf("/documents/%d/report.pdf", a.thesis)).must(t, http.StatusOK).body); strings.Contains(text, thesisWords) {
		t.Fatal("a restricted text was printed for a teacher")
	}
	if text := pdfText(t, a.get("admin", fmt.Sprintf("/documents/%d/report.pdf", a.thesis)).must(t, http.StatusOK).body); !strings.Contains(text, thesisWords) {
		t.Fatal("a restricted text was not printed for an admin")
	}
	a.get("", page+"/report.pdf").must(t, http.StatusSeeOther)

	var pending int64
	if err := a.pool.QueryRow(t.Context(), `insert into documents (title, text) values ('new', 'words words words') returning id`).Scan(&pending); err != nil {
		t.Fatal(err)
	}
	a.get("teacher", fmt.Sprintf("/api/v1/documents/%d/report.pdf", pending)).must(t, http.StatusConflict, "no_report")
	a.get("teacher", fmt.Sprintf("/documents/%d/report.pdf", pending)).must(t, http.StatusConflict, "not been indexed yet")
}

// pdfText is the text of a PDF, words separated by single spaces
// (pdftotext); the test is skipped where poppler-utils is missing.
func pdfText(t *testing.T, pdf string) string {
	t.Helper()
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Skip("pdftotext (poppler-utils) is not installed")
	}
	f := filepath.Join(t.TempDir(), "r.pdf")
	if err := os.WriteFile(f, []byte(pdf), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, f, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return strings.Join(strings.Fields(string(out)), " ")
}

// TestReportPage_ScatteredSources: a document that shares a few scattered
// windows with the essay but no passage is listed apart ("scattered
// phrases only"), not in the table and not counted in "found in N
// sources" (issue: 7 of 12 counted sources had no passage).
func TestReportPage_ScatteredSources(t *testing.T) {
	a := newRTArchive(t, false)
	ew := strings.Fields(a.essayOwn)
	rng := rand.New(rand.NewPCG(7, 7))
	stray := rtWords(rng, "x", 80) + " " + strings.Join(ew[0:6], " ") + " " + rtWords(rng, "x", 80) + " " +
		strings.Join(ew[40:46], " ") + " " + rtWords(rng, "x", 80)
	var id int64
	if err := a.pool.QueryRow(t.Context(), `insert into documents (title, text) values ('Stray Neighbour', $1) returning id`, stray).Scan(&id); err != nil {
		t.Fatal(err)
	}
	a.run()
	r := a.get("teacher", fmt.Sprintf("/documents/%d", a.essay)).must(t, http.StatusOK, `id="scattered"`,
		"1 more document shares only scattered phrases", "Stray Neighbour", "+ 1 with scattered phrases only")
	if hasKey(rows(r.body), id) {
		t.Fatal("the scattered source is in the sources table")
	}
	if !strings.Contains(r.body, "of the text is found in 2 sources") {
		t.Fatalf("counted sources: %s", regexp.MustCompile(`of the text is found in [^<]*`).FindString(r.body))
	}
}

// TestReportPage_MinWords: "exclude matches under N words" drops the
// shorter passages from the highlights and the figure, and says so.
func TestReportPage_MinWords(t *testing.T) {
	a := newRTArchive(t, true)
	page := fmt.Sprintf("/documents/%d?quotes=0", a.essay)
	all := a.get("teacher", page).must(t, http.StatusOK)
	// The quoted passage is 40 words, the copied one 60, the thesis's 50.
	some := a.get("teacher", page+"&words=45").must(t, http.StatusOK, `name="words"`, `value="45"`,
		"matches shorter than 45 words")
	if marked(some.body, "c2") != "" || marked(all.body, "c2") == "" {
		t.Fatalf("the 40-word quoted passage: highlighted %q with words=45, %q without", marked(some.body, "c2"), marked(all.body, "c2"))
	}
	if overall(t, some.body) >= overall(t, all.body) {
		t.Fatalf("figure %v with words=45, %v without: want it lower", overall(t, some.body), overall(t, all.body))
	}
	rep := a.get("teacher", fmt.Sprintf("/api/v1/documents/%d/report?quotes=0&words=45", a.essay)).must(t, http.StatusOK).json(t)
	if got := rep["coverage"].(float64) * 100; fmt.Sprintf("%.1f", got) != fmt.Sprintf("%.1f", overall(t, some.body)) {
		t.Fatalf("API coverage %v, page %v", got, overall(t, some.body))
	}
	a.get("teacher", page+"&words=x").must(t, http.StatusBadRequest)
}
