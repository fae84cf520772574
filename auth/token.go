package auth

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Token describes an API token; the token itself is shown once, by
// CreateToken, and never stored.
type Token struct {
	ID        int64      `json:"id"`
	UserName  string     `json:"user"`
	Name      string     `json:"name"`   // the label given at creation
	Prefix    string     `json:"prefix"` // "plagd_" + first 6 characters of the secret part, shown in lists
	CreatedAt time.Time  `json:"created_at"`
	LastUsed  *time.Time `json:"last_used_at"`
	ExpiresAt *time.Time `json:"expires_at"` // nil: never expires
	Revoked   bool       `json:"revoked"`
}

// tokenPrefix starts every API token, so that a leaked token is recognisable
// (by people and by secret scanners) as a plagd credential.
const tokenPrefix = "plagd_"

// CreateToken creates an API token for userName, labelled label, valid for
// ttl (0: until revoked). It returns the token, "plagd_" followed by 256
// random bits in base64url; only its SHA-256 is stored, so it cannot be shown
// again.
func (s *Store) CreateToken(ctx context.Context, userName, label string, ttl time.Duration) (string, Token, error) {
	if ttl < 0 {
		return "", Token{}, fmt.Errorf("token lifetime must be positive (or 0 for no expiry), got %v", ttl)
	}
	secret := newSecret()
	plaintext := tokenPrefix + secret
	tok := Token{
		UserName:  normName(userName),
		Name:      clip(strings.TrimSpace(label), 200),
		Prefix:    tokenPrefix + secret[:6],
		CreatedAt: s.now(),
	}
	if ttl > 0 {
		exp := tok.CreatedAt.Add(ttl)
		tok.ExpiresAt = &exp
	}
	err := s.write(ctx, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `
			insert into api_tokens (user_id, name, prefix, token_hash, created_at, expires_at)
			select id, $2, $3, $4, $5, $6 from users where name = $1
			returning id, created_at`,
			tok.UserName, tok.Name, tok.Prefix, hashSecret(plaintext), tok.CreatedAt, tok.ExpiresAt).Scan(&tok.ID, &tok.CreatedAt)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return "", Token{}, noUser(tok.UserName)
	}
	if err != nil {
		return "", Token{}, fmt.Errorf("create token: %w", err)
	}
	return plaintext, tok, nil
}

// TokenUser returns the user an API token belongs to, or ErrBadToken when the
// token is unknown, expired or revoked, or its user is disabled. It records
// the use in last_used_at, at most once a minute per token.
func (s *Store) TokenUser(ctx context.Context, plaintext string) (User, error) {
	plaintext = strings.TrimSpace(plaintext)
	if !strings.HasPrefix(plaintext, tokenPrefix) {
		return User{}, ErrBadToken
	}
	var (
		id       int64
		lastUsed *time.Time
		expires  *time.Time
		revoked  bool
	)
	u, err := scanUser(s.pool.QueryRow(ctx, `
		select u.id, u.name, u.role, u.disabled, u.created_at,
		       t.id, t.last_used_at, t.expires_at, t.revoked_at is not null
		from api_tokens t join users u on u.id = t.user_id
		where t.token_hash = $1`, hashSecret(plaintext)),
		&id, &lastUsed, &expires, &revoked)
	if errors.Is(err, pgx.ErrNoRows) {
		return User{}, ErrBadToken
	}
	if err != nil {
		return User{}, fmt.Errorf("look up API token: %w", err)
	}
	now := s.now()
	if revoked || u.Disabled || (expires != nil && !now.Before(*expires)) {
		return User{}, ErrBadToken
	}
	if lastUsed == nil || now.Sub(*lastUsed) >= touchEvery {
		if _, err := s.pool.Exec(ctx, `update api_tokens set last_used_at = $2 where id = $1`, id, now); err != nil {
			return User{}, fmt.Errorf("record API token use: %w", err)
		}
	}
	return u, nil
}

// Tokens lists the API tokens of userName ("" for all users), revoked and
// expired ones included, ordered by user name and creation. An unknown user
// is ErrNoUser.
func (s *Store) Tokens(ctx context.Context, userName string) ([]Token, error) {
	userName = normName(userName)
	if userName != "" {
		if _, err := s.User(ctx, userName); err != nil {
			return nil, err
		}
	}
	rows, err := s.pool.Query(ctx, `
		select t.id, u.name, t.name, t.prefix, t.created_at, t.last_used_at, t.expires_at, t.revoked_at is not null
		from api_tokens t join users u on u.id = t.user_id
		where $1 = '' or u.name = $1
		order by u.name, t.created_at, t.id`, userName)
	if err != nil {
		return nil, fmt.Errorf("list API tokens: %w", err)
	}
	toks, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Token, error) {
		var t Token
		err := r.Scan(&t.ID, &t.UserName, &t.Name, &t.Prefix, &t.CreatedAt, &t.LastUsed, &t.ExpiresAt, &t.Revoked)
		return t, err
	})
	if err != nil {
		return nil, fmt.Errorf("list API tokens: %w", err)
	}
	return toks, nil
}

// RevokeToken makes an API token unusable for good. The token stays listed, as
// revoked. Revoking it again is not an error; an unknown id matches ErrBadToken.
func (s *Store) RevokeToken(ctx context.Context, id int64) error {
	var tag pgconn.CommandTag
	err := s.write(ctx, func(tx pgx.Tx) error {
		var err error
		tag, err = tx.Exec(ctx, `update api_tokens set revoked_at = coalesce(revoked_at, $2) where id = $1`, id, s.now())
		return err
	})
	if err != nil {
		return fmt.Errorf("revoke API token %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return noTokenError{id}
	}
	return nil
}
