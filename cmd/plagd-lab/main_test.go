package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plagd/plagd/extract/sandbox"
	"github.com/plagd/plagd/internal/bench"
	"github.com/plagd/plagd/internal/cli"
	"github.com/plagd/plagd/internal/pgtest"
)

// envAsMain makes this test binary run as plagd-lab: the tests run the
// commands as an operator does, in a process of their own with its exit
// code, without building the binary first.
const envAsMain = "PLAGD_LAB_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(envAsMain) == "1" {
		main() // exits
	}
	sandbox.Main()
	pgtest.Main(m)
}

// lab runs plagd-lab with args and returns its stdout, its stderr and its
// exit code.
func lab(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), envAsMain+"=1", "PLAGD_CONFIG=", "PLAGD_LOG_FORMAT=json")
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); cmd.ProcessState == nil {
		t.Fatal(err) // it did not start
	}
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

// TestLab_Usage: the commands are listed, and bad commands, flags and
// arguments exit with the usage code and say what is wrong.
func TestLab_Usage(t *testing.T) {
	out, _, code := lab(t)
	if code != cli.ExitOK {
		t.Fatalf("plagd-lab without a command: exit %d", code)
	}
	for _, c := range []string{"bench", "gen", "extract-eval", "--database", "--data-dir", "--log-level"} {
		if !strings.Contains(out, c) {
			t.Errorf("help does not mention %s:\n%s", c, out)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"similar", "1"}, `plagd-lab: unknown command "similar" (see 'plagd-lab --help')`},
		{[]string{"gen"}, "plagd-lab gen needs --out DIR"},
		{[]string{"bench", "--no-such-flag"}, "unknown flag: --no-such-flag"},
		{[]string{"bench", "extra"}, `unknown command "extra" for "plagd-lab bench"`},
		{[]string{"extract-eval", "extra"}, "plagd-lab extract-eval takes no arguments"},
		{[]string{"extract-eval", "--pdf-engine", "nope"}, "--pdf-engine"},
	} {
		if _, stderr, code := lab(t, c.args...); code != cli.ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("plagd-lab %s: exit %d, stderr %q; want %d and %q", strings.Join(c.args, " "), code, stderr, cli.ExitUsage, c.want)
		}
	}
}

// TestLab_Gen: gen writes the documents and the list of planted copies.
func TestLab_Gen(t *testing.T) {
	dir := t.TempDir()
	out, stderr, code := lab(t, "gen", "--docs", "40", "--words-per-doc", "60", "--out", dir)
	if code != 0 || !strings.Contains(out, "wrote 40 documents") {
		t.Fatalf("gen: exit %d\n%s%s", code, out, stderr)
	}
	txt, _ := filepath.Glob(filepath.Join(dir, "synth-*.txt"))
	truth, err := os.ReadFile(filepath.Join(dir, "copies.tsv"))
	if len(txt) != 40 || err != nil || !strings.HasPrefix(string(truth), "# plagd-lab gen seed=1 ") {
		t.Fatalf("gen wrote %d documents; copies.tsv %q (%v)", len(txt), truth, err)
	}
}

// TestLab_BenchSkipDB: the CPU figures, without a database, as JSON on
// stdout with the progress on stderr.
func TestLab_BenchSkipDB(t *testing.T) {
	out, stderr, code := lab(t, "bench", "--skip-db", "--docs", "200", "--words-per-doc", "100", "--sample-mb", "1", "--json")
	var rep bench.Report
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("bench --skip-db: exit %d\nstdout %s\nstderr %s", code, out, stderr)
	}
	if rep.Docs != 200 || rep.Chunk.Postings == 0 || len(rep.Build) == 0 || rep.Full != nil {
		t.Fatalf("bench --skip-db report: %+v", rep)
	}
	if !strings.Contains(stderr, "plagd-lab bench: 200 documents") {
		t.Fatalf("bench --skip-db progress on stderr: %s", stderr)
	}
}

