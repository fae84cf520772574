package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/plagd/plagd/audit"
	"github.com/plagd/plagd/auth"
	"github.com/plagd/plagd/internal/testlog"
)

// auditEnv is an apiEnv whose server logs into a buffer, with one user of
// each role: tokens and browser sessions.
type auditEnv struct {
	*apiEnv
	log                  *testlog.Buffer
	admin, staff, teach  string // API tokens
	adminID, staffID     int64
	adminCookie, adminCS string
	staffCookie, staffCS string
}

func newAuditEnv(t *testing.T) *auditEnv {
	e := &auditEnv{apiEnv: newAPIEnv(t, true, nil), log: &testlog.Buffer{}}
	e.srv.log = zerolog.New(e.log)
	e.admin, e.staff, e.teach = e.user("ada", auth.RoleAdmin), e.user("sam", auth.RoleStaff), e.user("tess", auth.RoleTeacher)
	e.adminCookie, e.adminCS = e.session("ada")
	e.staffCookie, e.staffCS = e.session("sam")
	for name, dst := range map[string]*int64{"ada": &e.adminID, "sam": &e.staffID} {
		u, err := e.users.User(context.Background(), name)
		if err != nil {
			t.Fatal(err)
		}
		*dst = u.ID
	}
	return e
}

// entries reads the audit log straight from the database, newest first.
func (e *auditEnv) entries(f audit.Filter) []audit.Entry {
	e.t.Helper()
	list, _, err := audit.List(context.Background(), e.pool, f)
	if err != nil {
		e.t.Fatal(err)
	}
	return list
}

// restricted reads a document's flag from the database.
func (e *auditEnv) restricted(id int64) bool {
	e.t.Helper()
	var r bool
	if err := e.pool.QueryRow(context.Background(), `select restricted from documents where id = $1`, id).Scan(&r); err != nil {
		e.t.Fatal(err)
	}
	return r
}

// form is an url-encoded form body.
func form(v url.Values) reqOpt {
	return body("application/x-www-form-urlencoded", []byte(v.Encode()))
}

// wantEntry checks the newest entry of a target: actor, action and details.
func (e *auditEnv) wantEntry(kind string, id int64, actor string, actorID int64, action, details string, since time.Time) audit.Entry {
	e.t.Helper()
	list := e.entries(audit.Filter{TargetKind: kind, TargetID: id, Limit: 1})
	if len(list) == 0 {
		e.t.Fatalf("no audit entry for %s %d (want %s by %s)", kind, id, action, actor)
	}
	got := list[0]
	gotID := int64(0)
	if got.ActorID != nil {
		gotID = *got.ActorID
	}
	if got.Actor != actor || gotID != actorID || got.Action != action {
		e.t.Fatalf("newest audit entry of %s %d: %s (id %d) %s; want %s (id %d) %s", kind, id, got.Actor, gotID, got.Action, actor, actorID, action)
	}
	if details != "" {
		var want, have any
		json.Unmarshal([]byte(details), &want)
		json.Unmarshal(got.Details, &have)
		if fmt.Sprint(want) != fmt.Sprint(have) {
			e.t.Fatalf("%s of %s %d: details %s, want %s", action, kind, id, got.Details, details)
		}
	}
	if got.At.Before(since.Add(-time.Second)) || got.At.After(time.Now().Add(time.Second)) {
		e.t.Fatalf("%s at %v, not between %v and now", action, got.At, since)
	}
	if actorID != 0 && got.ClientIP != "127.0.0.1" {
		e.t.Fatalf("%s: client ip %q, want 127.0.0.1", action, got.ClientIP)
	}
	return got
}

