// Package auth stores who may use plagd's web UI and JSON API, in PostgreSQL:
// users with a role, their passwords, API tokens for scripts and browser
// sessions. The HTTP layer decides what each role may do; this package only
// answers "who is this?" and keeps the credentials.
//
// Secrets are never stored as given. Passwords are hashed with argon2id (slow
// on purpose, since people choose guessable ones); API tokens and session ids
// are 256-bit random values stored as their SHA-256, so that a database dump
// or backup does not hand out working logins.
//
// Every error a caller must tell apart is a sentinel (ErrBadCredentials,
// ErrNoSession, ...) that the returned error matches with errors.Is; the
// messages themselves say what to do.
package auth
