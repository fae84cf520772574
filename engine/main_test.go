package engine

import (
	"testing"

	"github.com/plagd/plagd/extract/sandbox"
	"github.com/plagd/plagd/internal/pgtest"
)

// TestMain gives the package's integration tests a PostgreSQL (see internal/pgtest).
func TestMain(m *testing.M) {
	sandbox.Main() // the extraction processes the tests start are this binary
	pgtest.Main(m)
}
