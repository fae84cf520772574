package sandbox_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/plagd/plagd/extract"
	"github.com/plagd/plagd/extract/sandbox"
)

// TestFixturesSameInChildren: every fixture of package extract (readable
// documents in every format, scans, encrypted, truncated, zip bombs) gives
// the same text, or the same failure, read in children as in-process: the
// protocol loses nothing. PLAGD_SANDBOX_FIXTURE_MODE=isolated or inprocess
// reads them PLAGD_SANDBOX_FIXTURE_ROUNDS times in one mode only, to time
// the whole process (docs/EXTRACTION.md, "Extraction processes").
func TestFixturesSameInChildren(t *testing.T) {
	var files []string
	for _, pat := range []string{"../testdata/*", "../testdata/broken/*"} {
		m, _ := filepath.Glob(pat)
		for _, f := range m {
			if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() && filepath.Ext(f) != ".intact" && filepath.Ext(f) != ".json" {
				files = append(files, f)
			}
		}
	}
	if len(files) < 20 {
		t.Fatalf("only %d fixtures found", len(files))
	}
	type result struct {
		text string
		kind extract.Kind
	}
	read := func(p *sandbox.Pool, f string) result {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text, err := p.Text(context.Background(), b, filepath.Base(f), "", extract.Options{MaxUnzipped: 32 << 20, Timeout: time.Minute})
		var xe *extract.Error
		if err != nil && !errors.As(err, &xe) {
			t.Fatalf("%s: %v", f, err)
		}
		if xe != nil {
			return result{kind: xe.Kind}
		}
		return result{text: text}
	}
	log := zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.WarnLevel)
	if mode := os.Getenv("PLAGD_SANDBOX_FIXTURE_MODE"); mode != "" {
		rounds, _ := strconv.Atoi(os.Getenv("PLAGD_SANDBOX_FIXTURE_ROUNDS"))
		p := sandbox.New(sandbox.Config{Workers: 1, Isolate: mode == "isolated"}, log)
		defer p.Close()
		for range max(rounds, 1) {
			for _, f := range files {
				if filepath.Base(filepath.Dir(f)) != "broken" { // the zip bomb alone takes seconds
					read(p, f)
				}
			}
		}
		return
	}
	in := sandbox.New(sandbox.Config{Workers: 1}, log)
	iso := sandbox.New(sandbox.Config{Workers: 1, Isolate: true}, log)
	defer iso.Close()
	for _, f := range files {
		a, b := read(in, f), read(iso, f)
		if a != b {
			t.Errorf("%s: in-process %v (%d bytes), in a child %v (%d bytes)", f, a.kind, len(a.text), b.kind, len(b.text))
		}
	}
	if iso.Isolated() && iso.Stats().Started == 0 {
		t.Error("no child was started: the comparison proves nothing")
	}
}