// TestAudit_StaffCannotLiftRestriction replays the attack of issue 14 item
// 9 (unrestrict, read ?text=1, restrict again) through every way staff can
// write a document: each attempt is 403, nothing changes, no text is read.
func TestAudit_StaffCannotLiftRestriction(t *testing.T) {
	e := newAuditEnv(t)
	secret := words(91, 120)
	id := docID(t, e.do("POST", "/api/v1/documents", bearer(e.admin),
		jsonBody(map[string]any{"title": "Embargoed thesis", "text": secret, "restricted": true})).must(t, http.StatusCreated))
	e.runEngine()
	path := fmt.Sprintf("/api/v1/documents/%d", id)
	if m := e.do("GET", path+"?text=1", bearer(e.admin)).must(t, 200); m["text"] == nil {
		t.Fatalf("the admin cannot read the text: %v", m)
	}

	// 1. the JSON API, alone and hidden among other fields
	msg := e.do("PUT", path, bearer(e.staff), jsonBody(map[string]any{"restricted": false})).mustErr(t, 403, "forbidden")
	if !strings.Contains(msg, "only an admin") {
		t.Errorf("refusal does not say who may: %q", msg)
	}
	e.do("PUT", path, bearer(e.staff), jsonBody(map[string]any{"title": "renamed", "restricted": false})).mustErr(t, 403, "forbidden")
	// 2. the API's multipart form
	e.do("PUT", path, bearer(e.staff), formFile(map[string]string{"restricted": "off", "title": "renamed"}, "", "", nil)).mustErr(t, 403, "forbidden")
	// 3. the report page's edit form, with the checkbox unticked
	r := e.do("POST", fmt.Sprintf("/documents/%d/edit", id), withSession(e.staffCookie, e.staffCS),
		form(url.Values{"title": {"renamed"}, "restricted_shown": {"1"}}))
	if r.status != http.StatusForbidden || !strings.Contains(string(r.body), "only an admin") {
		t.Errorf("edit form clearing the flag: %d %.300s", r.status, r.body)
	}
	// nothing changed, and the text stays hidden
	d := doc(t, e.do("GET", path, bearer(e.staff)).must(t, 200))
	if d["restricted"] != true || d["title"] != "Embargoed thesis" {
		t.Fatalf("after refused attempts: %v", d)
	}
	if m := e.do("GET", path+"?text=1", bearer(e.staff)).mustErr(t, 403, "forbidden"); strings.Contains(m, secret[:40]) {
		t.Fatal("the refusal quotes the text")
	}
	if got := e.entries(audit.Filter{Action: "document.unrestricted"}); len(got) != 0 {
		t.Fatalf("refused attempts left audit entries: %+v", got)
	}

	// staff may restrict (it only hides a text), and may resend the flag as it is
	other := docID(t, e.do("POST", "/api/v1/documents", bearer(e.staff), jsonBody(map[string]any{"title": "Open", "text": words(92, 60)})).must(t, 201))
	since := time.Now()
	e.do("PUT", fmt.Sprintf("/api/v1/documents/%d", other), bearer(e.staff), jsonBody(map[string]any{"restricted": true})).must(t, 200)
	e.wantEntry("document", other, "sam", e.staffID, "document.restricted", `{"old": false, "new": true}`, since)
	e.do("PUT", path, bearer(e.staff), jsonBody(map[string]any{"title": "Embargoed thesis (2)", "restricted": true})).must(t, 200)
	if !e.restricted(id) {
		t.Fatal("resending restricted: true cleared it")
	}
}

// TestAudit_EditFormWithoutFieldKeepsFlag: a form (or a script) that does
// not send the restricted field leaves the flag alone; the marker field
// tells an unticked box from an absent one.
func TestAudit_EditFormWithoutFieldKeepsFlag(t *testing.T) {
	e := newAuditEnv(t)
	id := docID(t, e.do("POST", "/api/v1/documents", bearer(e.admin),
		jsonBody(map[string]any{"title": "Embargoed", "text": words(93, 80), "restricted": true})).must(t, 201))
	edit := fmt.Sprintf("/documents/%d/edit", id)
	for who, sess := range map[string][2]string{"staff": {e.staffCookie, e.staffCS}, "admin": {e.adminCookie, e.adminCS}} {
		r := e.do("POST", edit, withSession(sess[0], sess[1]), form(url.Values{"title": {"Retitled by " + who}}))
		if r.status != http.StatusSeeOther {
			t.Fatalf("%s edit without the field: %d %.300s", who, r.status, r.body)
		}
		if !e.restricted(id) {
			t.Fatalf("%s's edit without the restricted field cleared the flag", who)
		}
	}
	// the page offers the marker with the checkbox to admins only, once restricted
	page := func(cookie string) string {
		return string(e.do("GET", fmt.Sprintf("/documents/%d", id), withSession(cookie, "")).body)
	}
	if p := page(e.adminCookie); !strings.Contains(p, `name="restricted_shown"`) {
		t.Error("the admin's edit form has no restricted_shown marker")
	}
	if p := page(e.staffCookie); strings.Contains(p, `name="restricted_shown"`) || !strings.Contains(p, "only an admin can lift it") {
		t.Error("the staff edit form offers to lift the restriction")
	}
	// an admin unticking the box does clear it, and it is recorded
	since := time.Now()
	r := e.do("POST", edit, withSession(e.adminCookie, e.adminCS), form(url.Values{"restricted_shown": {"1"}}))
	if r.status != http.StatusSeeOther || e.restricted(id) {
		t.Fatalf("admin unticking: %d, restricted=%v", r.status, e.restricted(id))
	}
	e.wantEntry("document", id, "ada", e.adminID, "document.unrestricted", `{"old": true, "new": false}`, since)
}

