package web

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/plagd/plagd/disguise"
	"github.com/plagd/plagd/passage"
)

// markedFlag is a flagged place in the report's text, plain or inside a
// passage's highlight (once the tokenizer undoes the disguise, the copy is
// highlighted too).
var markedFlag = regexp.MustCompile(`<(span|mark) class="(hl c\d+ )?flag flag-invisible" title="[^"]*Disguised: invisible`)

// zwsp puts a zero-width space inside every fifth word of s: a copy a
// reader sees as it was.
func zwsp(s string) string {
	ws := strings.Fields(s)
	for i := 0; i < len(ws); i += 5 {
		ws[i] = ws[i][:1] + "\u200b" + ws[i][1:]
	}
	return strings.Join(ws, " ")
}

// TestFlags_PagesAndAPI: a disguised document shows the warning box at
// the top of its report, with its places marked in the text, in the full
// page and in the filtered region; the documents list marks it and
// filters it; the API's document, list and report carry its flags; a
// check of a disguised text shows and returns them too.
func TestFlags_PagesAndAPI(t *testing.T) {
	a := newRTArchive(t, false)
	ctx := context.Background()
	disguised := zwsp(a.copied) + "\n\n" + a.essayOwn
	var id int64
	if err := a.pool.QueryRow(ctx, `insert into documents (title, text) values ('Disguised copy', $1) returning id`, disguised).Scan(&id); err != nil {
		t.Fatal(err)
	}
	a.run()
	want := disguise.Of(nil, disguised)
	if len(want) != 1 || want[0].Count != 12 {
		t.Fatalf("the fixture's flags: %+v", want)
	}

	line := html.EscapeString(flagLines(want)[0].Text) // "12 invisible characters: …"
	page := a.get("teacher", fmt.Sprintf("/documents/%d", id)).must(t, http.StatusOK, `id="flags"`, "This text was disguised",
		line, "(invisible)")
	if !markedFlag.MatchString(page.body) {
		t.Error("the flagged places are not marked with their kind's class and title")
	}
	if box, region := strings.Index(page.body, `id="flags"`), strings.Index(page.body, `id="report-region"`); box < 0 || box > region {
		t.Fatalf("the warning box is not above the report (at %d, the report at %d)", box, region)
	}
	if n := strings.Count(page.body, "flag flag-invisible"); n < len(want[0].Spans) {
		t.Errorf("%d flagged places marked in the text, want %d", n, len(want[0].Spans))
	}
	a.get("teacher", fmt.Sprintf("/documents/%d?partial=1&quotes=0", id)).must(t, http.StatusOK, "flag flag-invisible")
	a.get("teacher", fmt.Sprintf("/documents/%d", a.src)).mustNot(t, `id="flags"`, "flag-invisible")

	a.get("teacher", "/").must(t, http.StatusOK, `<a class="card warn" href="/documents?flagged=1" title="invisible: 1"><div class="num">1</div><div>disguised</div></a>`)
	list := a.get("teacher", "/documents?flagged=1").must(t, http.StatusOK, "Disguised copy", `class="badge b-flagged"`, `name="flagged" value="1" checked`)
	list.mustNot(t, "Water Mills of the Valley")
	a.get("teacher", "/documents").must(t, http.StatusOK, "Disguised copy", "Water Mills of the Valley")

	tok := a.token("teacher")
	flagsOf := func(v any) []disguise.Flag {
		t.Helper()
		b, _ := json.Marshal(v)
		var f []disguise.Flag
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatal(err)
		}
		return f
	}
	d := a.api(tok, "GET", fmt.Sprintf("/api/v1/documents/%d", id), "", nil).must(t, http.StatusOK).json(t)
	if got := flagsOf(d["document"].(map[string]any)["flags"]); !reflect.DeepEqual(got, want) {
		t.Errorf("API document flags %+v, want %+v", got, want)
	}
	l := a.api(tok, "GET", "/api/v1/documents?flagged=1", "", nil).must(t, http.StatusOK).json(t)
	if docs := l["documents"].([]any); len(docs) != 1 || docs[0].(map[string]any)["id"] != float64(id) {
		t.Errorf("API flagged list: %v", docs)
	}
	a.api(tok, "GET", "/api/v1/documents?flagged=yes", "", nil).must(t, http.StatusBadRequest, `"bad_request"`)
	rep := a.api(tok, "GET", fmt.Sprintf("/api/v1/documents/%d/report", id), "", nil).must(t, http.StatusOK).json(t)
	got := flagsOf(rep["flags"])
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("API report flags %+v, want %+v", got, want)
	}
	text := rep["text"].(string)
	for _, s := range got[0].Spans {
		if !strings.Contains(text[s.Start:s.End], "\u200b") {
			t.Fatalf("API span %+v is %q of the report's text", s, text[s.Start:s.End])
		}
	}
	if _, ok := a.api(tok, "GET", fmt.Sprintf("/api/v1/documents/%d/report", a.src), "", nil).must(t, http.StatusOK).json(t)["flags"]; ok {
		t.Error("a clean document's report has flags")
	}

	// A check reads the text itself and flags it the same way.
	r := a.multipart("teacher", "/check", map[string]string{"text": disguised}, "", nil).must(t, http.StatusSeeOther)
	a.get("teacher", r.header.Get("Location")).must(t, http.StatusOK, `id="flags"`, line, "flag flag-invisible")
	j := a.api(tok, "POST", "/api/v1/check", "application/json", []byte(`{"text": `+strconv.Quote(disguised)+`}`)).must(t, http.StatusOK).json(t)
	if got := flagsOf(j["flags"]); !reflect.DeepEqual(got, want) {
		t.Errorf("API check flags %+v, want %+v", got, want)
	}
}

