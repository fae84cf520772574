package web

import (
	"testing"

	"github.com/plagd/plagd/internal/pgtest"
)

// TestMain starts one throwaway PostgreSQL for the package's tests.
func TestMain(m *testing.M) { pgtest.Main(m) }