// TestAudit_ChangesAreRecorded: admin changes of the flag, deletions,
// restorations, and every change of a user (the users and account pages)
// are in the log with who, what and when, and in the server's log.
func TestAudit_ChangesAreRecorded(t *testing.T) {
	e := newAuditEnv(t)
	since := time.Now()
	id := docID(t, e.do("POST", "/api/v1/documents", bearer(e.staff),
		jsonBody(map[string]any{"external_id": "T-7", "title": "Thesis", "text": words(94, 80), "restricted": true})).must(t, 201))
	created := e.wantEntry("document", id, "sam", e.staffID, "document.restricted", `{"old": null, "new": true, "created": true}`, since)
	if created.TargetLabel != "T-7 · Thesis" {
		t.Errorf("target label %q, want the external id and title", created.TargetLabel)
	}
	path := fmt.Sprintf("/api/v1/documents/%d", id)
	e.do("PUT", path, bearer(e.admin), jsonBody(map[string]any{"restricted": false})).must(t, 200)
	e.wantEntry("document", id, "ada", e.adminID, "document.unrestricted", `{"old": true, "new": false}`, since)
	e.do("DELETE", path, bearer(e.staff)).must(t, 200)
	e.wantEntry("document", id, "sam", e.staffID, "document.deleted", `{"restricted": false}`, since)
	e.do("PUT", path, bearer(e.staff), jsonBody(map[string]any{"deleted": false})).must(t, 200)
	e.wantEntry("document", id, "sam", e.staffID, "document.restored", "", since)
	r := e.do("POST", fmt.Sprintf("/documents/%d/delete", id), withSession(e.adminCookie, e.adminCS), form(url.Values{}))
	if r.status != http.StatusSeeOther {
		t.Fatalf("page delete: %d", r.status)
	}
	e.wantEntry("document", id, "ada", e.adminID, "document.deleted", "", since)

	// users: add, role, reset, disable on the users page; own password on the account page
	admin := withSession(e.adminCookie, e.adminCS)
	if r := e.do("POST", "/users", admin, form(url.Values{"name": {"newbie"}, "role": {"teacher"}})); r.status != 200 {
		t.Fatalf("add user: %d", r.status)
	}
	nb, err := e.users.User(context.Background(), "newbie")
	if err != nil {
		t.Fatal(err)
	}
	e.wantEntry("user", nb.ID, "ada", e.adminID, "user.created", `{"role": "teacher", "disabled": false}`, since)
	e.do("POST", "/users/newbie", admin, form(url.Values{"action": {"role"}, "role": {"staff"}}))
	e.wantEntry("user", nb.ID, "ada", e.adminID, "user.role_changed", `{"old": "teacher", "new": "staff"}`, since)
	e.do("POST", "/users/newbie", admin, form(url.Values{"action": {"reset"}}))
	e.wantEntry("user", nb.ID, "ada", e.adminID, "user.password_reset", "{}", since)
	e.do("POST", "/users/newbie", admin, form(url.Values{"action": {"disable"}}))
	e.wantEntry("user", nb.ID, "ada", e.adminID, "user.disabled", "", since)
	staffSess := withSession(e.staffCookie, e.staffCS)
	if r := e.do("POST", "/account/password", staffSess, form(url.Values{"current": {"a long password sam"},
		"new": {"another long password"}, "repeat": {"another long password"}})); r.status != http.StatusSeeOther {
		t.Fatalf("change own password: %d %.300s", r.status, r.body)
	}
	e.wantEntry("user", e.staffID, "sam", e.staffID, "user.password_changed", "", since)
	// a login that re-hashes nothing and a read change nothing in the log
	n := len(e.entries(audit.Filter{Limit: 500}))
	e.do("GET", "/api/v1/documents", bearer(e.teach)).must(t, 200)
	if m := len(e.entries(audit.Filter{Limit: 500})); m != n {
		t.Fatalf("a read wrote %d audit entries", m-n)
	}

	// every recorded change is a log line naming actor, action and target
	logged := e.log.String()
	for _, want := range []string{
		`"actor":"ada","action":"document.unrestricted","target":"document ` + fmt.Sprint(id),
		`"actor":"sam","action":"document.deleted","target":"document ` + fmt.Sprint(id),
		`"actor":"ada","action":"user.role_changed","target":"user ` + fmt.Sprint(nb.ID),
		`"actor":"ada","action":"user.password_reset","target":"user ` + fmt.Sprint(nb.ID),
	} {
		if !strings.Contains(logged, want) {
			t.Errorf("the server log lacks %s:\n%s", want, logged)
		}
	}
}

