package auth

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plagd/plagd/internal/pgtest"
)

const pw = "a proper password"

func mustAdd(t *testing.T, s *Store, name string, role Role) User {
	t.Helper()
	u, err := s.AddUser(context.Background(), name, role, pw)
	if err != nil {
		t.Fatalf("AddUser(%s): %v", name, err)
	}
	return u
}

func TestAddUser(t *testing.T) {
	ctx := context.Background()
	s, _, c := newStore(t)

	u, err := s.AddUser(ctx, " Alice ", RoleStaff, pw)
	if err != nil {
		t.Fatal(err)
	}
	if u.ID == 0 || u.Name != "alice" || u.Role != RoleStaff || u.Disabled || !u.CreatedAt.Equal(c.now()) {
		t.Fatalf("AddUser returned %+v", u)
	}
	if got, err := s.User(ctx, "ALICE"); err != nil || got != u {
		t.Fatalf("User(ALICE) = %+v, %v; want %+v", got, err, u)
	}
	for _, name := range []string{"alice", "Alice"} {
		if _, err := s.AddUser(ctx, name, RoleAdmin, pw); !errors.Is(err, ErrUserExists) {
			t.Errorf("AddUser(%s) again: %v, want ErrUserExists", name, err)
		}
	}
	for _, name := range []string{"", "-dash", ".dot", "a b", "semi;colon", "ümlaut", strings.Repeat("x", 65)} {
		if _, err := s.AddUser(ctx, name, RoleTeacher, pw); err == nil || !strings.Contains(err.Error(), "invalid user name") {
			t.Errorf("AddUser(%q): %v, want an invalid-name error", name, err)
		}
	}
	for _, name := range []string{"b", "bob.smith@uni.example", "x_y-z", strings.Repeat("y", 64)} {
		if _, err := s.AddUser(ctx, name, RoleTeacher, pw); err != nil {
			t.Errorf("AddUser(%q): %v", name, err)
		}
	}
	if _, err := s.AddUser(ctx, "carol", RoleTeacher, "short"); !errors.Is(err, ErrWeakPassword) {
		t.Errorf("weak password: %v, want ErrWeakPassword", err)
	}
	if _, err := s.AddUser(ctx, "carol", "root", pw); err == nil || !strings.Contains(err.Error(), "teacher, staff, admin") {
		t.Errorf("unknown role: %v", err)
	}
	if _, err := s.User(ctx, "carol"); !errors.Is(err, ErrNoUser) {
		t.Errorf("refused user was stored: %v", err)
	}

	users, err := s.Users(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, u := range users {
		names = append(names, u.Name)
	}
	if got := strings.Join(names, ","); got != "alice,b,bob.smith@uni.example,x_y-z,"+strings.Repeat("y", 64) {
		t.Fatalf("Users() = %s, want them ordered by name", got)
	}
}

// Concurrent adds of one name: exactly one wins, the others get ErrUserExists.
func TestAddUserRace(t *testing.T) {
	s, _, _ := newStore(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.AddUser(context.Background(), "dora", RoleTeacher, pw)
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, ErrUserExists):
			t.Errorf("concurrent add: %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d concurrent adds succeeded, want 1", won)
	}
}

