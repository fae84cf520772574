package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/plagd/plagd/auth"
)

// accountData is the account page: change one's password, and the API
// tokens one holds (a new token is shown once, right after it is made).
type accountData struct {
	pageBase
	Tokens   []auth.Token
	NewToken string
	Error    string
}

func (s *Server) accountPage(w http.ResponseWriter, r *http.Request) {
	s.showAccount(w, r, http.StatusOK, "", "")
}

func (s *Server) showAccount(w http.ResponseWriter, r *http.Request, status int, newToken, msg string) {
	toks, err := s.users.Tokens(r.Context(), who(r).User.Name)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	s.render(w, r, status, "account", accountData{pageBase: s.base(r, "Account"), Tokens: toks, NewToken: newToken, Error: msg})
}

// changePassword needs the current password, so a session left open on a
// shared computer cannot be turned into a permanent login.
func (s *Server) changePassword(w http.ResponseWriter, r *http.Request) {
	me := who(r).User
	if _, err := s.users.Authenticate(r.Context(), me.Name, r.PostFormValue("current")); err != nil {
		s.showAccount(w, r, http.StatusUnauthorized, "", "The current password is wrong.")
		return
	}
	pw := r.PostFormValue("new")
	if pw != r.PostFormValue("repeat") {
		s.showAccount(w, r, http.StatusBadRequest, "", "The two new passwords differ.")
		return
	}
	if err := auth.CheckPasswordPolicy(pw); err != nil {
		s.showAccount(w, r, http.StatusBadRequest, "", capitalize(err.Error())+".")
		return
	}
	if err := s.usersAs(r).SetPassword(r.Context(), me.Name, pw); err != nil {
		s.pageError(w, r, err)
		return
	}
	s.log.Info().Str("user", me.Name).Msg("password changed")
	// SetPassword ended every session of the user, this one included.
	http.Redirect(w, r, "/login?next=/account", http.StatusSeeOther)
}

func (s *Server) createToken(w http.ResponseWriter, r *http.Request) {
	me := who(r).User
	label := strings.TrimSpace(r.PostFormValue("name"))
	if label == "" {
		label = "web " + s.now().Format("2006-01-02")
	}
	var ttl time.Duration
	if d := r.PostFormValue("days"); d != "" && d != "0" {
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 || n > 3650 {
			s.showAccount(w, r, http.StatusBadRequest, "", "Expiry must be a number of days from 0 (never) to 3650.")
			return
		}
		ttl = time.Duration(n) * 24 * time.Hour
	}
	plain, _, err := s.usersAs(r).CreateToken(r.Context(), me.Name, label, ttl)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	s.log.Info().Str("user", me.Name).Str("token", label).Msg("API token created")
	s.showAccount(w, r, http.StatusOK, plain, "")
}

// revokeToken revokes one of the caller's own tokens (admins may revoke
// anyone's, from the users page).
func (s *Server) revokeToken(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(r, "id")
	if !ok {
		s.pageError(w, r, fmt.Errorf("%w: no such token", errNotFound))
		return
	}
	p := who(r)
	owner := p.User.Name
	if p.User.Role == auth.RoleAdmin {
		owner = ""
	}
	toks, err := s.users.Tokens(r.Context(), owner)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	mine := false
	for _, t := range toks {
		mine = mine || t.ID == id
	}
	if !mine {
		s.pageError(w, r, fmt.Errorf("%w: no such token of yours", errNotFound))
		return
	}
	if err := s.usersAs(r).RevokeToken(r.Context(), id); err != nil {
		s.pageError(w, r, err)
		return
	}
	back := "/account"
	if ref := r.PostFormValue("back"); ref == "/users" {
		back = ref
	}
	http.Redirect(w, r, back+"?done="+url.QueryEscape("Token revoked."), http.StatusSeeOther)
}

// usersData is the admin's users page.
type usersData struct {
	pageBase
	Users       []auth.User
	Tokens      []auth.Token
	Roles       []auth.Role
	NewPassword string // shown once after adding a user or resetting a password
	NewFor      string
	Error       string
}

