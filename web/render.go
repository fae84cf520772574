package web

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/rs/zerolog"

	"github.com/plagd/plagd/auth"
	"github.com/plagd/plagd/internal/safetext"
)

// pageBase is what every page's layout needs: the title, who is signed in
// (for the menu and the sign-out form) and the CSRF token forms carry.
type pageBase struct {
	Title string
	User  auth.User
	CSRF  string
	Path  string // the request path, to mark the current menu entry
	Flash string // a one-line confirmation ("3 files uploaded")
	// Refresh, when set, reloads the page after so many seconds when
	// scripts are off (a pending report); with scripts, app.js follows
	// the runs instead.
	Refresh int
}

// base fills pageBase for r.
func (s *Server) base(r *http.Request, title string) pageBase {
	p := who(r)
	b := pageBase{Title: title, User: p.User, Path: r.URL.Path, Flash: r.URL.Query().Get("done")}
	if p.Session != nil {
		b.CSRF = p.Session.CSRF
	}
	return b
}

// Can tells a template whether the signed-in user has at least role, to
// show or hide actions (the route guard enforces it anyway).
func (b pageBase) Can(role string) bool { return b.User.Role.Allows(auth.Role(role)) }

// render executes page name with data into a buffer first, so that a
// template error becomes a clean 500 instead of half a page.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, name string, data any) {
	t, ok := s.pages[name]
	if !ok {
		s.log.Error().Str("page", name).Msg("no such template")
		http.Error(w, "page template missing: "+name, http.StatusInternalServerError)
		return
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, data); err != nil {
		s.errEvent(r.Context(), err).Str("page", name).Str("path", r.URL.Path).Msg("render")
		http.Error(w, "the page could not be rendered; the server log has the details", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store") // pages show who is signed in and texts that may be restricted
	w.WriteHeader(status)
	_, _ = buf.WriteTo(w)
}

// errorPage is the data of the error template.
type errorPage struct {
	pageBase
	Status  int
	Message string
}

// fail refuses a request: JSON for API routes, an error page otherwise.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, api bool, status int, code, msg string) {
	if api {
		apiError(w, status, code, msg)
		return
	}
	s.render(w, r, status, "error", errorPage{pageBase: s.base(r, http.StatusText(status)), Status: status, Message: msg})
}

// pageError turns a handler's error into an error page: errNotFound and
// errBadRequest carry their status, anything else is logged and shown as 500.
func (s *Server) pageError(w http.ResponseWriter, r *http.Request, err error) {
	status, code := errorStatus(err)
	if status == http.StatusInternalServerError {
		s.internalError(w, r, false, err)
		return
	}
	s.fail(w, r, false, status, code, err.Error())
}

// internalError answers an unexpected error: the log gets the error with a
// request id, the user only "internal error (request id X)" and the id in
// the X-Request-Id header, never the error's text, which may quote the
// database, a file path or the query that failed.
func (s *Server) internalError(w http.ResponseWriter, r *http.Request, api bool, err error) {
	if hungUp(r, err) {
		// Not an error of the server's: nobody is there to answer.
		s.log.Debug().Str("method", r.Method).Str("path", safetext.Line(r.URL.Path, 200)).
			Msg("the client closed the request before its answer")
		return
	}
	id := requestID()
	s.log.Error().Err(err).Str("request_id", id).Str("method", r.Method).
		Str("path", safetext.Line(r.URL.Path, 200)).Msg("internal error")
	w.Header().Set("X-Request-Id", id)
	s.fail(w, r, api, http.StatusInternalServerError, "internal",
		"internal error (request id "+id+"): the server log has the details; try again, or tell the administrator the request id")
}

// hungUp reports whether err only says that the client went away: the
// request's context ended (a closed connection or tab) and err is that.
func hungUp(r *http.Request, err error) bool { return goneAway(r.Context(), err) }

func goneAway(ctx context.Context, err error) bool {
	return ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))
}

// errEvent is the log event for err, met while answering a request whose
// context is ctx: an error, or a debug line when it only says that the
// client went away (a load test's closed connections once logged 82
// errors).
func (s *Server) errEvent(ctx context.Context, err error) *zerolog.Event {
	if goneAway(ctx, err) {
		return s.log.Debug().Err(err)
	}
	return s.log.Error().Err(err)
}

// requestID is a short random id that ties an error answer to its log line.
func requestID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Errors handlers return to say which status fits.
var (
	errNotFound   = errors.New("not found")
	errBadRequest = errors.New("bad request")
	errForbidden  = errors.New("forbidden")
	errConflict   = errors.New("conflict")
)

// errorStatus maps an error to an HTTP status and a stable error code.
func errorStatus(err error) (int, string) {
	switch {
	case errors.Is(err, errNotFound):
		return http.StatusNotFound, "not_found"
	case errors.Is(err, errBadRequest):
		return http.StatusBadRequest, "bad_request"
	case errors.Is(err, errForbidden):
		return http.StatusForbidden, "forbidden"
	case errors.Is(err, errConflict):
		return http.StatusConflict, "conflict"
	case errors.Is(err, errTooLarge):
		return http.StatusRequestEntityTooLarge, "too_large"
	case errors.Is(err, errUnsupportedType):
		return http.StatusUnsupportedMediaType, "unsupported_media_type"
	case errors.Is(err, auth.ErrBusy):
		return http.StatusServiceUnavailable, "busy"
	}
	return http.StatusInternalServerError, "internal"
}

// apiErrorBody is every API error: a stable code for programs and a message
// for people.
type apiErrorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// apiError writes a JSON error.
func apiError(w http.ResponseWriter, status int, code, msg string) {
	var b apiErrorBody
	b.Error.Code, b.Error.Message = code, msg
	writeJSON(w, status, b)
}

// writeJSON writes v as the response body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	// Messages say "<token>" as written: the answer is application/json
	// with X-Content-Type-Options: nosniff, never read as HTML, so the
	// \u003c escapes only made it unreadable.
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// apiFail writes a handler's error as JSON, logging unexpected ones.
func (s *Server) apiFail(w http.ResponseWriter, r *http.Request, err error) {
	status, code := errorStatus(err)
	if status == http.StatusInternalServerError {
		s.internalError(w, r, true, err)
		return
	}
	apiError(w, status, code, err.Error())
}
