package auth

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Session is a browser login, found from the session cookie.
type Session struct {
	User    User
	CSRF    string    // per-session CSRF token for forms and for cookie-authenticated API writes
	Expires time.Time // the current expiry; it slides forward while the session is used
}

// touchEvery limits writes on busy sessions and tokens: last_seen_at and
// last_used_at are updated only when they are at least this old.
const touchEvery = time.Minute

// StartSession logs userID in for ttl and returns the session cookie value
// (token) and the session. Only the token's SHA-256 is stored. ip and
// userAgent are kept for the user's list of sessions; they may be empty.
// A disabled or unknown user is ErrNoUser.
func (s *Store) StartSession(ctx context.Context, userID int64, ttl time.Duration, ip, userAgent string) (string, Session, error) {
	if ttl <= 0 {
		return "", Session{}, fmt.Errorf("session lifetime must be positive, got %v", ttl)
	}
	token := newSecret()
	sess := Session{CSRF: newSecret()}
	now := s.now()
	sess.Expires = now.Add(ttl)
	u, err := scanUser(s.pool.QueryRow(ctx, `
		with u as (select `+userColumns+` from users where id = $2 and not disabled),
		ins as (
			insert into sessions (token_hash, user_id, csrf, created_at, last_seen_at, expires_at, ttl, ip, user_agent)
			select $1, u.id, $3, $4, $4, $5, $6::bigint * interval '1 microsecond', nullif($7, ''), nullif($8, '')
			from u
		)
		select `+userColumns+` from u`,
		hashSecret(token), userID, sess.CSRF, now, sess.Expires, ttl.Microseconds(), clip(ip, 100), clip(userAgent, 512)))
	if errors.Is(err, pgx.ErrNoRows) {
		return "", Session{}, fmt.Errorf("%w with id %d, or the user is disabled", ErrNoUser, userID)
	}
	if err != nil {
		return "", Session{}, fmt.Errorf("start session: %w", err)
	}
	sess.User = u
	return token, sess, nil
}

// Session returns the live session whose cookie value is token, or
// ErrNoSession when there is none, it has expired, or its user is disabled.
//
// Expiry slides: once less than half of the session's ttl (the length given to
// StartSession, kept in sessions.ttl) is left, a request moves expires_at to
// now + ttl. So a session in use never expires, one left alone for ttl does,
// and the row is written at most about twice per ttl for that. last_seen_at is
// updated at most once a minute.
func (s *Store) Session(ctx context.Context, token string) (Session, error) {
	if token == "" {
		return Session{}, ErrNoSession
	}
	hash := hashSecret(token)
	var (
		sess     Session
		lastSeen time.Time
		ttlMicro int64
	)
	u, err := scanUser(s.pool.QueryRow(ctx, `
		select u.id, u.name, u.role, u.disabled, u.created_at,
		       s.csrf, s.expires_at, s.last_seen_at, (extract(epoch from s.ttl) * 1000000)::bigint
		from sessions s join users u on u.id = s.user_id
		where s.token_hash = $1`, hash),
		&sess.CSRF, &sess.Expires, &lastSeen, &ttlMicro)
	if errors.Is(err, pgx.ErrNoRows) {
		return Session{}, ErrNoSession
	}
	if err != nil {
		return Session{}, fmt.Errorf("look up session: %w", err)
	}
	now := s.now()
	if u.Disabled || !now.Before(sess.Expires) {
		return Session{}, ErrNoSession
	}
	sess.User = u
	ttl := time.Duration(ttlMicro) * time.Microsecond
	extend := sess.Expires.Sub(now) < ttl/2
	if extend {
		sess.Expires = now.Add(ttl)
	}
	if extend || now.Sub(lastSeen) >= touchEvery {
		if _, err := s.pool.Exec(ctx, `update sessions set last_seen_at = $2, expires_at = greatest(expires_at, $3) where token_hash = $1`,
			hash, now, sess.Expires); err != nil {
			return Session{}, fmt.Errorf("update session: %w", err)
		}
	}
	return sess, nil
}

// EndSession logs out: it deletes the session whose cookie value is token.
// Ending a session that does not exist is not an error, so logging out twice
// is harmless.
func (s *Store) EndSession(ctx context.Context, token string) error {
	if _, err := s.pool.Exec(ctx, `delete from sessions where token_hash = $1`, hashSecret(token)); err != nil {
		return fmt.Errorf("end session: %w", err)
	}
	return nil
}

// PruneSessions deletes expired sessions and returns how many. Expired
// sessions are already refused; pruning only keeps the table small, so whoever
// serves logins should call it now and then (hourly is plenty).
func (s *Store) PruneSessions(ctx context.Context) (int64, error) {
	tag, err := s.pool.Exec(ctx, `delete from sessions where expires_at <= $1`, s.now())
	if err != nil {
		return 0, fmt.Errorf("prune sessions: %w", err)
	}
	return tag.RowsAffected(), nil
}
