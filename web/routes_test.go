package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/plagd/plagd/archive"
	"github.com/plagd/plagd/auth"
	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/ingest"
	"github.com/plagd/plagd/report"
	"github.com/plagd/plagd/store"
)

// publicRoutes are the only routes anyone may call without signing in. A
// new route is public only if it is added here too, on purpose.
var publicRoutes = []string{
	"GET /api/openapi.json",
	"GET /login",
	"POST /login",
	"POST /logout",
}

// routePath fills a route pattern's parameters with values that exist.
func routePath(pattern string, id, other int64) string {
	return strings.NewReplacer(
		"{$}", "",
		"{id}", fmt.Sprint(id),
		"{other}", fmt.Sprint(other),
		"{key}", "x",
		"{name}", "someone",
	).Replace(pattern)
}

// TestEveryRouteRefusesAnonymousAndWrongRole walks the whole route table:
// every route that needs a role refuses a caller without credentials and
// every caller whose role is below it, by token and by session alike.
func TestEveryRouteRefusesAnonymousAndWrongRole(t *testing.T) {
	e := newAPIEnv(t, true, nil)
	ctx := context.Background()
	id, err := store.CreateDocument(ctx, e.pool, store.DocumentInput{Header: archive.Header{Title: "one"}, Text: words(1, 60)})
	if err != nil {
		t.Fatal(err)
	}
	other, err := store.CreateDocument(ctx, e.pool, store.DocumentInput{Header: archive.Header{Title: "two"}, Text: words(2, 60)})
	if err != nil {
		t.Fatal(err)
	}
	tokens := map[auth.Role]string{}
	type sess struct{ cookie, csrf string }
	sessions := map[auth.Role]sess{}
	for _, role := range auth.Roles() {
		name := "u-" + string(role)
		tokens[role] = e.user(name, role)
		c, x := e.session(name)
		sessions[role] = sess{c, x}
	}

	var public []string
	for _, rt := range e.srv.Routes() {
		name := rt.Method + " " + rt.Pattern
		if rt.Role == "" {
			public = append(public, name)
			continue
		}
		path := routePath(rt.Pattern, id, other)
		t.Run(name, func(t *testing.T) {
			// anonymous
			r := e.do(rt.Method, path)
			switch {
			case rt.API:
				r.mustErr(t, http.StatusUnauthorized, "unauthenticated")
			case rt.Method == http.MethodGet:
				if r.status != http.StatusSeeOther || r.header.Get("Location") != "/login?next="+url.QueryEscape(path) {
					t.Errorf("anonymous GET: %d to %q, want 303 to /login?next=%s", r.status, r.header.Get("Location"), url.QueryEscape(path))
				}
			default:
				if r.status != http.StatusUnauthorized {
					t.Errorf("anonymous %s: %d, want 401", rt.Method, r.status)
				}
			}
			// a bogus token is no better
			r = e.do(rt.Method, path, bearer("plagd_not-a-token"))
			if rt.API {
				r.mustErr(t, http.StatusUnauthorized, "unauthenticated")
			} else if r.status != http.StatusSeeOther && r.status != http.StatusUnauthorized {
				t.Errorf("bogus token: %d", r.status)
			}
			// every role below the route's, by token and by session (with CSRF)
			for _, role := range auth.Roles() {
				if role.Allows(rt.Role) {
					continue
				}
				for how, opt := range map[string]reqOpt{
					"token":   bearer(tokens[role]),
					"session": withSession(sessions[role].cookie, sessions[role].csrf),
				} {
					r := e.do(rt.Method, path, opt)
					if rt.API {
						r.mustErr(t, http.StatusForbidden, "forbidden")
					} else if r.status != http.StatusForbidden {
						t.Errorf("%s by %s: %d, want 403", role, how, r.status)
					}
				}
			}
			// the route's own role gets past the guard (reads only: writes
			// would change what the other subtests see)
			if rt.Method == http.MethodGet {
				r := e.do(rt.Method, path, bearer(tokens[rt.Role]))
				if r.status == http.StatusUnauthorized || r.status == http.StatusForbidden ||
					strings.HasPrefix(r.header.Get("Location"), "/login") {
					t.Errorf("%s is refused: %d %.300s", rt.Role, r.status, r.body)
				}
			}
		})
	}
	slices.Sort(public)
	if !slices.Equal(public, publicRoutes) {
		t.Errorf("public routes are %q, want exactly %q", public, publicRoutes)
	}
	if e.runner.calls() != 0 {
		t.Errorf("refused requests reached the runner %d times", e.runner.calls())
	}
	var deleted bool
	if err := e.pool.QueryRow(ctx, `select deleted_at is not null from documents where id = $1`, id).Scan(&deleted); err != nil || deleted {
		t.Errorf("a refused request deleted the document (%v)", err)
	}
}

