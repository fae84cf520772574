package web

import (
	_ "embed"
	"net/http"
)

// openAPISpec is the JSON API's description, written by hand: every
// /api/v1 route of routes.go is in it (TestOpenAPICoversEveryRoute checks).
//
//go:embed openapi.json
var openAPISpec []byte

// openAPI serves the OpenAPI 3.1 document. It is public, like any API's
// documentation: it names routes and fields, never data.
func (s *Server) openAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(openAPISpec)
}