// TestFlagMarks: flagged ranges get their kind's class and a title, on
// plain and highlighted text alike; an empty span (hidden text left out)
// places a marker before the text that follows it.
func TestFlagMarks(t *testing.T) {
	text := "abc\u200bdef ghi jkl"
	flags := []disguise.Flag{
		{Kind: disguise.HiddenText, Count: 40, Spans: []disguise.Span{{Start: 14, End: 14}}, Detail: "characters of white text"},
		{Kind: disguise.Invisible, Count: 1, Spans: []disguise.Span{{Start: 3, End: 6}}},
	}
	m := newFlagMarks(flags)
	spans := []span{{r: passage.Range{Start: 0, End: 9}}}
	segs := segmentText(text, spans, nil, m.cuts(), func(from int, active []span, _ bool) segment {
		var seg segment
		if len(active) > 0 {
			seg.Class = "hl c0"
		}
		m.decorate(&seg, from)
		return seg
	})
	var classes, markers []string
	for _, s := range segs {
		classes = append(classes, s.Class+"|"+s.Text)
		if s.Marker != "" {
			markers = append(markers, s.Marker+"|"+s.Text)
		}
	}
	wantClasses := []string{"hl c0|abc", "hl c0 flag flag-invisible|\u200b", "hl c0|def", "| ghi ", "|jkl"}
	if !slices.Equal(classes, wantClasses) {
		t.Fatalf("segments %q, want %q", classes, wantClasses)
	}
	if want := []string{"flag-mark flag-hidden_text|jkl"}; !slices.Equal(markers, want) {
		t.Fatalf("markers %q, want %q", markers, want)
	}
	if lines := flagLines(flags); len(lines) != 2 || lines[0].Text != "40 characters of white text" ||
		lines[1].Text != "1 "+kindWords[disguise.Invisible] {
		t.Fatalf("lines %+v", lines)
	}
}

// TestOpenAPI_DescribesFlags: the API description has the flags of a
// document and of a report, with every kind package disguise defines,
// and the list's flagged filter.
func TestOpenAPI_DescribesFlags(t *testing.T) {
	var spec struct {
		Paths map[string]struct {
			Get struct{ Parameters []struct{ Name string } }
		}
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Items struct {
						Ref string `json:"$ref"`
					}
					Enum []string
				}
			}
		}
	}
	if err := json.Unmarshal(openAPISpec, &spec); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Document", "Report"} {
		if ref := spec.Components.Schemas[s].Properties["flags"].Items.Ref; ref != "#/components/schemas/Flag" {
			t.Errorf("%s.flags items %q, want the Flag schema", s, ref)
		}
	}
	kinds := spec.Components.Schemas["Flag"].Properties["kind"].Enum
	for _, k := range []disguise.Kind{disguise.Confusable, disguise.Invisible, disguise.LetterSpaced, disguise.HiddenText} {
		if !slices.Contains(kinds, string(k)) {
			t.Errorf("Flag.kind lacks %q", k)
		}
	}
	for _, f := range []string{"kind", "count", "spans", "detail"} {
		if _, ok := spec.Components.Schemas["Flag"].Properties[f]; !ok {
			t.Errorf("Flag lacks %q", f)
		}
	}
	if !slices.ContainsFunc(spec.Paths["/api/v1/documents"].Get.Parameters, func(p struct{ Name string }) bool { return p.Name == "flagged" }) {
		t.Error("GET /api/v1/documents does not describe flagged")
	}
}
