package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/plagd/plagd/auth"
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
	key := name + "|" + clientIP(r)
	if wait := s.logins.blocked(key, s.now()); wait > 0 {
		s.showLogin(w, r, http.StatusTooManyRequests, next, name,
			"Too many failed attempts. Try again in "+wait.Round(time.Second).String()+".")
		return
	}
	u, err := s.users.Authenticate(r.Context(), name, r.PostFormValue("password"))
	if errors.Is(err, auth.ErrBadCredentials) {
		s.logins.failed(key, s.now())
		s.log.Warn().Str("user", name).Str("ip", clientIP(r)).Msg("sign-in refused")
		s.showLogin(w, r, http.StatusUnauthorized, next, name, "Wrong user name or password.")
		return
	}
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	s.logins.succeeded(key)
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

// safeNext keeps a post-login redirect on this site: a local path only.
func safeNext(next string) string {
	if next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") {
		return "/"
	}
	return next
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

// loginThrottle slows password guessing: after 5 failures for one user name
// from one address, each further attempt waits twice as long as the last
// (1 s, 2 s, 4 s ... up to 15 min). It lives in memory: a restart forgives,
// which is fine for a brake that only has to make guessing slow.
type loginThrottle struct {
	mu   sync.Mutex
	fail map[string]*failures
}

type failures struct {
	n     int
	until time.Time
}

func newLoginThrottle() *loginThrottle { return &loginThrottle{fail: map[string]*failures{}} }

func (t *loginThrottle) blocked(key string, now time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	if f := t.fail[key]; f != nil && now.Before(f.until) {
		return f.until.Sub(now)
	}
	return 0
}

func (t *loginThrottle) failed(key string, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.fail) > 100_000 { // bound memory under a spray of names
		clear(t.fail)
	}
	f := t.fail[key]
	if f == nil {
		f = &failures{}
		t.fail[key] = f
	}
	f.n++
	if f.n > 5 {
		f.until = now.Add(min(time.Second<<min(f.n-6, 20), 15*time.Minute))
	}
}

func (t *loginThrottle) succeeded(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.fail, key)
}
