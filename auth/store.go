package auth

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plagd/plagd/audit"
)

// User is a person who may log in.
type User struct {
	ID        int64     `json:"id"`
	Name      string    `json:"name"`
	Role      Role      `json:"role"`
	Disabled  bool      `json:"disabled"`
	CreatedAt time.Time `json:"created_at"`
}

// Store keeps users, sessions and API tokens in plagd's database (tables
// users, sessions and api_tokens, migration 0002). It is safe for concurrent
// use.
type Store struct {
	pool *pgxpool.Pool
	// hashes bounds the password hashes computed at once (LimitHashes).
	hashes *hashGate
	// now is the clock for every timestamp the store writes or compares, so
	// that tests can move time instead of sleeping.
	now func() time.Time
	// actor is who the store's changes are recorded as in the audit log
	// (nil: the database role, "db:<role>"); see As.
	actor *audit.Actor
	// recorded receives the audit rows each change wrote, after it commits.
	recorded func([]audit.Entry)
}

// As returns a copy of the store whose changes the audit log records as
// made by a (the triggers of migration 0006 write the rows; see package
// audit). recorded, if not nil, receives the rows each change wrote once it
// has committed, for the caller's log.
func (s *Store) As(a audit.Actor, recorded func([]audit.Entry)) *Store {
	c := *s
	c.actor, c.recorded = &a, recorded
	return &c
}

// write runs fn in a transaction bound to the store's audit actor.
func (s *Store) write(ctx context.Context, fn func(pgx.Tx) error) error {
	if s.actor == nil {
		return pgx.BeginFunc(ctx, s.pool, fn)
	}
	entries, err := audit.Run(ctx, s.pool, *s.actor, fn)
	if err == nil && s.recorded != nil && len(entries) > 0 {
		s.recorded(entries)
	}
	return err
}

// NewStore returns a Store on pool, whose schema must be migrated.
func NewStore(pool *pgxpool.Pool) *Store {
	return &Store{pool: pool, hashes: newHashGate(0, 32), now: time.Now}
}

