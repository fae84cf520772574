package web

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/plagd/plagd/auth"
	"github.com/plagd/plagd/internal/safetext"
)

// sessionCookie holds a browser's session token (only its hash is stored).
const sessionCookie = "plagd_session"

// principal is who is calling: a user signed in with a browser session, or
// an API token. Token callers need no CSRF token, because a browser never
// sends an Authorization header by itself.
type principal struct {
	User    auth.User
	Session *auth.Session // nil for token callers
}

type ctxKey struct{}

// who returns the caller of a guarded request (zero User for public routes
// visited anonymously).
func who(r *http.Request) principal {
	p, _ := r.Context().Value(ctxKey{}).(principal)
	return p
}

// via names how a request came, for the log: "web" from a signed-in
// browser (the pages, and their scripts calling the API), "api" with a
// token.
func via(r *http.Request) string {
	if who(r).Session != nil {
		return "web"
	}
	return "api"
}

// signedIn tells whether the request carries a user.
func (p principal) signedIn() bool { return p.User.ID != 0 }

// seesRestricted tells whether the caller may read the text of a restricted
// document: admins only. Everyone else sees that it matches and how much.
func (p principal) seesRestricted() bool { return p.User.Role == auth.RoleAdmin }

// guard identifies the caller and enforces rt's role and, for state-changing
// requests made with a session cookie, the CSRF token. Refusals: an
// anonymous page visit is redirected to /login (GET) or refused 401; API
// callers get 401 JSON; a signed-in caller without the role gets 403.
//
// Nothing of the body is read before the route and the caller's role are
// known: a route that takes no upload reads at most http.max_form_bytes
// and no multipart form; an upload route needs a role, so an anonymous or
// too-weak caller is refused before its body is touched. Every multipart
// form the guard parses is removed when the handler returns, on every path
// (net/http removes only the form of the request it created, and the guard
// parses on a copy that carries the caller).
func (s *Server) guard(rt Route, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !rt.Upload {
			r.Body = http.MaxBytesReader(w, r.Body, s.cfg.HTTP.MaxFormBytes)
		}
		if msg := badQuery(r.URL.Query()); msg != "" {
			s.fail(w, r, rt.API, http.StatusBadRequest, "bad_request", msg)
			return
		}
		p, err := s.identify(r)
		if err != nil && !errors.Is(err, auth.ErrNoSession) && !errors.Is(err, auth.ErrBadToken) {
			s.internalError(w, r, rt.API, fmt.Errorf("identify caller: %w", err))
			return
		}
		if rt.API && errors.Is(err, auth.ErrBadToken) {
			apiError(w, http.StatusUnauthorized, "unauthenticated", err.Error())
			return
		}
		// The caller is known from here on, so that even a refusal page
		// shows who is signed in.
		r = r.WithContext(context.WithValue(r.Context(), ctxKey{}, p))
		if rt.Role != "" {
			if !p.signedIn() {
				if !rt.API && r.Method == http.MethodGet {
					http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
					return
				}
				w.Header().Set("WWW-Authenticate", `Bearer realm="plagd"`)
				s.fail(w, r, rt.API, http.StatusUnauthorized, "unauthenticated",
					"Sign in first: a session cookie from /login, or an API token in 'Authorization: Bearer <token>' (plagd user token NAME).")
				return
			}
			if !p.User.Role.Allows(rt.Role) {
				s.fail(w, r, rt.API, http.StatusForbidden, "forbidden",
					"This needs the "+string(rt.Role)+" role; you are signed in as "+p.User.Name+" ("+string(p.User.Role)+").")
				return
			}
		}
		if unsafeMethod(r.Method) && rt.Upload && rt.Role != "" {
			release, ok := s.uploads.tryAcquire()
			if !ok {
				w.Header().Set("Retry-After", strconv.Itoa(uploadRetrySeconds))
				s.fail(w, r, rt.API, http.StatusServiceUnavailable, "busy", fmt.Sprintf(
					"%d uploads are being processed (http.max_concurrent_uploads); try again in %d seconds.",
					cap(s.uploads.slots), uploadRetrySeconds))
				return
			}
			defer release()
			s.allowUploadTime(w)
		}
		if h := r.Header.Get("X-CSRF-Token"); unsafeMethod(r.Method) && !rt.NoBody && p.Session != nil && h != "" && !validCSRF(r, p.Session.CSRF) {
			s.fail(w, r, rt.API, http.StatusForbidden, "csrf", // refused before the body is read
				"The form is stale or did not come from this site (CSRF check failed): reload the page and try again.")
			return
		}
		if unsafeMethod(r.Method) && !rt.NoBody {
			defer removeForm(r)
			if status, code, msg := s.readForm(w, r, rt.Upload && rt.Role != ""); status != 0 {
				s.fail(w, r, rt.API, status, code, msg)
				return
			}
		}
		if unsafeMethod(r.Method) && !rt.NoBody && p.Session != nil && !validCSRF(r, p.Session.CSRF) {
			s.fail(w, r, rt.API, http.StatusForbidden, "csrf",
				"The form is stale or did not come from this site (CSRF check failed): reload the page and try again.")
			return
		}
		h(w, r)
	})
}

