package extract

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestPDFiumConcurrent: documents read at once in one process (a web
// server reading in-process, extract-eval's jobs) share the compiled
// engine and its pool of instances, which serve one document at a time
// and are reused: every reading gives the text a reading alone gives.
func TestPDFiumConcurrent(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "*.lo.pdf"))
	paths = append(paths, filepath.Join("testdata", "en_methods.2col.pdf"), filepath.Join("testdata", "cs_proza.headfoot.pdf"))
	want := map[string]string{}
	files := map[string][]byte{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		text, err := Text(data, "x.pdf", "", Options{})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		files[p], want[p] = data, text
	}
	var wg sync.WaitGroup
	for worker := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 5 {
				for _, p := range paths {
					got, err := Text(files[p], "x.pdf", "", Options{})
					if err != nil || got != want[p] {
						t.Errorf("worker %d round %d %s: text differs from the reading alone (%v)", worker, round, p, err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

// TestPDFiumBinds: the go-pdfium version in go.mod offers the module and
// the exports plagd calls (bindPDFium reaches them through reflection).
func TestPDFiumBinds(t *testing.T) {
	pool, err := pdfiumPool()
	if err != nil {
		t.Fatal(err)
	}
	inst, err := pool.GetInstance(time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Kill()
	if _, err := bindPDFium(inst); err != nil {
		t.Fatal(err)
	}
}