// namePattern is the users_name_format check of the schema, repeated here so
// that a bad name gets a message rather than a constraint violation.
var namePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._@-]{0,63}$`)

// normName makes user names case-insensitive: they are stored lower-case, and
// "Alice" logs in as "alice".
func normName(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

// checkName validates a normalised user name.
func checkName(name string) error {
	if !namePattern.MatchString(name) {
		return fmt.Errorf("invalid user name %q: use 1 to 64 lower-case letters, digits and . _ @ -, starting with a letter or digit", name)
	}
	return nil
}

const userColumns = `id, name, role, disabled, created_at`

func scanUser(row pgx.Row, extra ...any) (User, error) {
	var u User
	var role string
	err := row.Scan(append([]any{&u.ID, &u.Name, &role, &u.Disabled, &u.CreatedAt}, extra...)...)
	u.Role = Role(role)
	return u, err
}

// AddUser creates a user. The name is lower-cased; the password must pass
// CheckPasswordPolicy. An existing name is ErrUserExists.
func (s *Store) AddUser(ctx context.Context, name string, role Role, password string) (User, error) {
	name = normName(name)
	if err := checkName(name); err != nil {
		return User{}, err
	}
	if !role.valid() {
		return User{}, fmt.Errorf("unknown role %q: use one of %s", role, roleList())
	}
	if err := CheckPasswordPolicy(password); err != nil {
		return User{}, err
	}
	hash, err := s.hashPassword(ctx, password)
	if err != nil {
		return User{}, err
	}
	now := s.now()
	var u User
	err = s.write(ctx, func(tx pgx.Tx) error {
		var err error
		u, err = scanUser(tx.QueryRow(ctx, `
			insert into users (name, role, password_hash, created_at, updated_at)
			values ($1, $2, $3, $4, $4)
			returning `+userColumns, name, string(role), hash, now))
		return err
	})
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" { // unique_violation
		return User{}, fmt.Errorf("%w: %s", ErrUserExists, name)
	}
	if err != nil {
		return User{}, fmt.Errorf("add user %s: %w", name, err)
	}
	return u, nil
}

// SetPassword replaces a user's password and ends all the user's sessions, so
// that whoever knew the old password is logged out everywhere. API tokens are
// separate credentials and keep working; revoke them if needed.
func (s *Store) SetPassword(ctx context.Context, name, password string) error {
	name = normName(name)
	if err := CheckPasswordPolicy(password); err != nil {
		return err
	}
	hash, err := s.hashPassword(ctx, password)
	if err != nil {
		return err
	}
	return s.updateUser(ctx, name, `password_hash = $2`, true, hash)
}

// SetRole changes a user's role. It takes effect at the user's next request:
// sessions and tokens look the role up every time.
func (s *Store) SetRole(ctx context.Context, name string, role Role) error {
	if !role.valid() {
		return fmt.Errorf("unknown role %q: use one of %s", role, roleList())
	}
	return s.updateUser(ctx, normName(name), `role = $2`, false, string(role))
}

// SetDisabled disables or re-enables a user. A disabled user cannot log in,
// their sessions end, and their API tokens stop working (they work again if
// the user is enabled, unless revoked or expired meanwhile).
func (s *Store) SetDisabled(ctx context.Context, name string, disabled bool) error {
	return s.updateUser(ctx, normName(name), `disabled = $2`, disabled, disabled)
}

// updateUser sets one column (set uses $2 for value) and, if endSessions,
// deletes the user's sessions in the same transaction.
func (s *Store) updateUser(ctx context.Context, name, set string, endSessions bool, value any) error {
	return s.write(ctx, func(tx pgx.Tx) error {
		var id int64
		err := tx.QueryRow(ctx, `update users set `+set+`, updated_at = $3 where name = $1 returning id`,
			name, value, s.now()).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return noUser(name)
		}
		if err != nil {
			return fmt.Errorf("update user %s: %w", name, err)
		}
		if endSessions {
			if _, err := tx.Exec(ctx, `delete from sessions where user_id = $1`, id); err != nil {
				return fmt.Errorf("end the sessions of %s: %w", name, err)
			}
		}
		return nil
	})
}

// User returns the user called name, or ErrNoUser.
func (s *Store) User(ctx context.Context, name string) (User, error) {
	name = normName(name)
	u, err := scanUser(s.pool.QueryRow(ctx, `select `+userColumns+` from users where name = $1`, name))
	if errors.Is(err, pgx.ErrNoRows) {
		return User{}, noUser(name)
	}
	if err != nil {
		return User{}, fmt.Errorf("look up user %s: %w", name, err)
	}
	return u, nil
}

// Users returns all users, disabled ones too, ordered by name.
func (s *Store) Users(ctx context.Context) ([]User, error) {
	rows, err := s.pool.Query(ctx, `select `+userColumns+` from users order by name`)
	if err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	users, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (User, error) { return scanUser(r) })
	if err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	return users, nil
}

// Authenticate checks a login. An unknown user, a wrong password and a
// disabled user are all ErrBadCredentials, and all cost one password hash, so
// neither the answer nor its timing tells which user names exist. A password
// hashed with older parameters is re-hashed with the current ones.
func (s *Store) Authenticate(ctx context.Context, name, password string) (User, error) {
	name = normName(name)
	var hash string
	u, err := scanUser(s.pool.QueryRow(ctx, `select `+userColumns+`, password_hash from users where name = $1`, name), &hash)
	if errors.Is(err, pgx.ErrNoRows) {
		if _, err := s.verifyPassword(ctx, dummyHash(), password); err != nil {
			return User{}, err // ErrBusy or the context's end
		}
		return User{}, ErrBadCredentials
	}
	if err != nil {
		return User{}, fmt.Errorf("authenticate %s: %w", name, err)
	}
	ok, err := s.verifyPassword(ctx, hash, password)
	if errors.Is(err, ErrBusy) || ctx.Err() != nil {
		return User{}, err
	}
	if err != nil {
		return User{}, fmt.Errorf("user %s: %w", name, err)
	}
	if !ok || u.Disabled {
		return User{}, ErrBadCredentials
	}
	if needsRehash(hash) {
		s.rehash(ctx, u.ID, hash, password)
	}
	return u, nil
}

// rehash upgrades a stored hash to the current parameters after a successful
// login, the only time the password is known. It is best effort: on failure
// the old hash stays valid and the next login tries again. The update is
// conditional on the old hash, so it never undoes a concurrent password change.
func (s *Store) rehash(ctx context.Context, id int64, old, password string) {
	hash, err := s.hashPassword(ctx, password)
	if err != nil {
		return
	}
	// plagd.rehash tells the audit trigger that the password stays the same.
	pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `select set_config('plagd.rehash', 'on', true)`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `update users set password_hash = $3 where id = $1 and password_hash = $2`, id, old, hash)
		return err
	})
}

// hashPassword is HashPassword through the store's hash gate.
func (s *Store) hashPassword(ctx context.Context, password string) (string, error) {
	release, err := s.hashes.enter(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	return HashPassword(password)
}

// verifyPassword is VerifyPassword through the store's hash gate.
func (s *Store) verifyPassword(ctx context.Context, encoded, password string) (bool, error) {
	release, err := s.hashes.enter(ctx)
	if err != nil {
		return false, err
	}
	defer release()
	return VerifyPassword(encoded, password)
}
