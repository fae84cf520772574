package auth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
)

// Argon2id parameters for new hashes: OWASP's minimum recommendation for
// argon2id (Password Storage Cheat Sheet: 19 MiB of memory, 2 iterations, 1
// degree of parallelism), about 20-40 ms per hash on a current server core.
// Each hash records its parameters, so they can be raised here later: old
// hashes still verify, and Authenticate re-hashes them at the next login.
const (
	argonMemory  = 19456 // KiB
	argonTime    = 2
	argonThreads = 1
	argonSaltLen = 16 // bytes
	argonKeyLen  = 32 // bytes
)

// Bounds on the parameters VerifyPassword accepts from a stored hash: far
// above anything plagd would write, yet low enough that a corrupt or hostile
// row cannot make one login allocate unbounded memory or loop for minutes.
const (
	maxArgonMemory = 1 << 20 // KiB, 1 GiB
	maxArgonTime   = 64
	maxArgonKeyLen = 1024
	minArgonSalt   = 8
	minArgonKeyLen = 16
)

// minPasswordLen is the policy CheckPasswordPolicy enforces, in characters.
// Length is the one rule that measurably helps; composition rules do not.
const minPasswordLen = 10

// deriveKey is argon2id; a variable so that tests can count the hashes
// running at once.
var deriveKey = argon2.IDKey

// b64 is the encoding of salt and hash in PHC strings: standard alphabet, no padding.
var b64 = base64.RawStdEncoding

// HashPassword hashes password with argon2id and a fresh random salt, and
// returns it in PHC string form:
//
//	$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>
//
// It does not check the password policy; see CheckPasswordPolicy.
func HashPassword(password string) (string, error) {
	if password == "" {
		return "", errors.New("refusing to hash an empty password")
	}
	salt := make([]byte, argonSaltLen)
	rand.Read(salt) // never fails (crypto/rand, Go 1.24+)
	p := argonParams{memory: argonMemory, time: argonTime, threads: argonThreads}
	key := deriveKey([]byte(password), salt, p.time, p.memory, p.threads, argonKeyLen)
	return p.encode(salt, key), nil
}

// VerifyPassword reports whether password matches encoded, a hash made by
// HashPassword, possibly with other parameters: they are read from encoded.
// A malformed hash is an error, never a match. The comparison takes the same
// time however many bytes match.
func VerifyPassword(encoded, password string) (bool, error) {
	p, salt, key, err := decodeHash(encoded)
	if err != nil {
		return false, err
	}
	got := deriveKey([]byte(password), salt, p.time, p.memory, p.threads, uint32(len(key)))
	return subtle.ConstantTimeCompare(got, key) == 1, nil
}

// needsRehash reports whether encoded was made with parameters other than the
// current ones, so that a login can upgrade it.
func needsRehash(encoded string) bool {
	p, salt, key, err := decodeHash(encoded)
	return err != nil || p != (argonParams{memory: argonMemory, time: argonTime, threads: argonThreads}) ||
		len(salt) != argonSaltLen || len(key) != argonKeyLen
}

// dummyHash is verified against when a login names no existing user, so that
// the answer takes as long as for a real user with a wrong password and its
// timing does not reveal which user names exist.
var dummyHash = sync.OnceValue(func() string {
	h, err := HashPassword("plagd: no such user, a password to spend time on")
	if err != nil {
		panic(err) // only for an empty password
	}
	return h
})

// argonParams are the cost parameters of one hash.
type argonParams struct {
	memory  uint32 // KiB
	time    uint32 // iterations
	threads uint8
}

func (p argonParams) encode(salt, key []byte) string {
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.memory, p.time, p.threads, b64.EncodeToString(salt), b64.EncodeToString(key))
}

// errMalformedHash starts every decodeHash error: the stored hash is not one
// this plagd can read, which an administrator fixes with `plagd user reset`.
var errMalformedHash = errors.New("malformed password hash (reset the password with `plagd user reset`)")

// decodeHash parses a PHC argon2id string and checks its parameters are sane.
func decodeHash(encoded string) (p argonParams, salt, key []byte, err error) {
	bad := func(format string, args ...any) (argonParams, []byte, []byte, error) {
		return argonParams{}, nil, nil, fmt.Errorf("%w: %s", errMalformedHash, fmt.Sprintf(format, args...))
	}
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" {
		return bad("want $argon2id$v=19$m=...,t=...,p=...$salt$hash")
	}
	if parts[1] != "argon2id" {
		return bad("algorithm %q, want argon2id", parts[1])
	}
	if parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return bad("version %q, want v=%d", parts[2], argon2.Version)
	}
	var seen [3]bool
	for _, kv := range strings.Split(parts[3], ",") {
		k, v, ok := strings.Cut(kv, "=")
		n, err := strconv.ParseUint(v, 10, 32)
		if !ok || err != nil {
			return bad("parameter %q", kv)
		}
		i := strings.Index("mtp", k)
		if len(k) != 1 || i < 0 || seen[i] {
			return bad("parameter %q unknown or repeated", kv)
		}
		seen[i] = true
		switch k {
		case "m":
			p.memory = uint32(n)
		case "t":
			p.time = uint32(n)
		case "p":
			if n > 255 {
				return bad("parallelism %d above 255", n)
			}
			p.threads = uint8(n)
		}
	}
	switch {
	case seen != [3]bool{true, true, true}:
		return bad("parameters %q, want m, t and p", parts[3])
	case p.threads < 1:
		return bad("parallelism 0")
	case p.time < 1 || p.time > maxArgonTime:
		return bad("iterations %d, want 1 to %d", p.time, maxArgonTime)
	case p.memory < 8*uint32(p.threads) || p.memory > maxArgonMemory:
		return bad("memory %d KiB, want %d to %d", p.memory, 8*uint32(p.threads), maxArgonMemory)
	}
	// Tolerate padding, which some other PHC writers add.
	if salt, err = b64.DecodeString(strings.TrimRight(parts[4], "=")); err != nil || len(salt) < minArgonSalt {
		return bad("salt")
	}
	if key, err = b64.DecodeString(strings.TrimRight(parts[5], "=")); err != nil || len(key) < minArgonKeyLen || len(key) > maxArgonKeyLen {
		return bad("hash")
	}
	return p, salt, key, nil
}

// passwordAlphabet leaves out characters that look alike in common fonts
// (0/O/o, 1/l/I/i), so a generated password can be read aloud or retyped.
const passwordAlphabet = "23456789abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ"

// generatedLen characters of 55 give about 115 bits of entropy.
const generatedLen = 20

// GeneratePassword returns a random password for a new user or a reset, from
// crypto/rand and an alphabet without look-alike characters.
func GeneratePassword() string {
	// Rejection sampling: bytes at or above the largest multiple of the
	// alphabet size are dropped, so every character is equally likely.
	limit := byte(256 - 256%len(passwordAlphabet))
	out := make([]byte, 0, generatedLen)
	buf := make([]byte, 2*generatedLen)
	for len(out) < generatedLen {
		rand.Read(buf)
		for _, b := range buf {
			if b < limit && len(out) < generatedLen {
				out = append(out, passwordAlphabet[int(b)%len(passwordAlphabet)])
			}
		}
	}
	return string(out)
}

// CheckPasswordPolicy returns ErrWeakPassword for a password shorter than 10
// characters (not bytes: "pässwörter" is long enough).
func CheckPasswordPolicy(password string) error {
	if utf8.RuneCountInString(password) < minPasswordLen {
		return ErrWeakPassword
	}
	return nil
}
