package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
)

// topicText is a text of n words on a topic: drawn Zipf-like from the
// made-up vocabulary of topicSeed (words starting with prefix), a share
// general of them from a general vocabulary all topics share, in an order
// of its own (drawSeed). Two texts of one topic share their vocabulary but
// hardly a phrase; texts of two topics share only general words, so their
// cosine is low, and zero when one of them has none.
func topicText(topicSeed, drawSeed uint64, prefix string, general float64, n int) string {
	vocab := strings.Fields(rtWords(rand.New(rand.NewPCG(topicSeed, 5)), prefix, 300))
	common := strings.Fields(rtWords(rand.New(rand.NewPCG(99, 5)), "gen", 200))
	rng := rand.New(rand.NewPCG(drawSeed, 7))
	zt := rand.NewZipf(rng, 1.2, 2, uint64(len(vocab)-1))
	zg := rand.NewZipf(rng, 1.2, 2, uint64(len(common)-1))
	var b strings.Builder
	b.WriteString(vocab[rng.IntN(len(vocab))] + " " + vocab[rng.IntN(len(vocab))] + "\n\n")
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		if rng.Float64() < general {
			b.WriteString(common[zg.Uint64()])
		} else {
			b.WriteString(vocab[zt.Uint64()])
		}
	}
	b.WriteString(".\n")
	return b.String()
}

// relatedIDs reads the "related" list of a response: ids and cosines, in
// order. It fails the test when the field is missing or not a list.
func relatedIDs(t *testing.T, m map[string]any) (ids []int64, cos []float64) {
	t.Helper()
	raw, ok := m["related"].([]any)
	if !ok {
		t.Fatalf("related is %T (%v), want a list", m["related"], m["related"])
	}
	for _, x := range raw {
		d := x.(map[string]any)
		ids, cos = append(ids, int64(d["id"].(float64))), append(cos, d["cosine"].(float64))
	}
	return ids, cos
}

// TestRelated_ReportAndRoute: after a run, a document's related documents
// are listed best first in its report (JSON and page, after the sources)
// and at GET .../related: the one on its topic first, above the one on
// another topic; ?k= bounds the list and is checked; before the run the
// page says the next run computes them, and a document sharing no words
// says it has none.
func TestRelated_ReportAndRoute(t *testing.T) {
	a := newNDArchive(t)
	idA, _ := a.create("Mills on the river", topicText(1, 1, "mil", 0.4, 400), false)
	idB, _ := a.create("Watermills and trade", topicText(1, 2, "mil", 0.4, 400), false)
	idC, _ := a.create("Stars and comets", topicText(2, 3, "sta", 0.4, 400), false)
	idD, _ := a.create("Nothing in common", topicText(3, 4, "zq", 0, 400), false)

	p := a.page("teacher", fmt.Sprintf("/documents/%d", idA))
	if !strings.Contains(p, `id="related"`) || !strings.Contains(p, "Not computed yet: the next run") {
		t.Errorf("A's page before any run lacks the related panel's pending state")
	}
	l := a.do("GET", fmt.Sprintf("/api/v1/documents/%d/related", idA), bearer(a.teacher)).must(t, http.StatusOK)
	if ids, _ := relatedIDs(t, l); len(ids) != 0 || int(l["k"].(float64)) != a.cfg.Related.K || int64(l["document_id"].(float64)) != idA {
		t.Fatalf("A's related documents before a run: %v", l)
	}

	a.runEngine()
	rep := a.do("GET", fmt.Sprintf("/api/v1/documents/%d/report", idA), bearer(a.teacher)).must(t, http.StatusOK)
	ids, cos := relatedIDs(t, rep)
	t.Logf("A's related documents %v, cosines %v", ids, cos)
	if len(ids) < 2 || ids[0] != idB || ids[1] != idC || cos[0] <= cos[1] {
		t.Fatalf("A's report lists related %v (cosines %v), want B (%d) first, then C (%d) with a lower cosine", ids, cos, idB, idC)
	}
	for _, id := range ids {
		if id == idA || id == idD {
			t.Fatalf("A's related documents %v include %d", ids, id)
		}
	}
	l = a.do("GET", fmt.Sprintf("/api/v1/documents/%d/related", idA), bearer(a.teacher)).must(t, http.StatusOK)
	if got, gcos := relatedIDs(t, l); fmt.Sprint(got, gcos) != fmt.Sprint(ids, cos) {
		t.Fatalf("the route lists %v %v, the report %v %v", got, gcos, ids, cos)
	}
	first := l["related"].([]any)[0].(map[string]any)
	if first["title"] != "Watermills and trade" || first["restricted"] != false {
		t.Fatalf("the first related document %v: want B's header, not restricted", first)
	}
	l = a.do("GET", fmt.Sprintf("/api/v1/documents/%d/related?k=1", idA), bearer(a.teacher)).must(t, http.StatusOK)
	if got, _ := relatedIDs(t, l); len(got) != 1 || got[0] != idB || int(l["k"].(float64)) != 1 {
		t.Fatalf("k=1 lists %v (k %v), want only B", got, l["k"])
	}
	for _, k := range []string{"0", "abc", "101", "-1"} {
		msg := a.do("GET", fmt.Sprintf("/api/v1/documents/%d/related?k=%s", idA, k), bearer(a.teacher)).mustErr(t, http.StatusBadRequest, "bad_request")
		if !strings.Contains(msg, "1 to 100") {
			t.Errorf("k=%s: the message %q does not say what k may be", k, msg)
		}
	}
	a.do("GET", "/api/v1/documents/999999/related", bearer(a.teacher)).mustErr(t, http.StatusNotFound, "not_found")
	a.do("GET", "/api/v1/documents/x/related", bearer(a.teacher)).mustErr(t, http.StatusNotFound, "not_found")
	if got, _ := relatedIDs(t, a.do("GET", fmt.Sprintf("/api/v1/documents/%d/related", idD), bearer(a.teacher)).must(t, http.StatusOK)); len(got) != 0 {
		t.Fatalf("D shares no word, yet lists related %v", got)
	}

	// the page: after the sources, before the text
	p = a.page("teacher", fmt.Sprintf("/documents/%d", idA))
	src, rel, text := strings.Index(p, `id="sources"`), strings.Index(p, `id="related"`), strings.Index(p, `id="text"`)
	if src < 0 || rel < 0 || text < 0 || rel < src || rel > text {
		t.Fatalf("sources at %d, related at %d, text at %d: want the related panel between the sources and the text", src, rel, text)
	}
	panel := p[rel:text]
	for _, w := range []string{
		fmt.Sprintf(`<tr data-related="%d">`, idB),
		fmt.Sprintf(`<a href="/documents/%d">Watermills and trade</a> <span class="mono hint">#%d</span>`, idB, idB),
		fmt.Sprintf(`<a href="/documents/%d">Stars and comets</a>`, idC),
		pctText(cos[0]), `class="bar"`, "not necessarily copied text",
	} {
		if !strings.Contains(panel, w) {
			t.Errorf("A's related panel lacks %q", w)
		}
	}
	if strings.Index(panel, fmt.Sprintf(`data-related="%d"`, idB)) > strings.Index(panel, fmt.Sprintf(`data-related="%d"`, idC)) {
		t.Errorf("the panel lists C before B")
	}
	if strings.Contains(panel, "b-restricted") {
		t.Errorf("the panel flags an open document as restricted")
	}
	p = a.page("teacher", fmt.Sprintf("/documents/%d", idD))
	if !strings.Contains(p, "No related documents: no other indexed document shares") {
		t.Errorf("D's page does not say it has no related documents")
	}

	// the filters' partial region holds only a placeholder, which report.js
	// fills with the page's panel: nothing is read again
	cookie, _ := a.session("teacher")
	r := a.do("GET", fmt.Sprintf("/documents/%d?partial=1&quotes=0", idA), withSession(cookie, ""))
	if r.status != http.StatusOK || !bytes.Contains(r.body, []byte(`id="related" data-keep hidden>`)) || bytes.Contains(r.body, []byte(`data-related=`)) {
		t.Errorf("partial region: %d, want the related panel as an empty placeholder:\n%.3000s", r.status, r.body)
	}

	// a check's text is in no run: its report has no related field
	m := a.do("POST", "/api/v1/check", bearer(a.teacher), jsonBody(map[string]any{"text": topicText(1, 9, "mil", 0.4, 400)})).must(t, http.StatusOK)
	if _, has := m["related"]; has {
		t.Errorf("a check's report has related: %v", m["related"])
	}
}

