package web

import (
	"testing"

	"github.com/plagd/plagd/extract/sandbox"
	"github.com/plagd/plagd/extract/sandbox/sandboxtest"
	"github.com/plagd/plagd/internal/pgtest"
)

// TestMain starts one throwaway PostgreSQL for the package's tests.
func TestMain(m *testing.M) {
	// The extraction processes the tests start are this binary; their
	// reader spins on sandboxtest.SpinMarker files (sandbox_test.go).
	sandboxtest.InstallSpinningReader()
	sandbox.Main()
	pgtest.Main(m)
}
