package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestNoSQL: the commands run no SQL of their own: no file of the
// command imports the database driver, and none calls a statement method
// (Query, QueryRow, Exec with a context and SQL, Begin, SendBatch,
// CopyFrom); they call store, ingest, engine, daemon, auth and migrations.
func TestNoSQL(t *testing.T) { checkNoSQL(t, ".") }

func checkNoSQL(t *testing.T, dir string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
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