// TestRelated_RestrictedForTeacher: related documents follow the sources'
// rule for restricted documents: a teacher sees that a restricted
// document is related (header, cosine, flagged), never its text; a
// restricted document's own report lists its related documents too.
func TestRelated_RestrictedForTeacher(t *testing.T) {
	a := newNDArchive(t)
	textR := topicText(5, 1, "mil", 0.4, 400)
	idR, _ := a.create("Embargoed thesis", textR, true)
	idB, _ := a.create("Open essay", topicText(5, 2, "mil", 0.4, 400), false)
	a.create("Off topic", topicText(6, 3, "sta", 0.4, 400), false)
	a.runEngine()
	rWords := strings.Join(strings.Fields(strings.SplitN(textR, "\n\n", 2)[1])[100:106], " ")

	for _, path := range []string{fmt.Sprintf("/api/v1/documents/%d/related", idB), fmt.Sprintf("/api/v1/documents/%d/report", idB)} {
		m := a.do("GET", path, bearer(a.teacher)).must(t, http.StatusOK)
		list := m["related"].([]any)
		if len(list) == 0 || int64(list[0].(map[string]any)["id"].(float64)) != idR || list[0].(map[string]any)["restricted"] != true ||
			list[0].(map[string]any)["title"] != "Embargoed thesis" {
			t.Fatalf("teacher: %s lists related %v, want the restricted R (%d) first, flagged", path, list, idR)
		}
		raw, _ := json.Marshal(m["related"])
		if strings.Contains(string(raw), rWords) || strings.Contains(string(raw), `"text"`) {
			t.Fatalf("%s: related carries text: %s", path, raw)
		}
	}

	p := a.page("teacher", fmt.Sprintf("/documents/%d", idB))
	panel := p[strings.Index(p, `id="related"`):strings.Index(p, `id="text"`)]
	if !strings.Contains(panel, "Embargoed thesis") || !strings.Contains(panel, "b-restricted") {
		t.Errorf("teacher: the panel does not list R as restricted:\n%s", panel)
	}
	// R's own report: a teacher sees its related documents, not its text
	p = a.page("teacher", fmt.Sprintf("/documents/%d", idR))
	if !strings.Contains(p, fmt.Sprintf(`data-related="%d"`, idB)) || !strings.Contains(p, "restricted-notice") || strings.Contains(p, `id="doc-text"`) {
		t.Errorf("teacher: R's report should list B and withhold R's text")
	}
	if got, _ := relatedIDs(t, a.do("GET", fmt.Sprintf("/api/v1/documents/%d/related", idR), bearer(a.teacher)).must(t, http.StatusOK)); len(got) == 0 || got[0] != idB {
		t.Errorf("teacher: R's related documents %v, want B (%d) first", got, idB)
	}
}
