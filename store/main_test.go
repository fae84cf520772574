package store

import (
	"testing"

	"github.com/plagd/plagd/internal/pgtest"
)

// TestMain gives the package's integration tests a PostgreSQL (see internal/pgtest).
func TestMain(m *testing.M) { pgtest.Main(m) }
