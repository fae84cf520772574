package measure

import (
	"os"
	"path/filepath"
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

// PanTexts reads the plain texts of a PAN-format corpus (its
// source-documents and suspicious-documents folders), sources first, each
// folder in name order. A folder without texts gives none.
func PanTexts(dir string) ([]string, error) {
	var texts []string
	for _, sub := range []string{"source-documents", "suspicious-documents"} {
		files, err := filepath.Glob(filepath.Join(dir, sub, "*.txt"))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			texts = append(texts, string(b))
		}
	}
	return texts, nil
}
