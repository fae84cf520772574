// Package web is plagd's web interface and JSON API, served by `plagd serve`:
// the teacher's similarity report, "check a file now", the documents and
// runs pages for archive staff, /api/v1 for integrations (openapi.json),
// and the access control in front of all of it. Templates and static assets
// are embedded, so a deployment is one file.
//
// # Invariants
//
//   - Every route names the least role it needs (routes.go) and one
//     middleware enforces it, so no handler can forget the check; writes
//     from a browser session carry its CSRF token.
//   - The package runs no SQL. It reads and edits the archive through
//     package store (documents, runs, status, headers), lets new content
//     enter through package ingest (read once, stored, compared with the
//     archive), and leaves users, sessions and tokens to auth and the audit
//     log to audit; it holds the pool as a *store.DB and does not import
//     pgx (`go list -f '{{.Imports}}' ./web` shows it).
//   - Every change that decides who may read what (the restricted flag,
//     deletions, roles, tokens) is made in a transaction bound to the
//     caller (audited), whose triggers record it in the audit log. Only an
//     admin may clear a restriction or read a restricted text.
//   - A restricted document's text is shown to admins only; other roles see
//     what it matches and how much. A report served from the cache takes
//     the headers, restriction included, as they are now (freshen).
//   - Pages and JSON answers are built from the same store and engine
//     values (archive.Header, store.Document, engine reports); JSON keys and
//     their order are the API's contract (docs/WEB.md, openapi.json).
//
// # Data in and out
//
// In: HTTP requests (forms, multipart uploads, JSON bodies), bounded by
// http.max_request_bytes and extract.max_bytes before a handler reads
// them. Out: HTML pages, JSON, redirects; 503 with Retry-After while the
// database is unreachable (unavailable.go).
//
// # Tables
//
// None directly. Through store and ingest: documents (and simhashes via
// engine.NearDups); through auth: users, sessions, api_tokens; audit_log by
// the triggers of the audited transactions.
package web