// TestLab_Bench: against PostgreSQL (named by the global --database flag) a
// full and an incremental run; a second bench refuses the filled database.
func TestLab_Bench(t *testing.T) {
	url := pgtest.NewDB(t)
	args := []string{"--database", url, "--data-dir", filepath.Join(t.TempDir(), "index"), "bench",
		"--docs", "300", "--words-per-doc", "80", "--changes", "30", "--copy-rows", "1000", "--sample-mb", "1", "--json"}
	out, stderr, code := lab(t, args...)
	var rep bench.Report
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("bench: exit %d\nstdout %s\nstderr %s", code, out, stderr)
	}
	if rep.Load == nil || rep.Load.Docs != 300 || rep.Full == nil || rep.Incr == nil || len(rep.Copy) == 0 {
		t.Fatalf("bench report: %+v", rep)
	}
	if _, stderr, code := lab(t, args...); code != cli.ExitFailure || !strings.Contains(stderr, "plagd-lab bench needs an empty, migrated database") {
		t.Fatalf("bench on a filled database: exit %d, stderr %s", code, stderr)
	}
}

// TestLab_ExtractEval: the tables of docs/EXTRACTION.md over the fixtures.
func TestLab_ExtractEval(t *testing.T) {
	out, stderr, code := lab(t, "extract-eval", "--testdata", filepath.Join("..", "..", "extract", "testdata"), "--pdftotext", "", "--markdown")
	if code != 0 {
		t.Fatalf("extract-eval: exit %d\n%s%s", code, out, stderr)
	}
	for _, want := range []string{"Readable fixtures", "| fixture | plagd F1 words / bigrams |", "Per format", "Fixtures that must fail", "broken/zero-bytes.pdf | empty | empty"} {
		if !strings.Contains(out, want) {
			t.Errorf("extract-eval output lacks %q:\n%s", want, out)
		}
	}
}

// TestLab_Evasion: evasion writes the set and prints a row per variant.
func TestLab_Evasion(t *testing.T) {
	if _, err := os.Stat("/usr/share/common-licenses/GPL-3"); err != nil {
		t.Skip("no licence texts")
	}
	dir := t.TempDir()
	out, stderr, code := lab(t, "evasion", "--out", dir)
	if code != 0 || !strings.Contains(out, "cyrillic a e o c p x") || !strings.Contains(out, "confusable(") {
		t.Fatalf("evasion: exit %d\n%s%s", code, out, stderr)
	}
	essays, _ := filepath.Glob(filepath.Join(dir, "essay-*.txt"))
	if len(essays) < 10 {
		t.Fatalf("evasion wrote %d essays", len(essays))
	}
}

// TestLab_Shortans: the short-answer corpus from the Go documentation,
// scored in process and through a run; both agree on plagd's similarity
// (the database's df cap of 10 barely bites at 100 documents), and a
// second measurement refuses the filled database.
func TestLab_Shortans(t *testing.T) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("go env GOROOT: %v", err)
	}
	prose := filepath.Join(strings.TrimSpace(string(goroot)), "doc")
	url := pgtest.NewDB(t)
	args := []string{"--database", url, "--data-dir", filepath.Join(t.TempDir(), "index"), "shortans", "--json", prose}
	out, stderr, code := lab(t, args...)
	var rep shortansReport
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("shortans: exit %d\nstdout %s\nstderr %s", code, out, stderr)
	}
	if rep.Answers["cut"] != 19 || rep.Answers["none"] != 38 || len(rep.Questions) != 5 || rep.Run == nil {
		t.Fatalf("shortans report: %+v", rep)
	}
	in, db := rep.InProcess["similarity"], rep.Database["similarity"]
	if db.AUC < 0.93 || db.AUC < in.AUC-0.02 {
		t.Errorf("similarity AUC: database %.3f, in process %.3f", db.AUC, in.AUC)
	}
	if c := rep.Database["coverage"]; c.AUC < 0.85 || c.Mean["cut"] < 0.8 {
		t.Errorf("coverage through the run: %+v", c)
	}
	if _, stderr, code := lab(t, args...); code != cli.ExitFailure || !strings.Contains(stderr, "use a fresh, migrated database") {
		t.Fatalf("shortans on a filled database: exit %d, stderr %s", code, stderr)
	}
}
