package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// labPackages belong to plagd-lab (cmd/plagd-lab): the benchmarks, the
// synthetic corpora and the extraction scores. The binary operators deploy
// must not carry them.
var labPackages = []string{
	"github.com/plagd/plagd/internal/bench",
	"github.com/plagd/plagd/internal/synth",
	"github.com/plagd/plagd/internal/wordscore",
}

// TestDeps_NoLab fails when plagd links a package of the laboratory, and
// says which package imports it.
func TestDeps_NoLab(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go tool on PATH: %v", err)
	}
	cmd := exec.Command(goTool, "list", "-deps", "-f", `{{.ImportPath}} {{join .Imports " "}}`, ".")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, stderr.String())
	}
	linked := map[string]bool{}
	importers := map[string][]string{} // package → the packages linked into plagd that import it
	for line := range strings.Lines(string(out)) {
		pkg, imports, _ := strings.Cut(strings.TrimSpace(line), " ")
		linked[pkg] = true
		for _, imp := range strings.Fields(imports) {
			importers[imp] = append(importers[imp], pkg)
		}
	}
	if !linked["github.com/plagd/plagd/daemon"] {
		t.Fatalf("go list -deps does not list daemon; its output:\n%s", out)
	}
	for _, p := range labPackages {
		if linked[p] {
			by := importers[p]
			slices.Sort(by)
			t.Errorf("plagd links %s (imported by %s): it belongs to plagd-lab, see doc.go", p, strings.Join(by, ", "))
		}
	}
}
