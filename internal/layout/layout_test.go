// Package layout checks the shape of the repository that docs/ARCHITECTURE.md
// promises: which packages may do I/O and which may import what. The checks
// ask the go tool for the packages' real imports (go list), so a promise
// broken in code fails here, not in review.
package layout

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// list runs go list -json on patterns from the module root.
func list(t *testing.T, patterns ...string) []pkg {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go tool is not on PATH")
	}
	cmd := exec.Command("go", append([]string{"list", "-json=ImportPath,Imports,Deps"}, patterns...)...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %v: %v", patterns, err)
	}
	var ps []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	return ps
}

// ioImports are imports that mean a package talks to the world: a
// database, the network, processes, files. ioDeps are those a package may
// not reach even indirectly (fmt imports os, so os is checked directly only).
var (
	ioImports = []string{"os", "os/exec", "net", "net/http", "database/sql", "io/fs", "path/filepath",
		"github.com/jackc/pgx/v5", "google.golang.org/grpc", "github.com/plagd/plagd/cluster/remote"}
	ioDeps = []string{"os/exec", "net/http", "database/sql", "github.com/jackc/pgx/v5",
		"google.golang.org/grpc", "github.com/plagd/plagd/cluster/remote"}
)

// TestPurePackagesDoNoIO: the algorithms stay free of I/O.
func TestPurePackagesDoNoIO(t *testing.T) {
	pure := []string{"invindex", "cluster", "neardup", "related", "routing", "termstat", "passage"}
	var patterns []string
	for _, p := range pure {
		patterns = append(patterns, "github.com/plagd/plagd/"+p)
	}
	for _, p := range list(t, patterns...) {
		for _, d := range p.Imports {
			for _, bad := range ioImports {
				if d == bad || strings.HasPrefix(d, bad+"/") {
					t.Errorf("%s imports %s: pure packages do no I/O (docs/ARCHITECTURE.md)", p.ImportPath, d)
				}
			}
		}
		for _, d := range p.Deps {
			for _, bad := range ioDeps {
				if d == bad || strings.HasPrefix(d, bad+"/") {
					t.Errorf("%s depends on %s: pure packages do no I/O (docs/ARCHITECTURE.md)", p.ImportPath, d)
				}
			}
		}
	}
}
