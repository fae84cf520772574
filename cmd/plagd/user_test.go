package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"os/user"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plagd/plagd/auth"
	"github.com/plagd/plagd/internal/cli"
	"github.com/plagd/plagd/internal/pgtest"
)

// plagdStdin is plagd with stdin fed from input.
func plagdStdin(t *testing.T, url, input string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(plagdBin(t), args...)
	cmd.Env = append(os.Environ(), "PLAGD_DATABASE_URL="+url, "PLAGD_DATA_DIR="+dataDirs(t),
		"PLAGD_LOG_FORMAT=json", "PLAGD_LOG_LEVEL=warn")
	cmd.Stdin = strings.NewReader(input)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return string(out), exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

var (
	printedPassword = regexp.MustCompile(`password for [^:]+: (\S+)\n`)
	printedToken    = regexp.MustCompile(`plagd_[A-Za-z0-9_-]{43}`)
)

// TestCLI_User walks an administrator through `plagd user`, checking each
// step against the auth store the web server will use.
func TestCLI_User(t *testing.T) {
	ctx := context.Background()
	url := pgtest.NewDB(t)
	store := auth.NewStore(pgtest.Pool(t, url))
	run := func(wantCode int, args ...string) string {
		t.Helper()
		out, code := plagd(t, url, append([]string{"user"}, args...)...)
		if code != wantCode {
			t.Fatalf("plagd user %s: exit %d, want %d: %s", strings.Join(args, " "), code, wantCode, out)
		}
		return out
	}
	password := func(out string) string {
		t.Helper()
		m := printedPassword.FindStringSubmatch(out)
		if m == nil || !strings.Contains(out, "shown only now") {
			t.Fatalf("no password shown once in %q", out)
		}
		return m[1]
	}
	mustLogin := func(name, pw string, role auth.Role) {
		t.Helper()
		u, err := store.Authenticate(ctx, name, pw)
		if err != nil || u.Role != role {
			t.Fatalf("login as %s: %+v, %v; want role %s", name, u, err, role)
		}
	}

	// add, with a generated password.
	out := run(0, "add", "Alice", "--role", "admin")
	alicePW := password(out)
	mustLogin("alice", alicePW, auth.RoleAdmin)

	// add again: refused, with advice; --if-missing: a no-op that succeeds.
	if out := run(1, "add", "alice", "--role", "staff"); !strings.Contains(out, "already exists") || !strings.Contains(out, "plagd user reset alice") {
		t.Fatalf("duplicate add: %s", out)
	}
	if out := run(0, "add", "alice", "--role", "staff", "--if-missing"); !strings.Contains(out, "already exists") || printedPassword.MatchString(out) {
		t.Fatalf("add --if-missing of an existing user: %s", out)
	}
	mustLogin("alice", alicePW, auth.RoleAdmin) // unchanged

	// add with the password on stdin; it is not echoed.
	out, code := plagdStdin(t, url, "bob's long secret\n", "user", "add", "bob", "--role", "teacher", "--password-stdin", "--if-missing")
	if code != 0 || strings.Contains(out, "bob's long secret") || printedPassword.MatchString(out) {
		t.Fatalf("add --password-stdin: exit %d: %s", code, out)
	}
	mustLogin("bob", "bob's long secret", auth.RoleTeacher)
	if out, code := plagdStdin(t, url, "short\n", "user", "add", "carol", "--role", "teacher", "--password-stdin"); code != 1 || !strings.Contains(out, "at least 10 characters") {
		t.Fatalf("weak password: exit %d: %s", code, out)
	}
	if out, code := plagdStdin(t, url, "", "user", "add", "carol", "--role", "teacher", "--password-stdin"); code != 2 || !strings.Contains(out, "no password") {
		t.Fatalf("empty stdin: exit %d: %s", code, out)
	}

	// Usage errors exit 2 and say what is valid.
	if out := run(2, "add", "carol", "--role", "root"); !strings.Contains(out, "teacher, staff, admin") {
		t.Fatalf("unknown role: %s", out)
	}
	if out := run(2, "add", "carol"); !strings.Contains(out, "--role is required") {
		t.Fatalf("no role: %s", out)
	}
	run(2, "add")
	run(2, "add", "a", "b", "--role", "staff")
	run(2, "frobnicate")
	if out := run(1, "add", "not valid!", "--role", "staff"); !strings.Contains(out, "invalid user name") {
		t.Fatalf("bad name: %s", out)
	}
	if _, err := store.User(ctx, "carol"); !errors.Is(err, auth.ErrNoUser) {
		t.Fatalf("a refused add stored carol: %v", err)
	}

	// reset: a new generated password, the old one and the sessions are gone.
	u, _ := store.User(ctx, "alice")
	sess, _, err := store.StartSession(ctx, u.ID, time.Hour, "", "")
	if err != nil {
		t.Fatal(err)
	}
	newPW := password(run(0, "reset", "alice"))
	if newPW == alicePW {
		t.Fatal("reset printed the old password")
	}
	mustLogin("alice", newPW, auth.RoleAdmin)
	if _, err := store.Authenticate(ctx, "alice", alicePW); err != auth.ErrBadCredentials {
		t.Fatalf("old password after reset: %v", err)
	}
	if _, err := store.Session(ctx, sess); !errors.Is(err, auth.ErrNoSession) {
		t.Fatalf("session after reset: %v", err)
	}
	if out, code := plagdStdin(t, url, "bob's new password\r\n", "user", "reset", "bob", "--password-stdin"); code != 0 {
		t.Fatalf("reset --password-stdin: exit %d: %s", code, out)
	}
	mustLogin("bob", "bob's new password", auth.RoleTeacher)
	if out := run(1, "reset", "nobody"); !strings.Contains(out, "no such user") {
		t.Fatalf("reset of an unknown user: %s", out)
	}

	// token: printed once, resolves to its user, listed by prefix.
	out = run(0, "token", "alice", "--name", "moodle", "--expires", "90d")
	plain := printedToken.FindString(out)
	if plain == "" || !strings.Contains(out, "Authorization: Bearer "+plain) {
		t.Fatalf("token output: %s", out)
	}
	if u, err := store.TokenUser(ctx, plain); err != nil || u.Name != "alice" {
		t.Fatalf("printed token: %+v, %v", u, err)
	}
	run(2, "token", "alice", "--expires", "soon")
	run(2, "token", "alice", "--expires", "-3d")
	run(1, "token", "nobody")

	var toks []auth.Token
	out = run(0, "tokens", "--json")
	if err := json.Unmarshal([]byte(out[strings.Index(out, "["):]), &toks); err != nil {
		t.Fatalf("tokens --json: %v in %s", err, out)
	}
	if len(toks) != 1 || toks[0].Name != "moodle" || toks[0].UserName != "alice" || toks[0].ExpiresAt == nil ||
		toks[0].ExpiresAt.Sub(toks[0].CreatedAt) != 90*24*time.Hour || !strings.HasPrefix(plain, toks[0].Prefix) {
		t.Fatalf("tokens: %+v", toks)
	}
	if out := run(0, "tokens", "alice"); !strings.Contains(out, toks[0].Prefix) || !strings.Contains(out, "moodle") || strings.Contains(out, plain) {
		t.Fatalf("tokens table: %s", out)
	}
	if out := run(0, "tokens", "bob"); !strings.Contains(out, "no API tokens") {
		t.Fatalf("tokens of bob: %s", out)
	}

	// revoke.
	run(0, "revoke", strconv.FormatInt(toks[0].ID, 10))
	if _, err := store.TokenUser(ctx, plain); !errors.Is(err, auth.ErrBadToken) {
		t.Fatalf("revoked token: %v", err)
	}
	if out := run(0, "tokens"); !strings.Contains(out, "revoked") {
		t.Fatalf("tokens after revoke: %s", out)
	}
	run(2, "revoke", plain)
	if out := run(1, "revoke", "9999"); !strings.Contains(out, "no API token with id 9999") {
		t.Fatalf("revoke unknown id: %s", out)
	}

	// role, disable, enable.
	run(0, "role", "bob", "staff")
	mustLogin("bob", "bob's new password", auth.RoleStaff)
	if out := run(2, "role", "bob", "king"); !strings.Contains(out, "teacher, staff, admin") {
		t.Fatalf("unknown role: %s", out)
	}
	run(1, "role", "nobody", "staff")
	run(0, "disable", "bob")
	if _, err := store.Authenticate(ctx, "bob", "bob's new password"); err != auth.ErrBadCredentials {
		t.Fatalf("disabled bob logged in: %v", err)
	}
	var users []auth.User
	out = run(0, "list", "--json")
	if err := json.Unmarshal([]byte(out[strings.Index(out, "["):]), &users); err != nil {
		t.Fatalf("list --json: %v in %s", err, out)
	}
	if len(users) != 2 || users[0].Name != "alice" || users[0].Role != auth.RoleAdmin || users[0].Disabled ||
		users[1].Name != "bob" || users[1].Role != auth.RoleStaff || !users[1].Disabled {
		t.Fatalf("list: %+v", users)
	}
	if out := run(0, "list"); !strings.Contains(out, "disabled") || !strings.Contains(out, "alice") {
		t.Fatalf("list table: %s", out)
	}
	run(0, "enable", "bob")
	mustLogin("bob", "bob's new password", auth.RoleStaff)
	run(1, "disable", "nobody")
}

// `plagd user list --json` on a fresh database prints an empty list, not null.
func TestCLI_UserListEmpty(t *testing.T) {
	out, code := plagd(t, pgtest.NewDB(t), "user", "list", "--json")
	if code != 0 || strings.TrimSpace(out) != "[]" {
		t.Fatalf("list --json with no users: exit %d: %q", code, out)
	}
}

func TestParseExpires(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"": 0, "never": 0, "90d": 90 * 24 * time.Hour, "1d": 24 * time.Hour, "12h": 12 * time.Hour, "1h30m": 90 * time.Minute,
	} {
		if got, err := parseExpires(in); got != want || err != nil {
			t.Errorf("parseExpires(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"0", "0d", "-1h", "-2d", "1.5d", "d", "soon", "10y"} {
		var ue cli.UsageError
		if _, err := parseExpires(in); !errors.As(err, &ue) {
			t.Errorf("parseExpires(%q): %v, want a usage error", in, err)
		}
	}
}

// TestCLI_UserChangesAreAudited: `plagd user` records its changes in the
// audit log as "cli:<os user>", in the transaction of the change.
func TestCLI_UserChangesAreAudited(t *testing.T) {
	ctx := context.Background()
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	for _, args := range [][]string{
		{"add", "dora", "--role", "teacher"},
		{"role", "dora", "staff"},
		{"reset", "dora"},
		{"disable", "dora"},
		{"role", "nobody", "admin"}, // fails: nothing to record
	} {
		plagd(t, url, append([]string{"user"}, args...)...)
	}
	osUser, err := osUserName()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := pool.Query(ctx, `select actor, actor_id is null, action, target_label, details::text from audit_log order by id`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var actor, action, label, details string
		var noID bool
		if err := rows.Scan(&actor, &noID, &action, &label, &details); err != nil {
			t.Fatal(err)
		}
		if actor != "cli:"+osUser || !noID || label != "dora" {
			t.Errorf("%s recorded as actor %q (no user id: %v) on %q, want cli:%s on dora", action, actor, noID, label, osUser)
		}
		got = append(got, action+" "+details)
	}
	want := []string{
		`user.created {"role": "teacher", "disabled": false}`,
		`user.role_changed {"new": "staff", "old": "teacher"}`,
		`user.password_reset {}`,
		`user.disabled {}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("audit log after plagd user:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// osUserName is the operating-system user the CLI names.
func osUserName() (string, error) {
	u, err := user.Current()
	if err != nil {
		return "", err
	}
	return u.Username, nil
}
