package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/plagd/plagd/store"
)

// templateForm posts the templates form as user: fields, an optional file,
// and the CSRF token csrf ("" sends none).
func (a *rtArchive) templateForm(user, path, csrf string, fields map[string]string, filename string, content []byte) rtResp {
	a.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if csrf != "" {
		mw.WriteField("csrf", csrf)
	}
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

// post sends an urlencoded form as user with the user's CSRF token.
func (a *rtArchive) post(user, path string, form url.Values) rtResp {
	a.t.Helper()
	form.Set("csrf", a.sessions[user].csrf)
	return a.do(user, "POST", path, "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
}

// commonTemplates lists the template names of a stored document's report's
// common text (GET /api/v1/documents/{id}/report).
func (a *rtArchive) commonTemplates(id int64) []string {
	a.t.Helper()
	r := a.get("teacher", "/api/v1/documents/"+itoa(id)+"/report").must(a.t, http.StatusOK)
	var rep struct {
		Common []struct {
			Template string `json:"template"`
		} `json:"common"`
	}
	if err := json.Unmarshal([]byte(r.body), &rep); err != nil {
		a.t.Fatal(err)
	}
	var names []string
	for _, c := range rep.Common {
		if c.Template != "" {
			names = append(names, c.Template)
		}
	}
	return names
}

// similarTo tells whether other is in id's similarity list.
func (a *rtArchive) similarTo(id, other int64) bool {
	a.t.Helper()
	r := a.get("teacher", "/api/v1/documents/"+itoa(id)+"/similar").must(a.t, http.StatusOK)
	var list similarList
	if err := json.Unmarshal([]byte(r.body), &list); err != nil {
		a.t.Fatal(err)
	}
	for _, s := range list.Similar {
		if s.OtherID == other {
			return true
		}
	}
	return false
}

// TestTemplatesPage_RegisterRunRemove: staff register a template for the
// essays on the templates page (teachers only read it), the next run leaves
// its text out of the essay, whose report names it; removing it brings the
// text back at the run after.
func TestTemplatesPage_RegisterRunRemove(t *testing.T) {
	a := newRTArchive(t, true)
	// the thesis copies 50 words of the essay's own opening: that is what
	// the template will cover
	if !a.similarTo(a.essay, a.thesis) {
		t.Fatal("before any template the essay and the thesis share text: want them similar")
	}

	// teachers read the list, without the form or remove buttons, and may not register
	r := a.get("teacher", "/templates").must(t, http.StatusOK, "<h1>Templates</h1>", "No templates are registered", `href="/templates" aria-current="page"`)
	r.mustNot(t, `id="template-form"`, "Remove template")
	fields := map[string]string{"name": "Essay opening", "kind": "essay", "body": a.essayOwn}
	a.templateForm("teacher", "/templates", a.sessions["teacher"].csrf, fields, "", nil).must(t, http.StatusForbidden, "staff role")
	// the form without a CSRF token, or with another's, is refused
	a.templateForm("staff", "/templates", "", fields, "", nil).must(t, http.StatusForbidden, "CSRF")
	a.templateForm("staff", "/templates", a.sessions["admin"].csrf, fields, "", nil).must(t, http.StatusForbidden, "CSRF")

	// the form offers the archive's kinds; refusals keep what was typed
	a.get("staff", "/templates").must(t, http.StatusOK, `id="template-form"`, `<option value="">all kinds</option>`,
		`<option value="article">article</option>`, `<option value="essay">essay</option>`, `<option value="thesis">thesis</option>`)
	csrf := a.sessions["staff"].csrf
	a.templateForm("staff", "/templates", csrf, map[string]string{"name": " ", "kind": "essay", "body": "kept text of the form"}, "", nil).
		must(t, http.StatusBadRequest, `role="alert"`, "needs a name", ">kept text of the form</textarea>", `<option value="essay" selected>`)
	a.templateForm("staff", "/templates", csrf, map[string]string{"name": "Kept name", "kind_other": "poem", "body": "  \n "}, "", nil).
		must(t, http.StatusBadRequest, "has no text", `value="Kept name"`, `value="poem"`)
	a.templateForm("staff", "/templates", csrf, map[string]string{"name": "Huge"}, "huge.txt", bytes.Repeat([]byte("word "), store.MaxTemplateBytes/4)).
		must(t, http.StatusRequestEntityTooLarge, `value="Huge"`)
	a.templateForm("staff", "/templates", csrf, map[string]string{"name": "Huge", "body": strings.Repeat("word ", store.MaxTemplateBytes/4)}, "", nil).
		must(t, http.StatusRequestEntityTooLarge, "at most 262144 bytes")
	a.templateForm("staff", "/templates", csrf, map[string]string{"name": "A PDF"}, "prompt.pdf", []byte("%PDF-1.4")).
		must(t, http.StatusBadRequest, "not a .txt file", "paste")
	a.templateForm("staff", "/templates", csrf, map[string]string{"name": "Both", "body": "typed"}, "prompt.txt", []byte("from a file")).
		must(t, http.StatusBadRequest, "not both")
	if ts := a.listTemplates(); len(ts) != 0 {
		t.Fatalf("refused forms registered %v", ts)
	}

	// register from a text file (with a byte-order mark) for the essays
	r = a.templateForm("staff", "/templates", csrf, map[string]string{"name": "Essay opening", "kind": "essay"}, "opening.txt", []byte("\ufeff"+a.essayOwn+"\n"))
	if r.status != http.StatusSeeOther {
		t.Fatalf("register: %d\n%.2000s", r.status, r.body)
	}
	loc, _ := url.Parse(r.header.Get("Location"))
	done := loc.Query().Get("done")
	if loc.Path != "/templates" || !strings.Contains(done, `Essay opening, registered for documents of kind "essay"; the next run indexes 1 document again.`) {
		t.Fatalf("after registering: %s", r.header.Get("Location"))
	}
	ts := a.listTemplates()
	if len(ts) != 1 || ts[0].Name != "Essay opening" || ts[0].Kind != "essay" || ts[0].CreatedBy != "staff" || strings.HasPrefix(ts[0].Body, "\ufeff") {
		t.Fatalf("registered %+v: want the essay opening for kind essay, by staff, without the byte-order mark", ts)
	}
	id := ts[0].ID
	a.get("staff", loc.String()).must(t, http.StatusOK, `class="flash"`, "the next run indexes 1 document again",
		fmt.Sprintf(`<tr data-template="%d">`, id), "<strong>Essay opening</strong>", `<span class="badge" title="documents of this kind">essay</span>`,
		"<td class=\"num\">120</td>", "<td>staff</td>", words5(a.essayOwn), fmt.Sprintf(`action="/templates/%d/remove"`, id))
	a.get("teacher", "/templates").must(t, http.StatusOK, "<strong>Essay opening</strong>").mustNot(t, "Remove template")

	// the next run leaves the opening out of the essay: no similarity with
	// the thesis any more, and the report greys it with the template's name
	a.run()
	if a.similarTo(a.essay, a.thesis) {
		t.Fatal("after the run the essay is still similar to the thesis through its registered opening")
	}
	if names := a.commonTemplates(a.essay); len(names) != 1 || names[0] != "Essay opening" {
		t.Fatalf("the essay's report lists template text %v, want [Essay opening]", names)
	}
	if names := a.commonTemplates(a.thesis); len(names) != 0 {
		t.Fatalf("the thesis (kind thesis) lists template text %v: the template is for essays", names)
	}
	a.get("teacher", "/documents/"+itoa(a.essay)).must(t, http.StatusOK, `class="legend-templates"`, "<strong>Essay opening</strong>, registered by the archive staff",
		`<a href="/templates">templates</a>`, "Template text: Essay opening, registered by the archive staff: left out of the figures")

	// removal: teachers may not; staff may, once; the run after restores the similarity
	a.post("teacher", fmt.Sprintf("/templates/%d/remove", id), url.Values{}).must(t, http.StatusForbidden)
	a.do("staff", "POST", fmt.Sprintf("/templates/%d/remove", id), "application/x-www-form-urlencoded", strings.NewReader("csrf=forged")).
		must(t, http.StatusForbidden, "CSRF")
	r = a.post("staff", fmt.Sprintf("/templates/%d/remove", id), url.Values{})
	if r.status != http.StatusSeeOther || !strings.Contains(r.header.Get("Location"), url.QueryEscape(fmt.Sprintf("Template %d removed; the next run indexes 1 document again", id))) {
		t.Fatalf("remove: %d %q", r.status, r.header.Get("Location"))
	}
	a.post("staff", fmt.Sprintf("/templates/%d/remove", id), url.Values{}).must(t, http.StatusNotFound, "no template with id")
	a.get("staff", "/templates").must(t, http.StatusOK, "No templates are registered")
	a.run()
	if !a.similarTo(a.essay, a.thesis) {
		t.Fatal("after removing the template and a run, the essay and the thesis are not similar again")
	}
	if names := a.commonTemplates(a.essay); len(names) != 0 {
		t.Fatalf("after removing the template the essay's report still lists %v", names)
	}
}

// listTemplates reads GET /api/v1/templates as the teacher.
func (a *rtArchive) listTemplates() []store.Template {
	a.t.Helper()
	r := a.get("teacher", "/api/v1/templates").must(a.t, http.StatusOK)
	var list templateList
	if err := json.Unmarshal([]byte(r.body), &list); err != nil {
		a.t.Fatal(err)
	}
	if list.Templates == nil {
		a.t.Fatalf("templates is not a list: %s", r.body)
	}
	return list.Templates
}

// TestTemplatesAPI: the JSON API registers, lists and removes templates
// with the roles, CSRF check and error codes of the other endpoints.
func TestTemplatesAPI(t *testing.T) {
	a := newRTArchive(t, true)
	teacher, staff := a.token("teacher"), a.token("staff")
	a.api(teacher, "GET", "/api/v1/templates", "", nil).must(t, http.StatusOK, `"templates": []`)

	body := func(v any) []byte { b, _ := json.Marshal(v); return b }
	valid := body(map[string]string{"name": "Thesis quote", "body": a.quote})
	a.api(teacher, "POST", "/api/v1/templates", "application/json", valid).must(t, http.StatusForbidden, `"forbidden"`)
	// a browser session needs the CSRF header
	a.do("staff", "POST", "/api/v1/templates", "application/json", bytes.NewReader(valid)).must(t, http.StatusForbidden, `"csrf"`)

	for _, c := range []struct {
		ctype  string
		body   []byte
		status int
		code   string
		msg    string
	}{
		{"application/json", body(map[string]string{"name": "", "body": "x"}), 400, "bad_request", "needs a name"},
		{"application/json", body(map[string]string{"name": "Empty", "body": " "}), 400, "bad_request", "has no text"},
		{"application/json", body(map[string]string{"name": "Huge", "body": strings.Repeat("w ", store.MaxTemplateBytes)}), 413, "too_large", "at most 262144 bytes"},
		{"application/json", []byte(`{"name": "X", "body": "y", "text": "z"}`), 400, "bad_request", "unknown field"},
		{"application/json", []byte(`{"name": "X"`), 400, "bad_request", "could not be read"},
		{"text/plain", []byte("hello"), 415, "unsupported_media_type", "application/json"},
	} {
		r := a.api(staff, "POST", "/api/v1/templates", c.ctype, c.body).must(t, c.status, `"`+c.code+`"`, c.msg)
		if t.Failed() {
			t.Fatalf("%s %.80s: %s", c.ctype, c.body, r.body)
		}
	}

	// for every kind: every live document is indexed again
	r := a.api(staff, "POST", "/api/v1/templates", "application/json", valid).must(t, http.StatusCreated)
	var created templateChange
	if err := json.Unmarshal([]byte(r.body), &created); err != nil || created.ID <= 0 || created.Documents != 4 {
		t.Fatalf("created %s (%v): want an id and 4 documents", r.body, err)
	}
	ts := a.listTemplates()
	if len(ts) != 1 || ts[0].ID != created.ID || ts[0].Kind != "" || ts[0].CreatedBy != "staff" || ts[0].Body != a.quote {
		t.Fatalf("listed %+v", ts)
	}
	a.run()
	if names := a.commonTemplates(a.essay); len(names) != 1 || names[0] != "Thesis quote" {
		t.Fatalf("the essay quotes the template's text; its report lists template text %v", names)
	}
	if a.similarTo(a.essay, a.quoted) {
		t.Fatal("the essay is still similar to the quoted source through the template's text")
	}

	a.api(teacher, "DELETE", "/api/v1/templates/"+itoa(created.ID), "", nil).must(t, http.StatusForbidden, `"forbidden"`)
	a.api(staff, "DELETE", "/api/v1/templates/9999", "", nil).must(t, http.StatusNotFound, `"not_found"`, `no template with id \"9999\"`)
	a.api(staff, "DELETE", "/api/v1/templates/abc", "", nil).must(t, http.StatusNotFound, `"not_found"`)
	a.api(staff, "DELETE", "/api/v1/templates/"+itoa(created.ID), "", nil).must(t, http.StatusOK, `"documents": 4`).mustNot(t, `"id"`)
	a.api(staff, "DELETE", "/api/v1/templates/"+itoa(created.ID), "", nil).must(t, http.StatusNotFound, `"not_found"`)
	if ts := a.listTemplates(); len(ts) != 0 {
		t.Fatalf("after removing: %+v", ts)
	}
	var actions []string
	rows, err := a.pool.Query(context.Background(), `select action || ' by ' || actor from audit_log where target_kind = 'template' and target_id = $1 order by id`, created.ID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		actions = append(actions, s)
	}
	rows.Close()
	if !slices.Equal(actions, []string{"template.registered by staff", "template.removed by staff"}) {
		t.Fatalf("audit log %q: want the registration and the removal by staff", actions)
	}
}
