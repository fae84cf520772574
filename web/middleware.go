package web

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/plagd/plagd/auth"
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

// signedIn tells whether the request carries a user.
func (p principal) signedIn() bool { return p.User.ID != 0 }

// seesRestricted tells whether the caller may read the text of a restricted
// document: admins only. Everyone else sees that it matches and how much.
func (p principal) seesRestricted() bool { return p.User.Role == auth.RoleAdmin }

// guard identifies the caller and enforces rt's role and, for state-changing
// requests made with a session cookie, the CSRF token. Refusals: an
// anonymous page visit is redirected to /login (GET) or refused 401; API
// callers get 401 JSON; a signed-in caller without the role gets 403.
func (s *Server) guard(rt Route, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := s.identify(r)
		if err != nil && !errors.Is(err, auth.ErrNoSession) && !errors.Is(err, auth.ErrBadToken) {
			s.log.Error().Err(err).Str("path", r.URL.Path).Msg("identify caller")
			s.fail(w, r, rt.API, http.StatusInternalServerError, "internal", "The server could not check who you are; try again.")
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
		if unsafeMethod(r.Method) {
			if status, code, msg := s.readForm(w, r); status != 0 {
				s.fail(w, r, rt.API, status, code, msg)
				return
			}
		}
		if unsafeMethod(r.Method) && p.Session != nil && !validCSRF(r, p.Session.CSRF) {
			s.fail(w, r, rt.API, http.StatusForbidden, "csrf",
				"The form is stale or did not come from this site (CSRF check failed): reload the page and try again.")
			return
		}
		h(w, r)
	})
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
// 413 before any handler runs. Multipart requests (uploads) may be as large
// as one file of extract.max_bytes plus the form fields; anything else
// http.max_request_bytes. JSON bodies are left for the handler to decode.
func (s *Server) readForm(w http.ResponseWriter, r *http.Request) (status int, code, msg string) {
	ct := r.Header.Get("Content-Type")
	multipart := strings.HasPrefix(ct, "multipart/form-data")
	limit := s.cfg.HTTP.MaxRequestBytes
	if multipart {
		limit = s.cfg.Extract.MaxBytes + 1<<20
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
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
			fmt.Sprintf("the request is larger than the limit of %d bytes (extract.max_bytes per uploaded file, http.max_request_bytes otherwise)", tooBig.Limit)
	case err != nil:
		return http.StatusBadRequest, "bad_form", "the form could not be read: " + err.Error()
	}
	return 0, "", ""
}

// multipartMemory is how much of a multipart request is kept in memory;
// the rest of an upload spills to temporary files.
const multipartMemory = 8 << 20

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
