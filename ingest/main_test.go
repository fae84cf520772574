package ingest

import (
	"testing"

	"github.com/plagd/plagd/extract/sandbox"
	"github.com/plagd/plagd/internal/pgtest"
)

// TestMain gives the package's integration tests a PostgreSQL (see
// internal/pgtest) and extraction processes (this binary, see sandbox.Main).
func TestMain(m *testing.M) {
	sandbox.Main()
	pgtest.Main(m)
}
