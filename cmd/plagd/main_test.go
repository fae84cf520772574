package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/plagd/plagd/daemon"
	"github.com/plagd/plagd/extract/sandbox"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/store"
)

func TestMain(m *testing.M) {
	sandbox.Main() // the extraction processes the tests start are this binary
	pgtest.Main(m)
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// plagdBin builds the binary once per test binary.
func plagdBin(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "plagd-cli-test")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "plagd")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = errors.New(string(out))
		}
	})
	if binErr != nil {
		t.Fatalf("go build: %v", binErr)
	}
	return binPath
}

// plagd runs the binary against url and returns stdout+stderr and the exit code.
func plagd(t *testing.T, url string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(plagdBin(t), args...)
	cmd.Env = append(os.Environ(), "PLAGD_DATABASE_URL="+url, "PLAGD_DATA_DIR="+dataDirs(t),
		"PLAGD_LOG_FORMAT=json", "PLAGD_LOG_LEVEL=warn")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return string(out), exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

var dataDir sync.Map // test name → its index directory, shared by all its commands

func dataDirs(t *testing.T) string {
	d, _ := dataDir.LoadOrStore(t.Name(), filepath.Join(t.TempDir(), "index"))
	return d.(string)
}

// TestCLI_Workflow walks an operator's first steps: migrate, ingest, run,
// similar, status; and the refusals that must say what to do.
func TestCLI_Workflow(t *testing.T) {
	url := pgtest.NewEmptyDB(t)
	if out, code := plagd(t, url, "run"); code != 1 || !strings.Contains(out, "plagd migrate") {
		t.Fatalf("run on an unmigrated database: exit %d, output %q; want 1 and advice to migrate", code, out)
	}
	if out, code := plagd(t, url, "migrate"); code != 0 || !strings.Contains(out, "0001_init") {
		t.Fatalf("migrate: exit %d: %s", code, out)
	}
	if out, code := plagd(t, url, "migrate"); code != 0 || !strings.Contains(out, "up to date") {
		t.Fatalf("second migrate: exit %d: %s", code, out)
	}

	dir := t.TempDir()
	shared := "the committee examined the thesis and found the methodology sound and the results reproducible in every respect"
	os.WriteFile(filepath.Join(dir, "thesis.txt"), []byte("Introduction to the topic. "+shared+" Further chapters follow with much more text."), 0o644)
	os.WriteFile(filepath.Join(dir, "essay.txt"), []byte(shared), 0o644)
	os.WriteFile(filepath.Join(dir, "empty.txt"), []byte("   \n"), 0o644)
	if out, code := plagd(t, url, "ingest", "--kind", "essay", dir); code != 0 || !strings.Contains(out, "added 3") ||
		!strings.Contains(out, "plain text 3") || !strings.Contains(out, "empty.txt: the document contains no text") {
		t.Fatalf("ingest: exit %d: %s", code, out)
	}
	out, code := plagd(t, url, "run")
	if code != 0 || !strings.Contains(out, "committed") || !strings.Contains(out, "failed 1") {
		t.Fatalf("run: exit %d: %s", code, out)
	}
	if out, code := plagd(t, url, "run"); code != 0 || !strings.Contains(out, "nothing to do") {
		t.Fatalf("idle run: exit %d: %s", code, out)
	}

	ext := filepath.Base(dir) + "/essay.txt"
	out, code = plagd(t, url, "similar", "--json", ext)
	if code != 0 {
		t.Fatalf("similar: exit %d: %s", code, out)
	}
	var report struct {
		Similar []store.SimilarRow `json:"similar"`
	}
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &report); err != nil {
		t.Fatalf("similar --json: %v in %q", err, out)
	}
	rows := report.Similar
	if len(rows) != 1 || rows[0].Similarity != 1 || !strings.HasSuffix(rows[0].ExternalID, "thesis.txt") {
		t.Fatalf("similar essay: %+v, want the thesis at 100 %%", rows)
	}
	if out, code := plagd(t, url, "similar", "no-such-doc"); code != 1 || !strings.Contains(out, "no document") {
		t.Fatalf("similar unknown: exit %d: %s", code, out)
	}

	out, code = plagd(t, url, "status", "--json")
	var st store.Status
	if code != 0 || json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &st) != nil {
		t.Fatalf("status --json: exit %d: %s", code, out)
	}
	if st.Documents.Indexed != 2 || st.Documents.Failed != 1 || len(st.Failed) != 1 || !strings.Contains(st.Failed[0].Error, "no text") {
		t.Fatalf("status: %+v", st)
	}

	// Re-ingesting the fixed file clears its failure at the next run.
	os.WriteFile(filepath.Join(dir, "empty.txt"), []byte("now the file holds a proper sentence of text"), 0o644)
	if out, code := plagd(t, url, "ingest", dir); code != 0 || !strings.Contains(out, "updated 1") {
		t.Fatalf("re-ingest: exit %d: %s", code, out)
	}
	if out, code := plagd(t, url, "run"); code != 0 || !strings.Contains(out, "failed 0") {
		t.Fatalf("run after fix: exit %d: %s", code, out)
	}
	out, _ = plagd(t, url, "status", "--json")
	st = store.Status{}
	json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &st)
	if st.Documents.Failed != 0 || st.Documents.Indexed != 3 {
		t.Fatalf("status after fix: %+v", st.Documents)
	}

	// A second master is refused while one holds the lock.
	pool := pgtest.Pool(t, url)
	lock, err := daemon.AcquireMaster(context.Background(), pool, false)
	if err != nil {
		t.Fatal(err)
	}
	if out, code := plagd(t, url, "run"); code != 1 || !strings.Contains(out, "another plagd master") {
		t.Fatalf("run under another master: exit %d: %s", code, out)
	}
	lock.Release()

	if _, code := plagd(t, url, "run", "--no-such-flag"); code != 2 {
		t.Fatalf("bad flag: exit %d, want 2", code)
	}
}