// maxQueryValueBytes bounds one query parameter (a search, a status).
const maxQueryValueBytes = 1000

// badQuery checks every query parameter before any handler sees it: a NUL
// or invalid UTF-8 (which PostgreSQL refuses, and which once surfaced as a
// 500 quoting the database) or an overlong value is the client's mistake,
// answered 400 with a plain message. It returns "" for a good query.
func badQuery(q url.Values) string {
	for k, vs := range q {
		for _, v := range append([]string{k}, vs...) {
			switch {
			case !utf8.ValidString(v):
				return "the query parameter " + strconv.Quote(safetext.Line(k, 40)) + " is not valid UTF-8: percent-encode UTF-8 text"
			case strings.ContainsRune(v, 0):
				return "the query parameter " + strconv.Quote(safetext.Line(k, 40)) + " holds a NUL character, which no search or value may contain"
			case len(v) > maxQueryValueBytes:
				return fmt.Sprintf("the query parameter %q is longer than %d bytes", safetext.Line(k, 40), maxQueryValueBytes)
			}
		}
	}
	return ""
}

// removeForm deletes the temporary files of r's parsed multipart form.
func removeForm(r *http.Request) {
	if r.MultipartForm != nil {
		_ = r.MultipartForm.RemoveAll()
	}
}

// identify finds the caller: an Authorization: Bearer token first, else the
// session cookie. No credentials at all is not an error (zero principal).
func (s *Server) identify(r *http.Request) (principal, error) {
	if h := r.Header.Get("Authorization"); h != "" {
		tok, ok := strings.CutPrefix(h, "Bearer ")
		if !ok {
			return principal{}, auth.ErrBadToken
		}
		u, err := s.users.TokenUser(r.Context(), strings.TrimSpace(tok))
		return principal{User: u}, err
	}
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" {
		return principal{}, nil
	}
	sess, err := s.users.Session(r.Context(), c.Value)
	if err != nil {
		return principal{}, err
	}
	return principal{User: sess.User, Session: &sess}, nil
}

func unsafeMethod(m string) bool {
	return m != http.MethodGet && m != http.MethodHead && m != http.MethodOptions
}