// TestAudit_PageAndAPIAreAdminOnly: the log is for admins, paged and
// filtered, on the page and in the API.
func TestAudit_PageAndAPIAreAdminOnly(t *testing.T) {
	e := newAuditEnv(t)
	var ids []int64
	for i := range 3 {
		id := docID(t, e.do("POST", "/api/v1/documents", bearer(e.staff),
			jsonBody(map[string]any{"title": fmt.Sprintf("Doc %d", i), "text": words(uint64(95+i), 60), "restricted": true})).must(t, 201))
		e.do("PUT", fmt.Sprintf("/api/v1/documents/%d", id), bearer(e.admin), jsonBody(map[string]any{"restricted": false})).must(t, 200)
		ids = append(ids, id)
	}
	for _, tok := range []string{e.staff, e.teach} {
		e.do("GET", "/api/v1/audit", bearer(tok)).mustErr(t, 403, "forbidden")
	}
	for _, c := range [][2]string{{e.staffCookie, ""}} {
		if r := e.do("GET", "/audit", withSession(c[0], c[1])); r.status != 403 || strings.Contains(string(r.body), "document.unrestricted") {
			t.Fatalf("staff on /audit: %d", r.status)
		}
	}
	// the API: newest first, paged, filtered
	m := e.do("GET", "/api/v1/audit?action=document.unrestricted&limit=2", bearer(e.admin)).must(t, 200)
	list := m["entries"].([]any)
	if len(list) != 2 || m["next_offset"] != 2.0 {
		t.Fatalf("first page: %v", m)
	}
	first := list[0].(map[string]any)
	if first["actor"] != "ada" || first["action"] != "document.unrestricted" || first["target_id"] != float64(ids[2]) ||
		first["target_kind"] != "document" || first["client_ip"] != "127.0.0.1" {
		t.Fatalf("newest entry: %v", first)
	}
	m = e.do("GET", "/api/v1/audit?action=document.unrestricted&limit=2&offset=2", bearer(e.admin)).must(t, 200)
	if list := m["entries"].([]any); len(list) != 1 || list[0].(map[string]any)["target_id"] != float64(ids[0]) || m["next_offset"] != nil {
		t.Fatalf("second page: %v", m)
	}
	m = e.do("GET", fmt.Sprintf("/api/v1/audit?target=document+%d", ids[1]), bearer(e.admin)).must(t, 200)
	if list := m["entries"].([]any); len(list) != 2 {
		t.Fatalf("target filter: %v", m)
	}
	m = e.do("GET", "/api/v1/audit?action=user.", bearer(e.admin)).must(t, 200)
	if list := m["entries"].([]any); len(list) != 3 { // the three users of the test
		t.Fatalf("action prefix filter: %d entries", len(list))
	}
	e.do("GET", "/api/v1/audit?action=drop+table", bearer(e.admin)).mustErr(t, 400, "bad_request")
	e.do("GET", "/api/v1/audit?target=document+x", bearer(e.admin)).mustErr(t, 400, "bad_request")
	// the page, for the admin
	r := e.do("GET", "/audit?action=document.unrestricted", withSession(e.adminCookie, ""))
	if r.status != 200 || strings.Count(string(r.body), `<td class="mono"><a href="/audit?action=document.unrestricted">`) != 3 {
		t.Fatalf("admin /audit: %d %.2000s", r.status, r.body)
	}
}