func (s *Server) usersPage(w http.ResponseWriter, r *http.Request) {
	s.showUsers(w, r, http.StatusOK, usersData{})
}

func (s *Server) showUsers(w http.ResponseWriter, r *http.Request, status int, d usersData) {
	var err error
	if d.Users, err = s.users.Users(r.Context()); err != nil {
		s.pageError(w, r, err)
		return
	}
	if d.Tokens, err = s.users.Tokens(r.Context(), ""); err != nil {
		s.pageError(w, r, err)
		return
	}
	d.pageBase, d.Roles = s.base(r, "Users"), auth.Roles()
	s.render(w, r, status, "users", d)
}

// addUser creates an account with a generated password, shown once for the
// admin to hand over (the user changes it on the account page).
func (s *Server) addUser(w http.ResponseWriter, r *http.Request) {
	name := strings.ToLower(strings.TrimSpace(r.PostFormValue("name")))
	role, err := auth.ParseRole(r.PostFormValue("role"))
	if err != nil {
		s.showUsers(w, r, http.StatusBadRequest, usersData{Error: capitalize(err.Error()) + "."})
		return
	}
	pw := auth.GeneratePassword()
	if _, err := s.usersAs(r).AddUser(r.Context(), name, role, pw); err != nil {
		status := http.StatusBadRequest
		if errors.Is(err, auth.ErrUserExists) {
			status = http.StatusConflict
		}
		s.showUsers(w, r, status, usersData{Error: capitalize(err.Error()) + "."})
		return
	}
	s.log.Info().Str("admin", who(r).User.Name).Str("user", name).Str("role", string(role)).Msg("user added")
	s.showUsers(w, r, http.StatusOK, usersData{NewPassword: pw, NewFor: name})
}

// updateUser changes one user's role, disables or enables them, or resets
// their password ("action" field). Admins cannot demote or disable
// themselves, so an archive never locks out its last admin by a slip.
func (s *Server) updateUser(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	me := who(r).User
	u, err := s.users.User(r.Context(), name)
	if errors.Is(err, auth.ErrNoUser) {
		s.pageError(w, r, fmt.Errorf("%w: no user %q", errNotFound, name))
		return
	} else if err != nil {
		s.pageError(w, r, err)
		return
	}
	self := u.ID == me.ID
	d := usersData{}
	switch action := r.PostFormValue("action"); action {
	case "role":
		role, err := auth.ParseRole(r.PostFormValue("role"))
		if err != nil || (self && role != auth.RoleAdmin) {
			s.showUsers(w, r, http.StatusBadRequest, usersData{Error: "Choose a valid role; you cannot take the admin role from yourself."})
			return
		}
		err = s.usersAs(r).SetRole(r.Context(), name, role)
		if err != nil {
			s.pageError(w, r, err)
			return
		}
	case "disable", "enable":
		if self {
			s.showUsers(w, r, http.StatusBadRequest, usersData{Error: "You cannot disable yourself."})
			return
		}
		if err := s.usersAs(r).SetDisabled(r.Context(), name, action == "disable"); err != nil {
			s.pageError(w, r, err)
			return
		}
	case "reset":
		pw := auth.GeneratePassword()
		if err := s.usersAs(r).SetPassword(r.Context(), name, pw); err != nil {
			s.pageError(w, r, err)
			return
		}
		d.NewPassword, d.NewFor = pw, name
	default:
		s.pageError(w, r, fmt.Errorf("%w: unknown action %q", errBadRequest, action))
		return
	}
	s.log.Info().Str("admin", me.Name).Str("user", name).Str("action", r.PostFormValue("action")).Msg("user changed")
	if d.NewPassword != "" {
		s.showUsers(w, r, http.StatusOK, d)
		return
	}
	http.Redirect(w, r, "/users?done="+url.QueryEscape("Saved."), http.StatusSeeOther)
}

// capitalize upper-cases the first letter of an error message for a page.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
