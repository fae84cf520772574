package auth

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/crypto/argon2"
)

func TestHashVerifyRoundTrip(t *testing.T) {
	h, err := HashPassword("correct horse battery staple")
	if err != nil {
		t.Fatal(err)
	}
	phc := regexp.MustCompile(`^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$`)
	if !phc.MatchString(h) {
		t.Fatalf("hash %q is not a PHC argon2id string with the OWASP parameters", h)
	}
	if ok, err := VerifyPassword(h, "correct horse battery staple"); !ok || err != nil {
		t.Fatalf("right password: %v, %v", ok, err)
	}
	for _, wrong := range []string{"correct horse battery stapl", "Correct horse battery staple", "", "correct horse battery staple "} {
		if ok, err := VerifyPassword(h, wrong); ok || err != nil {
			t.Errorf("wrong password %q: %v, %v; want false, nil", wrong, ok, err)
		}
	}
	if needsRehash(h) {
		t.Error("a fresh hash needs a rehash")
	}
	if _, err := HashPassword(""); err == nil {
		t.Error("an empty password was hashed")
	}
}

func TestHashesAreSalted(t *testing.T) {
	a, _ := HashPassword("same password twice")
	b, _ := HashPassword("same password twice")
	if a == b {
		t.Fatal("two hashes of one password are equal: no salt")
	}
	if strings.Split(a, "$")[4] == strings.Split(b, "$")[4] {
		t.Fatal("two hashes share a salt")
	}
}

// A hash made with other parameters (older or stronger ones) verifies: the
// parameters come from the string, not from the constants.
func TestVerifyReadsParameters(t *testing.T) {
	salt := []byte("0123456789abcdef")
	for _, p := range []argonParams{{memory: 8192, time: 1, threads: 2}, {memory: 32768, time: 3, threads: 4}} {
		key := argon2.IDKey([]byte("an older password"), salt, p.time, p.memory, p.threads, 24)
		h := p.encode(salt, key)
		if ok, err := VerifyPassword(h, "an older password"); !ok || err != nil {
			t.Fatalf("%s: %v, %v; want true", h, ok, err)
		}
		if ok, _ := VerifyPassword(h, "another password"); ok {
			t.Fatalf("%s: wrong password accepted", h)
		}
		if !needsRehash(h) {
			t.Errorf("%s: not marked for rehash", h)
		}
		// Verifying with the current parameters instead would fail.
		if ok, _ := VerifyPassword(argonParams{memory: argonMemory, time: argonTime, threads: argonThreads}.encode(salt, key), "an older password"); ok {
			t.Fatal("parameters do not matter to VerifyPassword")
		}
	}
	// Padded base64, as some other PHC writers produce.
	key := argon2.IDKey([]byte("padded"), salt, 1, 8192, 1, 32)
	padded := "$argon2id$v=19$m=8192,t=1,p=1$" + b64.EncodeToString(salt) + "==$" + b64.EncodeToString(key) + "="
	if ok, err := VerifyPassword(padded, "padded"); !ok || err != nil {
		t.Fatalf("padded hash: %v, %v", ok, err)
	}
}

func TestVerifyMalformed(t *testing.T) {
	good, _ := HashPassword("a good password")
	parts := strings.Split(good, "$")
	with := func(i int, v string) string {
		p := append([]string(nil), parts...)
		p[i] = v
		return strings.Join(p, "$")
	}
	for name, h := range map[string]string{
		"empty":         "",
		"plain text":    "a good password",
		"bcrypt":        "$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy",
		"argon2i":       with(1, "argon2i"),
		"version 16":    with(2, "v=16"),
		"no version":    with(2, "m=19456,t=2,p=1"),
		"missing p":     with(3, "m=19456,t=2"),
		"repeated m":    with(3, "m=19456,m=19456,t=2"),
		"unknown param": with(3, "m=19456,t=2,p=1,x=3"),
		"letters":       with(3, "m=lots,t=2,p=1"),
		"zero time":     with(3, "m=19456,t=0,p=1"),
		"zero threads":  with(3, "m=19456,t=2,p=0"),
		"huge memory":   with(3, "m=4194304,t=2,p=1"),
		"tiny memory":   with(3, "m=4,t=2,p=1"),
		"huge time":     with(3, "m=19456,t=100000,p=1"),
		"bad salt":      with(4, "not base64!"),
		"short salt":    with(4, "c2FsdA"),
		"bad hash":      with(5, "%%%"),
		"short hash":    with(5, "c2hvcnQ"),
		"extra field":   good + "$x",
		"no leading $":  strings.TrimPrefix(good, "$"),
	} {
		ok, err := VerifyPassword(h, "a good password")
		if ok || err == nil || !errors.Is(err, errMalformedHash) {
			t.Errorf("%s (%q): %v, %v; want false and a malformed-hash error", name, h, ok, err)
		}
	}
}

func TestPasswordPolicy(t *testing.T) {
	for pw, ok := range map[string]bool{
		"":                              false,
		"123456789":                     false,
		"1234567890":                    true,
		"äöüäöüäöü":                     false, // 9 characters, 18 bytes
		"äöüäöüäöüß":                    true,
		"a long passphrase with spaces": true,
	} {
		err := CheckPasswordPolicy(pw)
		if ok != (err == nil) || (err != nil && !errors.Is(err, ErrWeakPassword)) {
			t.Errorf("CheckPasswordPolicy(%q) = %v, want ok=%v", pw, err, ok)
		}
	}
}

func TestGeneratePassword(t *testing.T) {
	seen := map[string]bool{}
	chars := map[rune]bool{}
	for range 200 {
		pw := GeneratePassword()
		if len(pw) != generatedLen || strings.Trim(pw, passwordAlphabet) != "" {
			t.Fatalf("generated %q: want %d characters of %q", pw, generatedLen, passwordAlphabet)
		}
		if CheckPasswordPolicy(pw) != nil {
			t.Fatalf("generated %q fails the policy", pw)
		}
		if seen[pw] {
			t.Fatalf("generated %q twice", pw)
		}
		seen[pw] = true
		for _, c := range pw {
			chars[c] = true
		}
	}
	if len(chars) != len(passwordAlphabet) { // 4000 draws: missing one has odds of about 1e-30
		t.Errorf("200 passwords use %d of the %d characters", len(chars), len(passwordAlphabet))
	}
	if strings.ContainsAny(passwordAlphabet, "0Oo1lIi") {
		t.Fatal("the alphabet has look-alike characters")
	}
}

// argonKey is argon2id with explicit parameters, for hashes made "by another version".
func argonKey(password string, salt []byte, memory, time uint32, threads uint8) []byte {
	return argon2.IDKey([]byte(password), salt, time, memory, threads, argonKeyLen)
}
