package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// newSecret returns 32 random bytes (256 bits) in unpadded base64url: safe in
// cookies, headers and URLs.
func newSecret() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand, Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b)
}

// hashSecret is how session ids and API tokens are stored and looked up. A
// fast hash is right here, unlike for passwords: the secrets are 256 random
// bits, beyond guessing whatever a hash costs, so the hash only has to keep a
// database dump from containing usable secrets, and being deterministic it
// lets a lookup use the unique index.
func hashSecret(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// clip makes client-supplied text (an IP address, a User-Agent, a label)
// storable: valid UTF-8 without NUL bytes, which PostgreSQL text refuses, and
// at most max bytes, so a client cannot bloat the table.
func clip(s string, max int) string {
	s = strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
	if len(s) <= max {
		return s
	}
	s = s[:max]
	for !utf8.ValidString(s) { // cut inside a character: drop its first bytes
		s = s[:len(s)-1]
	}
	return s
}
