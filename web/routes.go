package web

import (
	"net/http"
	"strings"

	"github.com/plagd/plagd/auth"
)

// Route is one method and path of the server with the least role it needs.
type Route struct {
	Method  string
	Pattern string    // http.ServeMux pattern path, e.g. /documents/{id}
	Role    auth.Role // "" = public (login, static files, the OpenAPI file)
	API     bool      // JSON errors and 401 instead of pages and a redirect to /login
	// Upload routes take files (multipart forms) or large JSON texts: only
	// they parse multipart bodies, may read more than http.max_form_bytes,
	// get http.upload_timeout to send it, and count against
	// http.max_concurrent_uploads. Every route that takes an upload needs a
	// role, so no body is read before the caller is known.
	Upload bool
	// NoBody routes never read the request body (the not-found page).
	NoBody bool
}

// register wires every route. The table is the access policy at a glance:
//
//	teacher  reads reports and documents, checks files, manages own tokens
//	staff    + uploads, edits and deletes documents, registers and
//	           removes templates (teachers read them)
//	admin    + triggers runs, sees restricted texts, lifts restrictions,
//	           manages users, reads the audit log
func (s *Server) register() {
	const (
		public  = auth.Role("")
		teacher = auth.RoleTeacher
		staff   = auth.RoleStaff
		admin   = auth.RoleAdmin
	)
	s.mux.Handle("GET /static/", http.StripPrefix("/static/", staticHandler()))

	// sign-in
	s.page("GET /login", public, s.loginPage)
	s.page("POST /login", public, s.login)
	s.page("POST /logout", public, s.logout)

	// pages
	s.page("GET /{$}", teacher, s.overviewPage)
	s.page("GET /documents", teacher, s.documentsPage)
	s.uploadPage("POST /documents", staff, s.uploadDocuments)
	s.uploadPage("POST /documents/import", staff, s.importManifest)
	s.page("GET /documents/{id}", teacher, s.reportPage)
	s.page("GET /documents/{id}/compare/{other}", teacher, s.comparePage)
	s.page("GET /documents/{id}/report.pdf", teacher, s.reportPDFPage)
	s.page("POST /documents/{id}/filters", teacher, s.saveFilters)
	s.page("POST /documents/{id}/review", teacher, s.reviewReport)
	s.uploadPage("POST /documents/{id}/edit", staff, s.editDocument)
	s.page("POST /documents/{id}/delete", staff, s.deleteDocument)
	s.page("GET /check", teacher, s.checkForm)
	s.uploadPage("POST /check", teacher, s.checkSubmit)
	s.page("GET /check/{key}", teacher, s.checkResult)
	s.page("GET /check/{key}/compare/{other}", teacher, s.checkCompare)
	s.page("GET /templates", teacher, s.templatesPage)
	s.uploadPage("POST /templates", staff, s.addTemplate)
	s.page("POST /templates/{id}/remove", staff, s.removeTemplate)
	s.page("GET /runs", teacher, s.runsPage)
	s.page("POST /runs", admin, s.runNow)
	s.page("GET /account", teacher, s.accountPage)
	s.page("POST /account/password", teacher, s.changePassword)
	s.page("POST /account/tokens", teacher, s.createToken)
	s.page("POST /account/tokens/{id}/revoke", teacher, s.revokeToken)
	s.page("GET /users", admin, s.usersPage)
	s.page("POST /users", admin, s.addUser)
	s.page("POST /users/{name}", admin, s.updateUser)
	s.page("GET /audit", admin, s.auditPage)

	// JSON API (openapi.json documents each of these)
	s.api("GET /api/openapi.json", public, s.openAPI)
	s.api("GET /api/v1/me", teacher, s.apiMe)
	s.api("GET /api/v1/documents", teacher, s.apiListDocuments)
	s.uploadAPI("POST /api/v1/documents", staff, s.apiCreateDocument)
	s.uploadAPI("POST /api/v1/documents/import", staff, s.apiImportManifest)
	s.api("GET /api/v1/documents/{id}", teacher, s.apiGetDocument)
	s.uploadAPI("PUT /api/v1/documents/{id}", staff, s.apiUpdateDocument)
	s.api("DELETE /api/v1/documents/{id}", staff, s.apiDeleteDocument)
	s.api("GET /api/v1/documents/{id}/similar", teacher, s.apiSimilar)
	s.api("GET /api/v1/documents/{id}/near-duplicates", teacher, s.apiNearDuplicates)
	s.api("GET /api/v1/documents/{id}/related", teacher, s.apiRelated)
	s.api("GET /api/v1/documents/{id}/report", teacher, s.apiReport)
	s.api("GET /api/v1/documents/{id}/report.pdf", teacher, s.apiReportPDF)
	s.api("GET /api/v1/documents/{id}/review", teacher, s.apiGetReview)
	s.api("PUT /api/v1/documents/{id}/review", teacher, s.apiPutReview)
	s.api("GET /api/v1/documents/{id}/report/{other}", teacher, s.apiPairReport)
	s.uploadAPI("POST /api/v1/check", teacher, s.apiCheck)
	s.api("GET /api/v1/templates", teacher, s.apiListTemplates)
	s.uploadAPI("POST /api/v1/templates", staff, s.apiCreateTemplate)
	s.api("DELETE /api/v1/templates/{id}", staff, s.apiDeleteTemplate)
	s.api("GET /api/v1/status", teacher, s.apiStatus)
	s.api("GET /api/v1/runs", teacher, s.apiListRuns)
	s.api("POST /api/v1/runs", admin, s.apiTriggerRun)
	s.api("GET /api/v1/audit", admin, s.apiAudit)

	// the browser's default icon request, and a proper page for unknown paths
	s.mux.Handle("GET /favicon.ico", http.RedirectHandler("/static/favicon.svg", http.StatusMovedPermanently))
	s.mux.Handle("/", s.guard(Route{Pattern: "/", NoBody: true}, func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, false, http.StatusNotFound, "not_found", "There is no page at "+r.URL.Path+".")
	}))
	// anything else under /api/ is a JSON 404, not a login page
	s.mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		apiError(w, http.StatusNotFound, "not_found", "no API route "+r.Method+" "+r.URL.Path+"; see /api/openapi.json")
	})
}

// page registers a page route behind the access check.
func (s *Server) page(pattern string, role auth.Role, h http.HandlerFunc) {
	s.add(pattern, role, false, h)
}

// api registers a JSON API route behind the access check.
func (s *Server) api(pattern string, role auth.Role, h http.HandlerFunc) {
	s.add(pattern, role, true, h)
}

// uploadPage registers a page route that takes files.
func (s *Server) uploadPage(pattern string, role auth.Role, h http.HandlerFunc) {
	s.addRoute(pattern, Route{Role: role, Upload: true}, h)
}

// uploadAPI registers a JSON API route that takes files or large texts.
func (s *Server) uploadAPI(pattern string, role auth.Role, h http.HandlerFunc) {
	s.addRoute(pattern, Route{Role: role, API: true, Upload: true}, h)
}

func (s *Server) add(pattern string, role auth.Role, api bool, h http.HandlerFunc) {
	s.addRoute(pattern, Route{Role: role, API: api}, h)
}

func (s *Server) addRoute(pattern string, rt Route, h http.HandlerFunc) {
	method, path, _ := strings.Cut(pattern, " ")
	rt.Method, rt.Pattern = method, path
	s.routes = append(s.routes, rt)
	s.mux.Handle(pattern, s.guard(rt, h))
}
