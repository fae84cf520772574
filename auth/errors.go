package auth

import (
	"errors"
	"fmt"
)

// Sentinel errors. Returned errors match them with errors.Is; many wrap them
// with the name or id concerned.
var (
	ErrBadCredentials = errors.New("wrong user name or password")
	ErrNoUser         = errors.New("no such user")
	ErrUserExists     = errors.New("user already exists")
	ErrNoSession      = errors.New("no valid session") // missing, expired, or user disabled
	ErrBadToken       = errors.New("invalid, expired or revoked API token")
	ErrWeakPassword   = errors.New("password too short: use at least 10 characters")
	// ErrBusy: too many password hashes are running and waiting; try again
	// in a few seconds (auth.max_concurrent_hashes, auth.hash_queue).
	ErrBusy = errors.New("too many sign-ins at once: try again in a few seconds")
)

// noUser is ErrNoUser naming the user and where to look.
func noUser(name string) error {
	return fmt.Errorf("%w %q (see `plagd user list`)", ErrNoUser, name)
}

// noTokenError is returned by RevokeToken for an id that does not exist. It
// matches ErrBadToken, the error for every unusable token.
type noTokenError struct{ id int64 }

func (e noTokenError) Error() string {
	return fmt.Sprintf("no API token with id %d (see `plagd user tokens`)", e.id)
}

func (e noTokenError) Unwrap() error { return ErrBadToken }