func TestAuthenticate(t *testing.T) {
	ctx := context.Background()
	s, _, _ := newStore(t)
	alice := mustAdd(t, s, "alice", RoleAdmin)

	if u, err := s.Authenticate(ctx, "Alice", pw); err != nil || u != alice {
		t.Fatalf("right password: %+v, %v", u, err)
	}
	for _, c := range []struct{ name, pw string }{
		{"alice", "a proper passworD"},
		{"alice", ""},
		{"nobody", pw},
		{"not a valid name!", pw},
	} {
		if _, err := s.Authenticate(ctx, c.name, c.pw); err != ErrBadCredentials {
			t.Errorf("Authenticate(%q, %q): %v, want ErrBadCredentials itself", c.name, c.pw, err)
		}
	}

	if err := s.SetDisabled(ctx, "alice", true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(ctx, "alice", pw); err != ErrBadCredentials {
		t.Fatalf("disabled user: %v, want ErrBadCredentials", err)
	}
	if u, _ := s.User(ctx, "alice"); !u.Disabled {
		t.Fatal("User does not show the user disabled")
	}
	if err := s.SetDisabled(ctx, "alice", false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(ctx, "alice", pw); err != nil {
		t.Fatalf("re-enabled user: %v", err)
	}
	if err := s.SetDisabled(ctx, "nobody", true); !errors.Is(err, ErrNoUser) {
		t.Fatalf("disable unknown user: %v", err)
	}

	// The dummy hash an unknown user is checked against costs what a real one does.
	if needsRehash(dummyHash()) {
		t.Fatal("the dummy hash does not use the current parameters")
	}
}

// A hash with older parameters still logs in and is upgraded on the way.
func TestAuthenticateRehashes(t *testing.T) {
	ctx := context.Background()
	s, pool, _ := newStore(t)
	mustAdd(t, s, "olga", RoleTeacher)
	salt := []byte("an old salt, 16b")
	old := argonParams{memory: 4096, time: 1, threads: 1}.encode(salt, argonKey(pw, salt, 4096, 1, 1))
	pgtest.Exec(t, pool, `update users set password_hash = $1 where name = 'olga'`, old)
	passwordChanges := func() int {
		t.Helper()
		var n int
		if err := pool.QueryRow(ctx, `select count(*) from audit_log where action like 'user.password%'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := passwordChanges()

	if _, err := s.Authenticate(ctx, "olga", pw); err != nil {
		t.Fatalf("login with an old hash: %v", err)
	}
	if n := passwordChanges(); n != before {
		t.Fatalf("re-hashing at login wrote %d password entries to the audit log: the password did not change", n-before)
	}
	var now string
	pool.QueryRow(ctx, `select password_hash from users where name = 'olga'`).Scan(&now)
	if now == old || needsRehash(now) {
		t.Fatalf("hash after login %q: want the current parameters", now)
	}
	if _, err := s.Authenticate(ctx, "olga", pw); err != nil {
		t.Fatalf("login with the upgraded hash: %v", err)
	}

	pgtest.Exec(t, pool, `update users set password_hash = 'garbage' where name = 'olga'`)
	if _, err := s.Authenticate(ctx, "olga", pw); err == nil || errors.Is(err, ErrBadCredentials) || !strings.Contains(err.Error(), "plagd user reset") {
		t.Fatalf("corrupt hash: %v, want an error that is not a wrong password and says how to fix it", err)
	}
}

func TestSetPassword(t *testing.T) {
	ctx := context.Background()
	s, _, _ := newStore(t)
	bob := mustAdd(t, s, "bob", RoleTeacher)
	other := mustAdd(t, s, "other", RoleTeacher)
	tok, _, err := s.StartSession(ctx, bob.ID, time.Hour, "", "")
	if err != nil {
		t.Fatal(err)
	}
	otherTok, _, _ := s.StartSession(ctx, other.ID, time.Hour, "", "")

	if err := s.SetPassword(ctx, "bob", "short"); !errors.Is(err, ErrWeakPassword) {
		t.Fatalf("weak: %v", err)
	}
	if _, err := s.Session(ctx, tok); err != nil {
		t.Fatalf("a refused password change ended the session: %v", err)
	}
	if err := s.SetPassword(ctx, "Bob", "the new password"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Session(ctx, tok); !errors.Is(err, ErrNoSession) {
		t.Fatalf("session after a password change: %v, want ErrNoSession", err)
	}
	if _, err := s.Session(ctx, otherTok); err != nil {
		t.Fatalf("another user's session ended: %v", err)
	}
	if _, err := s.Authenticate(ctx, "bob", pw); err != ErrBadCredentials {
		t.Fatalf("old password: %v", err)
	}
	if _, err := s.Authenticate(ctx, "bob", "the new password"); err != nil {
		t.Fatalf("new password: %v", err)
	}
	if err := s.SetPassword(ctx, "nobody", "the new password"); !errors.Is(err, ErrNoUser) {
		t.Fatalf("unknown user: %v", err)
	}
}

func TestSetRole(t *testing.T) {
	ctx := context.Background()
	s, _, _ := newStore(t)
	u := mustAdd(t, s, "tina", RoleTeacher)
	tok, _, _ := s.StartSession(ctx, u.ID, time.Hour, "", "")
	if err := s.SetRole(ctx, "tina", RoleAdmin); err != nil {
		t.Fatal(err)
	}
	if sess, err := s.Session(ctx, tok); err != nil || sess.User.Role != RoleAdmin {
		t.Fatalf("session after a role change: %+v, %v; want the new role at once", sess.User, err)
	}
	if err := s.SetRole(ctx, "tina", "boss"); err == nil || !strings.Contains(err.Error(), "teacher, staff, admin") {
		t.Fatalf("unknown role: %v", err)
	}
	if err := s.SetRole(ctx, "nobody", RoleStaff); !errors.Is(err, ErrNoUser) {
		t.Fatalf("unknown user: %v", err)
	}
}

func TestSessionSlidingExpiry(t *testing.T) {
	ctx := context.Background()
	s, pool, c := newStore(t)
	u := mustAdd(t, s, "sam", RoleStaff)
	t0 := c.now()

	tok, sess, err := s.StartSession(ctx, u.ID, time.Hour, "192.0.2.7", "Firefox\x00/\xff")
	if err != nil {
		t.Fatal(err)
	}
	if len(tok) != 43 || strings.ContainsAny(tok, "+/=") || len(sess.CSRF) != 43 || sess.CSRF == tok {
		t.Fatalf("token %q, csrf %q: want two distinct 43-character base64url strings", tok, sess.CSRF)
	}
	if sess.User != u || !sess.Expires.Equal(t0.Add(time.Hour)) {
		t.Fatalf("StartSession: %+v", sess)
	}
	var ip, ua string
	pool.QueryRow(ctx, `select ip, user_agent from sessions`).Scan(&ip, &ua)
	if ip != "192.0.2.7" || ua != "Firefox/\uFFFD" {
		t.Fatalf("stored ip %q, user agent %q", ip, ua)
	}

	row := func() (lastSeen, expires time.Time) {
		t.Helper()
		if err := pool.QueryRow(ctx, `select last_seen_at, expires_at from sessions`).Scan(&lastSeen, &expires); err != nil {
			t.Fatal(err)
		}
		return
	}
	lookup := func(wantExpires time.Time) {
		t.Helper()
		got, err := s.Session(ctx, tok)
		if err != nil {
			t.Fatalf("at +%v: %v", c.now().Sub(t0), err)
		}
		if got.User != u || got.CSRF != sess.CSRF || !got.Expires.Equal(wantExpires) {
			t.Fatalf("at +%v: %+v, want expiry %v", c.now().Sub(t0), got, wantExpires)
		}
	}

	c.advance(30 * time.Second)
	lookup(t0.Add(time.Hour))
	if seen, _ := row(); !seen.Equal(t0) {
		t.Fatalf("last_seen_at written %v after a login: want at most once a minute", c.now().Sub(t0))
	}
	c.advance(20 * time.Minute) // +20m30s: more than half of the hour left
	lookup(t0.Add(time.Hour))
	if seen, exp := row(); !seen.Equal(c.now()) || !exp.Equal(t0.Add(time.Hour)) {
		t.Fatalf("at +20m30s: last seen %v, expires %v", seen, exp)
	}
	c.advance(20 * time.Minute) // +40m30s: less than half left, extend by the hour
	t1 := c.now()
	lookup(t1.Add(time.Hour))
	if seen, exp := row(); !seen.Equal(t1) || !exp.Equal(t1.Add(time.Hour)) {
		t.Fatalf("after extension: last seen %v, expires %v", seen, exp)
	}
	c.advance(59 * time.Minute)
	lookup(c.now().Add(time.Hour)) // extended again, to one hour from now: the ttl does not grow
	c.advance(2 * time.Hour)
	if _, err := s.Session(ctx, tok); !errors.Is(err, ErrNoSession) {
		t.Fatalf("idle for two hours: %v, want ErrNoSession", err)
	}

	for _, bad := range []string{"", "x", tok + "x", strings.ToUpper(tok)} {
		if _, err := s.Session(ctx, bad); !errors.Is(err, ErrNoSession) {
			t.Errorf("Session(%q): %v", bad, err)
		}
	}
	if _, _, err := s.StartSession(ctx, u.ID, 0, "", ""); err == nil {
		t.Error("a session without a lifetime was started")
	}
	if _, _, err := s.StartSession(ctx, 424242, time.Hour, "", ""); !errors.Is(err, ErrNoUser) {
		t.Errorf("session for an unknown user id: %v", err)
	}
}

func TestEndAndPruneSessions(t *testing.T) {
	ctx := context.Background()
	s, pool, c := newStore(t)
	u := mustAdd(t, s, "eve", RoleTeacher)

	short, _, _ := s.StartSession(ctx, u.ID, time.Hour, "", "")
	long, _, _ := s.StartSession(ctx, u.ID, 3*time.Hour, "", "")
	gone, _, _ := s.StartSession(ctx, u.ID, 3*time.Hour, "", "")
	if err := s.EndSession(ctx, gone); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Session(ctx, gone); !errors.Is(err, ErrNoSession) {
		t.Fatalf("ended session: %v", err)
	}
	if err := s.EndSession(ctx, gone); err != nil {
		t.Fatalf("ending a session twice: %v", err)
	}

	if n, err := s.PruneSessions(ctx); n != 0 || err != nil {
		t.Fatalf("prune with nothing expired: %d, %v", n, err)
	}
	c.advance(2 * time.Hour)
	if n, err := s.PruneSessions(ctx); n != 1 || err != nil {
		t.Fatalf("prune after 2h: %d, %v; want the 1h session", n, err)
	}
	var left int
	pool.QueryRow(ctx, `select count(*) from sessions`).Scan(&left)
	if left != 1 {
		t.Fatalf("%d sessions left, want 1", left)
	}
	if _, err := s.Session(ctx, short); !errors.Is(err, ErrNoSession) {
		t.Fatalf("pruned session: %v", err)
	}
	if _, err := s.Session(ctx, long); err != nil {
		t.Fatalf("3h session after 2h: %v", err)
	}
}

func TestDisablingEndsSessions(t *testing.T) {
	ctx := context.Background()
	s, pool, _ := newStore(t)
	u := mustAdd(t, s, "dan", RoleAdmin)
	tok, _, _ := s.StartSession(ctx, u.ID, time.Hour, "", "")

	if err := s.SetDisabled(ctx, "dan", true); err != nil {
		t.Fatal(err)
	}
	var n int
	pool.QueryRow(ctx, `select count(*) from sessions`).Scan(&n)
	if n != 0 {
		t.Fatalf("%d sessions left after disabling the user", n)
	}
	if _, _, err := s.StartSession(ctx, u.ID, time.Hour, "", ""); !errors.Is(err, ErrNoUser) {
		t.Fatalf("session for a disabled user: %v", err)
	}
	s.SetDisabled(ctx, "dan", false)
	if _, err := s.Session(ctx, tok); !errors.Is(err, ErrNoSession) {
		t.Fatalf("re-enabling revived a session: %v", err)
	}

	// A session whose user is disabled behind the store's back is refused too.
	tok, _, _ = s.StartSession(ctx, u.ID, time.Hour, "", "")
	pgtest.Exec(t, pool, `update users set disabled = true`)
	if _, err := s.Session(ctx, tok); !errors.Is(err, ErrNoSession) {
		t.Fatalf("session of a disabled user: %v", err)
	}
}

func TestTokens(t *testing.T) {
	ctx := context.Background()
	s, pool, c := newStore(t)
	ann := mustAdd(t, s, "ann", RoleStaff)
	mustAdd(t, s, "ben", RoleTeacher)

	plain, tok, err := s.CreateToken(ctx, "Ann", " moodle sync ", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(plain, "plagd_") || len(plain) != len("plagd_")+43 || tok.Prefix != plain[:12] {
		t.Fatalf("token %q with prefix %q", plain, tok.Prefix)
	}
	if tok.ID == 0 || tok.UserName != "ann" || tok.Name != "moodle sync" || tok.ExpiresAt != nil || tok.LastUsed != nil || tok.Revoked {
		t.Fatalf("CreateToken: %+v", tok)
	}
	if u, err := s.TokenUser(ctx, plain); err != nil || u != ann {
		t.Fatalf("TokenUser: %+v, %v", u, err)
	}
	lastUsed := func() *time.Time {
		var lu *time.Time
		pool.QueryRow(ctx, `select last_used_at from api_tokens where id = $1`, tok.ID).Scan(&lu)
		return lu
	}
	if lu := lastUsed(); lu == nil || !lu.Equal(c.now()) {
		t.Fatalf("last_used_at = %v, want %v", lu, c.now())
	}
	t0 := c.now()
	c.advance(30 * time.Second)
	s.TokenUser(ctx, plain)
	if lu := lastUsed(); !lu.Equal(t0) {
		t.Fatalf("last_used_at rewritten within a minute: %v", lu)
	}
	c.advance(time.Minute)
	s.TokenUser(ctx, plain)
	if lu := lastUsed(); !lu.Equal(c.now()) {
		t.Fatalf("last_used_at after 90s = %v, want %v", lu, c.now())
	}

	short, shortTok, err := s.CreateToken(ctx, "ann", "ci", 24*time.Hour)
	if err != nil || shortTok.ExpiresAt == nil || !shortTok.ExpiresAt.Equal(c.now().Add(24*time.Hour)) {
		t.Fatalf("token with ttl: %+v, %v", shortTok, err)
	}
	benPlain, _, _ := s.CreateToken(ctx, "ben", "", 0)

	all, err := s.Tokens(ctx, "")
	if err != nil || len(all) != 3 || all[0].ID != tok.ID || all[1].ID != shortTok.ID || all[2].UserName != "ben" {
		t.Fatalf("Tokens(\"\") = %+v, %v", all, err)
	}
	if all[0].LastUsed == nil || !all[0].LastUsed.Equal(c.now()) || all[0].Prefix != tok.Prefix {
		t.Fatalf("listed token: %+v", all[0])
	}
	if bens, err := s.Tokens(ctx, "BEN"); err != nil || len(bens) != 1 {
		t.Fatalf("Tokens(BEN) = %+v, %v", bens, err)
	}
	if _, err := s.Tokens(ctx, "nobody"); !errors.Is(err, ErrNoUser) {
		t.Fatalf("Tokens(nobody): %v", err)
	}
	if _, _, err := s.CreateToken(ctx, "nobody", "x", 0); !errors.Is(err, ErrNoUser) {
		t.Fatalf("token for an unknown user: %v", err)
	}
	if _, _, err := s.CreateToken(ctx, "ann", "x", -time.Hour); err == nil {
		t.Fatal("token with a negative lifetime")
	}

	// Expiry.
	c.advance(24 * time.Hour)
	if _, err := s.TokenUser(ctx, short); !errors.Is(err, ErrBadToken) {
		t.Fatalf("expired token: %v", err)
	}

	// A disabled user's tokens stop working, and work again when re-enabled.
	s.SetDisabled(ctx, "ben", true)
	if _, err := s.TokenUser(ctx, benPlain); !errors.Is(err, ErrBadToken) {
		t.Fatalf("token of a disabled user: %v", err)
	}
	s.SetDisabled(ctx, "ben", false)
	if _, err := s.TokenUser(ctx, benPlain); err != nil {
		t.Fatalf("token of a re-enabled user: %v", err)
	}

	// Revocation.
	if err := s.RevokeToken(ctx, tok.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.TokenUser(ctx, plain); !errors.Is(err, ErrBadToken) {
		t.Fatalf("revoked token: %v", err)
	}
	if err := s.RevokeToken(ctx, tok.ID); err != nil {
		t.Fatalf("revoking twice: %v", err)
	}
	if err := s.RevokeToken(ctx, 99999); !errors.Is(err, ErrBadToken) || !strings.Contains(err.Error(), "99999") {
		t.Fatalf("revoking an unknown id: %v", err)
	}
	if all, _ := s.Tokens(ctx, "ann"); !all[0].Revoked || all[1].Revoked {
		t.Fatalf("revoked flags: %+v", all)
	}

	for _, bad := range []string{"", "plagd_", "Bearer " + benPlain, flipLast(benPlain), benPlain[6:], "plagd_" + strings.Repeat("A", 43)} {
		if _, err := s.TokenUser(ctx, bad); !errors.Is(err, ErrBadToken) {
			t.Errorf("TokenUser(%q): %v", bad, err)
		}
	}
	if _, err := s.TokenUser(ctx, " "+benPlain+"\r\n"); err != nil {
		t.Errorf("token with surrounding white space: %v", err)
	}
}

// Neither a session id nor an API token, nor a password, can be read back
// from the database: only hashes are stored.
func TestNoPlaintextSecretsInDatabase(t *testing.T) {
	ctx := context.Background()
	s, pool, _ := newStore(t)
	u := mustAdd(t, s, "zoe", RoleAdmin)
	sessTok, _, _ := s.StartSession(ctx, u.ID, time.Hour, "", "")
	apiTok, _, _ := s.CreateToken(ctx, "zoe", "label", 0)

	var dump string
	err := pool.QueryRow(ctx, `select concat_ws(' ',
		(select string_agg(u::text, ' ') from users u),
		(select string_agg(s::text, ' ') from sessions s),
		(select string_agg(t::text, ' ') from api_tokens t),
		(select string_agg(encode(token_hash, 'escape'), ' ') from sessions),
		(select string_agg(encode(token_hash, 'escape'), ' ') from api_tokens))`).Scan(&dump)
	if err != nil {
		t.Fatal(err)
	}
	for what, secret := range map[string]string{
		"session id": sessTok, "session id (middle)": sessTok[10:30],
		"API token": apiTok, "API token secret": apiTok[len("plagd_"):], "API token (middle)": apiTok[20:40],
		"password": pw,
	} {
		if strings.Contains(dump, secret) {
			t.Errorf("the database holds the %s %q", what, secret)
		}
	}
	if !strings.Contains(dump, apiTok[:12]) {
		t.Error("the token prefix, meant for lists, is not stored")
	}
}

// Toggling documents.restricted must not put the document in the change log:
// access does not change similarity, so it must not cost a re-index.
func TestRestrictedDoesNotReindex(t *testing.T) {
	ctx := context.Background()
	_, pool, _ := newStore(t)
	var id int64
	if err := pool.QueryRow(ctx, `insert into documents (text) values ('an embargoed thesis') returning id`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	pgtest.Exec(t, pool, `delete from plagd_changes`)
	pgtest.Exec(t, pool, `update documents set restricted = true where id = $1`, id)
	var n int
	pool.QueryRow(ctx, `select count(*) from plagd_changes`).Scan(&n)
	if n != 0 {
		t.Fatalf("restricting a document logged %d changes, want 0", n)
	}
	var restricted bool
	pool.QueryRow(ctx, `select restricted from documents where id = $1`, id).Scan(&restricted)
	if !restricted {
		t.Fatal("restricted did not stick")
	}
}

// flipLast changes the last character of a token to a different one (a fixed
// replacement would equal it one time in 64).
func flipLast(tok string) string {
	last := "A"
	if strings.HasSuffix(tok, "A") {
		last = "B"
	}
	return tok[:len(tok)-1] + last
}
