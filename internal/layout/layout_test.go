package layout

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
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
	pure := []string{"invindex", "cluster", "neardup", "related", "routing", "termstat", "passage", "report", "archive", "disguise", "reportpdf"}
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

// TestEveryPackageHasADocFile: each package teaches in a doc.go what it is
// for (the package comment sits there, not in whichever file came first).
func TestEveryPackageHasADocFile(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go tool is not on PATH")
	}
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{.Name}}", "./...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), filepath.Join(f[1], "doc.go"), nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			t.Errorf("%s has no doc.go (%v)", f[0], err)
			continue
		}
		if file.Doc == nil || len(file.Doc.Text()) < 80 {
			t.Errorf("%s: doc.go holds no package comment that teaches (%d characters)", f[0], len(file.Doc.Text()))
		}
	}
}

// TestNoSQLOutsideStore: the web server and the commands run no SQL of
// their own (docs/ARCHITECTURE.md): no file of theirs imports the database
// driver, and none calls a statement method (Query, QueryRow or Exec with a
// context and SQL, Begin, SendBatch, CopyFrom); they go through store,
// ingest, engine, daemon, auth, audit and migrations.
func TestNoSQLOutsideStore(t *testing.T) {
	for _, dir := range []string{"web", "cmd/plagd", "cmd/plagd-lab"} {
		checkNoSQL(t, filepath.Join("..", "..", dir))
	}
}

func checkNoSQL(t *testing.T, dir string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in %s (%v)", dir, err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(path, "github.com/jackc/pgx") {
				t.Errorf("%s imports %s: call package store instead", name, path)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			statement := slices.Contains([]string{"Query", "QueryRow", "Exec"}, sel.Sel.Name) && len(call.Args) >= 2 ||
				slices.Contains([]string{"Begin", "BeginTx", "SendBatch", "CopyFrom"}, sel.Sel.Name)
			if statement {
				t.Errorf("%s: %s runs a statement: call package store instead", fset.Position(call.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
}

// TestLogDurationsHaveUnits: a duration in a log line says its unit in its
// key ("took_ms"), so that "took": 22.2 is never left to guess; zerolog's
// Dur writes milliseconds (zerolog.DurationFieldUnit, left at its default).
func TestLogDurationsHaveUnits(t *testing.T) {
	files, err := filepath.Glob("../../*/*.go")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("../../*/*/*.go")
	for _, f := range append(files, more...) {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 2 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "Dur" {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if key, _ := strconv.Unquote(lit.Value); !strings.HasSuffix(key, "_ms") {
				t.Errorf("%s: log field %q holds a duration in milliseconds: name it %q", f, key, key+"_ms")
			}
			return true
		})
	}
}