// validCSRF checks the request's CSRF token (form field "csrf" or header
// X-CSRF-Token, for script requests) against the session's.
func validCSRF(r *http.Request, want string) bool {
	got := r.Header.Get("X-CSRF-Token")
	if got == "" && r.MultipartForm != nil && len(r.MultipartForm.Value["csrf"]) > 0 {
		got = r.MultipartForm.Value["csrf"][0]
	}
	if got == "" && r.PostForm != nil {
		got = r.PostForm.Get("csrf")
	}
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// readForm bounds the request body and parses a form body up front, so
// that the CSRF check can read it and an oversized upload is refused with
// 413 before any handler runs. Only upload routes (whose caller's role the
// guard has checked) parse multipart forms, as large as one file of
// extract.max_bytes plus the form fields, and JSON bodies up to
// http.max_request_bytes; every other body, and a multipart one sent where
// no upload is taken, is limited to http.max_form_bytes or refused. JSON
// bodies are left for the handler to decode.
func (s *Server) readForm(w http.ResponseWriter, r *http.Request, upload bool) (status int, code, msg string) {
	ct := r.Header.Get("Content-Type")
	multipart := strings.HasPrefix(ct, "multipart/form-data")
	switch {
	case multipart && !upload:
		return http.StatusUnsupportedMediaType, "unsupported_media_type",
			"this address takes no file uploads: send the form as application/x-www-form-urlencoded"
	case multipart:
		r.Body = http.MaxBytesReader(w, r.Body, s.cfg.Extract.MaxBytes+1<<20)
	case upload:
		r.Body = http.MaxBytesReader(w, r.Body, s.cfg.HTTP.MaxRequestBytes)
	}
	var err error
	switch {
	case multipart:
		err = r.ParseMultipartForm(multipartMemory)
	case strings.HasPrefix(ct, "application/x-www-form-urlencoded"):
		err = r.ParseForm()
	default:
		return 0, "", ""
	}
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return http.StatusRequestEntityTooLarge, "too_large",
			fmt.Sprintf("the request is larger than the limit of %d bytes (extract.max_bytes per uploaded file, "+
				"http.max_form_bytes for forms without a file)", tooBig.Limit)
	case err != nil:
		return http.StatusBadRequest, "bad_form", "the form could not be read: " + safetext.Line(err.Error(), 200)
	}
	return 0, "", ""
}

// multipartMemory is how much of a multipart request is kept in memory;
// the rest of an upload spills to temporary files, which the guard removes
// when the request is answered.
const multipartMemory = 8 << 20

// uploadRetrySeconds is the Retry-After of a refused upload.
const uploadRetrySeconds = 10

// uploadSlots bounds the uploads read and processed at once
// (http.max_concurrent_uploads): each may hold a file in memory and run an
// extraction. A full set answers 503 at once rather than queueing, so a
// flood of uploads costs connections, not memory.
type uploadSlots struct{ slots chan struct{} }

func newUploadSlots(n int) *uploadSlots { return &uploadSlots{slots: make(chan struct{}, max(n, 1))} }

// tryAcquire takes a slot if one is free; release gives it back.
func (u *uploadSlots) tryAcquire() (release func(), ok bool) {
	select {
	case u.slots <- struct{}{}:
		return func() { <-u.slots }, true
	default:
		return nil, false
	}
}

// allowUploadTime extends the connection's deadlines for a permitted
// upload: the server's http.read_timeout cuts off slow anonymous bodies,
// while a signed-in uploader on a slow link gets http.upload_timeout to
// send its file. Servers that cannot set deadlines (tests' recorders) keep
// theirs.
func (s *Server) allowUploadTime(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	until := time.Now().Add(s.cfg.HTTP.UploadTimeout)
	_ = rc.SetReadDeadline(until)
	_ = rc.SetWriteDeadline(until.Add(s.cfg.HTTP.WriteTimeout))
}

// cookieSecure decides the session cookie's Secure flag (http.cookie_secure).
func (s *Server) cookieSecure(r *http.Request) bool {
	switch s.cfg.HTTP.CookieSecure {
	case "always":
		return true
	case "never":
		return false
	}
	if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
		return true
	}
	return !loopbackHost(r.Host)
}

// loopbackHost tells whether a Host header names this machine.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}