// TestRouteGuard_CSRFTokensAndDisabledUsers checks the credentials
// themselves: CSRF on cookie-authenticated writes, none for tokens,
// revoked tokens and disabled users.
func TestRouteGuard_CSRFTokensAndDisabledUsers(t *testing.T) {
	e := newAPIEnv(t, true, nil)
	ctx := context.Background()
	adminTok := e.user("ada", auth.RoleAdmin)
	staffTok := e.user("sam", auth.RoleStaff)
	cookie, csrf := e.session("ada")
	staffCookie, staffCSRF := e.session("sam")
	id, err := store.CreateDocument(ctx, e.pool, store.DocumentInput{Header: archive.Header{Title: "one"}, Text: words(1, 60)})
	if err != nil {
		t.Fatal(err)
	}

	// a session write without the CSRF token is refused, and does nothing
	msg := e.do("POST", "/api/v1/runs", withSession(cookie, "")).mustErr(t, http.StatusForbidden, "csrf")
	if !strings.Contains(msg, "CSRF") {
		t.Errorf("csrf message: %s", msg)
	}
	e.do("POST", "/api/v1/runs", withSession(cookie, "not-the-token")).mustErr(t, http.StatusForbidden, "csrf")
	e.do("DELETE", fmt.Sprintf("/api/v1/documents/%d", id), withSession(cookie, "")).mustErr(t, http.StatusForbidden, "csrf")
	e.do("PUT", fmt.Sprintf("/api/v1/documents/%d", id), withSession(cookie, ""), jsonBody(map[string]any{"title": "x"})).mustErr(t, http.StatusForbidden, "csrf")
	e.do("POST", "/api/v1/documents", withSession(staffCookie, ""), formFile(nil, "a.txt", "", []byte("some words"))).mustErr(t, http.StatusForbidden, "csrf")
	// another user's CSRF token does not do either
	e.do("POST", "/api/v1/runs", withSession(cookie, staffCSRF)).mustErr(t, http.StatusForbidden, "csrf")
	if e.runner.calls() != 0 {
		t.Fatal("a request without a valid CSRF token reached the runner")
	}
	if d := doc(t, e.do("GET", fmt.Sprintf("/api/v1/documents/%d", id), bearer(adminTok)).must(t, 200)); d["status"] == "deleted" || d["title"] != "one" {
		t.Fatalf("a request without a CSRF token changed the document: %v", d)
	}
	// with the token (header, or the form field of a multipart upload) it passes
	e.do("POST", "/api/v1/runs", withSession(cookie, csrf)).must(t, http.StatusAccepted)
	e.do("POST", "/api/v1/documents", withSession(staffCookie, ""), formFile(map[string]string{"csrf": staffCSRF}, "a.txt", "", []byte("some words"))).
		must(t, http.StatusCreated)
	e.do("PUT", fmt.Sprintf("/api/v1/documents/%d", id), withSession(staffCookie, staffCSRF), jsonBody(map[string]any{"title": "x"})).must(t, 200)
	// pages' forms are checked alike: the form field csrf
	form := func(v string) reqOpt { return body("application/x-www-form-urlencoded", []byte(v)) }
	if r := e.do("POST", "/runs", withSession(cookie, ""), form("")); r.status != http.StatusForbidden {
		t.Errorf("page form without CSRF token: %d, want 403", r.status)
	}
	if r := e.do("POST", "/runs", withSession(cookie, ""), form("csrf="+url.QueryEscape(csrf))); r.status != http.StatusSeeOther {
		t.Errorf("page form with CSRF token: %d, want 303: %.300s", r.status, r.body)
	}
	// reads need no CSRF token
	e.do("GET", "/api/v1/me", withSession(cookie, "")).must(t, 200)
	// a bearer token needs none
	e.do("POST", "/api/v1/runs", bearer(adminTok)).must(t, http.StatusAccepted)
	if e.runner.calls() != 3 {
		t.Errorf("runner called %d times, want 3", e.runner.calls())
	}

	// bogus, malformed and revoked tokens
	e.do("GET", "/api/v1/me", bearer("plagd_bogus")).mustErr(t, http.StatusUnauthorized, "unauthenticated")
	e.do("GET", "/api/v1/me", func(r *http.Request) { r.Header.Set("Authorization", "Basic YWRhOnB3") }).
		mustErr(t, http.StatusUnauthorized, "unauthenticated")
	toks, err := e.users.Tokens(ctx, "sam")
	if err != nil || len(toks) != 1 {
		t.Fatalf("tokens of sam: %v %v", toks, err)
	}
	if err := e.users.RevokeToken(ctx, toks[0].ID); err != nil {
		t.Fatal(err)
	}
	e.do("GET", "/api/v1/me", bearer(staffTok)).mustErr(t, http.StatusUnauthorized, "unauthenticated")
	e.do("POST", "/api/v1/documents", bearer(staffTok), jsonBody(map[string]any{"text": "abc"})).mustErr(t, http.StatusUnauthorized, "unauthenticated")

	// a disabled user's session and tokens are anonymous
	if err := e.users.SetDisabled(ctx, "ada", true); err != nil {
		t.Fatal(err)
	}
	e.do("GET", "/api/v1/me", withSession(cookie, csrf)).mustErr(t, http.StatusUnauthorized, "unauthenticated")
	e.do("POST", "/api/v1/runs", withSession(cookie, csrf)).mustErr(t, http.StatusUnauthorized, "unauthenticated")
	e.do("GET", "/api/v1/me", bearer(adminTok)).mustErr(t, http.StatusUnauthorized, "unauthenticated")
	r := e.do("GET", "/documents", withSession(cookie, csrf))
	if r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/login?next=") {
		t.Errorf("a disabled user's session on a page: %d to %q", r.status, r.header.Get("Location"))
	}
	if e.runner.calls() != 3 {
		t.Errorf("a disabled user reached the runner")
	}
}

