// Package measure holds what the measurement tests share: they run only
// when asked (they take minutes and print tables for the docs, they do not
// assert targets), and take their sizes from the environment.
package measure

import (
	"os"
	"strconv"
	"testing"
)

// Gate skips t unless the environment variable env is "1".
func Gate(t testing.TB, env string) {
	t.Helper()
	if os.Getenv(env) != "1" {
		t.Skip("measurement: set " + env + "=1 to run it")
	}
}

// EnvInt is the positive integer in the environment variable name, or def.
func EnvInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}
