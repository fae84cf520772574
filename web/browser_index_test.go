package web

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowser_OneSimilarityIndex: one essay, one figure. The essay copies
// passage P of one source and has a resubmission by its author (the
// essay with a new ending, external id "-v2"). After the daemon's run,
// the similarity index in the documents list, the figure at the top of
// the report, the API's document and report, and the server's printed
// report all say the same percentage; the resubmission is listed apart as
// an earlier version and left out of it; counting it raises the figure
// the report shows with that filter, while the index beside it stays.
// Skipped like the journey when no Chromium is installed.
func TestBrowser_OneSimilarityIndex(t *testing.T) {
	chrome := e2eFindBrowser(t)
	srv := e2eStartServer(t)
	shots := e2eShotDir(t)
	root := e2eStartBrowser(t, chrome)
	ctx := context.Background()

	essay := strings.Join([]string{e2eWords(41, 120), e2ePassageP(), e2eWords(42, 140)}, "\n\n")
	resubmitted := strings.Join([]string{e2eWords(41, 120), e2ePassageP(), e2eWords(42, 100), e2eWords(43, 60)}, "\n\n")
	var id, v2 int64
	if err := srv.pool.QueryRow(ctx, `insert into documents (external_id, title, author, kind, text)
		values ('essays/2026/mills', 'Mills of the Lower Danube', 'Tereza Mala', 'essay', $1) returning id`, essay).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if err := srv.pool.QueryRow(ctx, `insert into documents (external_id, title, author, kind, text)
		values ('essays/2026/mills-v2', 'Mills of the Lower Danube (resubmitted)', 'Tereza Mala', 'essay', $1) returning id`, resubmitted).Scan(&v2); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(e2eRunTimeout)
	for srv.count(t, fmt.Sprintf(`select count(*) from similarity_index where doc_id in (%d, %d)`, id, v2)) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("no run stored the essays' similarity indexes within %v", e2eRunTimeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
	var stored float64
	var versions int
	if err := srv.pool.QueryRow(ctx, `select value, versions from similarity_index where doc_id = $1`, id).Scan(&stored, &versions); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%.1f %%", stored*100)
	if stored < 0.15 || stored > 0.6 || versions != 1 {
		t.Fatalf("stored index %s with %d versions left out; want P's share of the essay (about a quarter), the resubmission left out", want, versions)
	}

	teacher := root.newTab(t, e2eTeacher, srv.base, shots)
	teacher.step("the documents list, highest index first, shows the essay's index")
	teacher.navigate("/login")
	teacher.signIn(e2eTeacher)
	teacher.navigate("/documents?sort=index&min_index=10")
	teacher.waitVisible("table.docs")
	sel := fmt.Sprintf(`table.docs tr[data-doc="%d"] .index-value`, id)
	if got := teacher.text(sel); got != want {
		teacher.fatalf("the list says %q, want %q", got, want)
	}
	listed := e2eEval[[]string](teacher, "the listed indexes", `[...document.querySelectorAll("table.docs tbody .index-value")].map(e => e.textContent)`)
	for i := 1; i < len(listed); i++ {
		var a, b float64
		fmt.Sscanf(listed[i-1], "%f", &a)
		fmt.Sscanf(listed[i], "%f", &b)
		if a < b || b < 10 {
			teacher.fatalf("sorted by index with a 10 %% floor, the list shows %q", listed)
		}
	}
	teacher.shot("documents-by-index")

	teacher.step("the report opens with the same figure, labelled the similarity index")
	teacher.navigate(fmt.Sprintf("/documents/%d", id))
	teacher.waitVisible(e2eSelFigure)
	if got := teacher.text(e2eSelFigure); got != want {
		teacher.fatalf("the report's figure is %q, the list's %q", got, want)
	}
	if kind := teacher.text(".overall-kind"); !strings.EqualFold(kind, "Similarity index") {
		teacher.fatalf("the figure is labelled %q", kind)
	}
	if group := teacher.text("#report-region"); !strings.Contains(group, "Mills of the Lower Danube (resubmitted)") {
		teacher.fatalf("the resubmission is not listed in the report")
	}

	teacher.step("the API's document and report give the same index")
	api := e2eRun(teacher, "the API's figures", chromedp.Evaluate[[]float64](fmt.Sprintf(`(async () => {
		const d = await (await fetch("/api/v1/documents/%d")).json();
		const r = await (await fetch("/api/v1/documents/%d/report")).json();
		return [d.document.similarity_index.value, r.similarity_index, r.coverage];
	})()`, id, id), chromedp.EvalAwaitPromise))
	for _, x := range api {
		if got := fmt.Sprintf("%.1f %%", x*100); got != want {
			teacher.fatalf("the API says %v, want %s everywhere", api, want)
		}
	}

	teacher.step("the server's printed report gives the same index")
	b64 := e2eRun(teacher, "the printed report", chromedp.Evaluate[string](fmt.Sprintf(`(async () => {
		const b = new Uint8Array(await (await fetch("/documents/%d/report.pdf")).arrayBuffer());
		let s = ""; for (const c of b) s += String.fromCharCode(c);
		return btoa(s);
	})()`, id), chromedp.EvalAwaitPromise))
	pdf, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	if text := pdfText(t, string(pdf)); !strings.Contains(text, want+" similarity index") {
		teacher.fatalf("the printed report lacks %q:\n%.600s", want+" similarity index", text)
	}

	teacher.step("counting the earlier version changes the filtered figure, not the index")
	teacher.navigate(fmt.Sprintf("/documents/%d?versions=1", id))
	teacher.waitVisible(e2eSelFigure)
	if kind := teacher.text(".overall-kind"); !strings.EqualFold(kind, "With these filters") {
		teacher.fatalf("with the versions counted the figure is labelled %q", kind)
	}
	if got := teacher.text("#similarity-index"); got != want {
		teacher.fatalf("the index beside the filtered figure is %q, want %q", got, want)
	}
	var counted float64
	fmt.Sscanf(teacher.text(e2eSelFigure), "%f", &counted)
	if counted < 80 {
		teacher.fatalf("with its resubmission counted the essay is %.1f %% covered, want nearly all of it", counted)
	}
	teacher.shot("report-versions-counted")
	teacher.checkConsole()
}