// TestOpenAPI_CoversEveryRoute checks the hand-written OpenAPI file against
// the route table: every /api/v1 route is described with its method, and
// nothing else is.
func TestOpenAPI_CoversEveryRoute(t *testing.T) {
	e := newAPIEnv(t, false, nil)
	r := e.do("GET", "/api/openapi.json")
	spec := r.must(t, http.StatusOK)
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q", ct)
	}
	if v, _ := spec["openapi"].(string); !strings.HasPrefix(v, "3.1.") {
		t.Errorf("openapi %q, want 3.1.x", v)
	}
	paths, _ := spec["paths"].(map[string]any)
	routes := map[string]bool{}
	for _, rt := range e.srv.Routes() {
		if !strings.HasPrefix(rt.Pattern, "/api/") {
			continue
		}
		routes[strings.ToLower(rt.Method)+" "+rt.Pattern] = true
		p, _ := paths[rt.Pattern].(map[string]any)
		op, _ := p[strings.ToLower(rt.Method)].(map[string]any)
		if op == nil {
			t.Errorf("openapi.json lacks %s %s", rt.Method, rt.Pattern)
			continue
		}
		resp, _ := op["responses"].(map[string]any)
		if len(resp) == 0 {
			t.Errorf("%s %s has no responses", rt.Method, rt.Pattern)
		}
		if rt.Role != "" {
			for _, code := range []string{"401", "403"} {
				if resp[code] == nil {
					t.Errorf("%s %s does not document %s", rt.Method, rt.Pattern, code)
				}
			}
		}
	}
	methods := []string{"get", "put", "post", "delete", "patch", "head", "options", "trace"}
	for path, item := range paths {
		for m := range item.(map[string]any) {
			if slices.Contains(methods, m) && !routes[m+" "+path] {
				t.Errorf("openapi.json describes %s %s, which is no route", strings.ToUpper(m), path)
			}
		}
	}
	// every $ref points at something
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				var cur any = spec
				for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
					m, _ := cur.(map[string]any)
					cur = m[part]
				}
				if cur == nil {
					t.Errorf("dangling $ref %s", ref)
				}
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(spec)
	comp, _ := spec["components"].(map[string]any)
	schemes, _ := comp["securitySchemes"].(map[string]any)
	schemas, _ := comp["schemas"].(map[string]any)
	for _, s := range []string{"bearerToken", "sessionCookie", "csrfHeader"} {
		if schemes[s] == nil {
			t.Errorf("no security scheme %s", s)
		}
	}
	for _, s := range []string{"Document", "SimilarRow", "RunInfo", "Error", "Report"} {
		if schemas[s] == nil {
			t.Errorf("no schema %s", s)
		}
	}
	// the schemas name every field the API sends
	for _, c := range []struct {
		name string
		v    any
	}{{"Document", store.Document{}}, {"SimilarRow", store.SimilarRow{}}, {"RunInfo", store.RunInfo{}},
		{"Report", report.Report{}}, {"Report", apiDocReportBody{}}, {"SourceReport", report.SourceReport{}},
		{"NearDuplicate", engine.NearDuplicate{}}, {"RelatedDocument", engine.RelatedDoc{}}, {"RelatedList", relatedList{}},
		{"Template", store.Template{}}, {"TemplateList", templateList{}}, {"TemplateCreate", templateCreate{}}, {"TemplateChange", templateChange{}},
		{"DocumentResponse", documentResponse{}}, {"Identical", store.Identical{}}, {"IdenticalError", identicalResponse{}},
		{"ImportResult", importResult{}}, {"ManifestOutcome", ingest.ManifestOutcome{}}, {"ManifestError", ingest.ManifestError{}},
		{"RunStatus", runStatus{}}} {
		name := c.name
		props, _ := schemas[name].(map[string]any)["properties"].(map[string]any)
		rt := reflect.TypeOf(c.v)
		for i := range rt.NumField() {
			f := rt.Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || tag == "-" || tag == "" {
				continue
			}
			if props[tag] == nil {
				t.Errorf("schema %s lacks %q", name, tag)
			}
		}
	}
}
