package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/plagd/plagd/auth"
	"github.com/plagd/plagd/internal/safetext"
)

// loginCSRFCookie carries the token the login form must echo (double
// submit): there is no session yet to hold one, and without it another site
// could sign a victim in to an account of its choosing.
const loginCSRFCookie = "plagd_login_csrf"

type loginData struct {
	pageBase
	Next, Name, Error, LoginCSRF string
	InsecureTransport            bool
}

func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	next := safeNext(r.URL.Query().Get("next"))
	if who(r).signedIn() {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	s.showLogin(w, r, http.StatusOK, next, "", "")
}

// showLogin renders the form with a fresh login CSRF token.
func (s *Server) showLogin(w http.ResponseWriter, r *http.Request, status int, next, name, msg string) {
	tok := randomToken()
	http.SetCookie(w, &http.Cookie{Name: loginCSRFCookie, Value: tok, Path: "/login", HttpOnly: true,
		Secure: s.cookieSecure(r), SameSite: http.SameSiteStrictMode, MaxAge: 3600})
	s.render(w, r, status, "login", loginData{pageBase: s.base(r, "Sign in"), Next: next, Name: name, Error: msg,
		LoginCSRF: tok, InsecureTransport: s.cookieSecure(r) && r.TLS == nil && r.Header.Get("X-Forwarded-Proto") == ""})
}

func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	next := safeNext(r.PostFormValue("next"))
	name := strings.ToLower(strings.TrimSpace(r.PostFormValue("name")))
	c, err := r.Cookie(loginCSRFCookie)
	if err != nil || c.Value == "" || subtle.ConstantTimeCompare([]byte(c.Value), []byte(r.PostFormValue("csrf"))) != 1 {
		s.showLogin(w, r, http.StatusForbidden, next, name, "The sign-in form expired or did not come from this site. Please try again.")
		return
	}
	ip := clientIP(r)
	if wait := s.logins.reserve(name, ip, s.now()); wait > 0 {
		s.showLogin(w, r, http.StatusTooManyRequests, next, name,
			"Too many failed attempts. Try again in "+wait.Round(time.Second).String()+".")
		return
	}
	u, err := s.users.Authenticate(r.Context(), name, r.PostFormValue("password"))
	if errors.Is(err, auth.ErrBadCredentials) {
		s.log.Warn().Str("user", safetext.Line(name, 100)).Str("ip", ip).Msg("sign-in refused")
		s.showLogin(w, r, http.StatusUnauthorized, next, name, "Wrong user name or password.")
		return
	}
	if err != nil {
		s.logins.refund(name, ip, false) // not judged: the attempt does not count
		if errors.Is(err, auth.ErrBusy) {
			w.Header().Set("Retry-After", "5")
			s.showLogin(w, r, http.StatusServiceUnavailable, next, name, "Too many sign-ins at once. Try again in a few seconds.")
			return
		}
		s.pageError(w, r, err)
		return
	}
	s.logins.succeeded(name, ip)
	if n, err := s.users.PruneSessions(r.Context()); err == nil && n > 0 { // expired logins, swept as new ones arrive
		s.log.Debug().Int64("sessions", n).Msg("expired sessions removed")
	}
	token, _, err := s.users.StartSession(r.Context(), u.ID, s.cfg.HTTP.SessionTTL, clientIP(r), r.UserAgent())
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	// A browser-session cookie (no Expires): the server slides the session's
	// expiry with use (auth.Store.Session), which a fixed cookie expiry
	// would cut short; closing the browser ends it on that computer.
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: token, Path: "/", HttpOnly: true,
		Secure: s.cookieSecure(r), SameSite: http.SameSiteLaxMode})
	http.SetCookie(w, &http.Cookie{Name: loginCSRFCookie, Path: "/login", MaxAge: -1})
	s.log.Info().Str("user", u.Name).Str("role", string(u.Role)).Str("ip", clientIP(r)).Msg("signed in")
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// logout ends the session. It is a POST with the session's CSRF token (the
// guard checks it), so another site cannot sign a user out.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(sessionCookie); err == nil && c.Value != "" {
		if p := who(r); p.Session != nil {
			_ = s.users.EndSession(r.Context(), c.Value)
		}
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		Secure: s.cookieSecure(r), SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// maxNextBytes bounds a post-login redirect target.
const maxNextBytes = 2048

// safeNext keeps a post-login redirect on this site: only a canonical
// same-site path is accepted, anything else becomes "/". Browsers are
// lenient where a check is not: they drop tabs and line breaks from URLs
// ("/\t/evil.example" becomes "//evil.example", another host), read a
// backslash as a slash, and some decode percent escapes before deciding.
// So the target must parse as a URL without scheme, host or user, and
// both the raw text and the decoded path must start with exactly one '/'
// and hold no backslash, control, format or space character.
func safeNext(next string) string {
	if next == "" || len(next) > maxNextBytes || !sameSitePath(next) {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" || !sameSitePath(u.Path) {
		return "/"
	}
	return u.RequestURI()
}

// sameSitePath tells whether p starts with a single '/' and holds no
// character a browser might turn into another host: a backslash, a
// control or format character, white space or invalid UTF-8.
func sameSitePath(p string) bool {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.ContainsRune(p, '\\') || !utf8.ValidString(p) {
		return false
	}
	for _, r := range p {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// clientIP is the caller's address for logs and the login throttle. A
// forwarding proxy's X-Forwarded-For is not trusted: it is set by clients.
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// randomToken is 32 random bytes, base64url.
func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
