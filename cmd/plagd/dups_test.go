package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/internal/pgtest"
)

// essay is a text of n words drawn from a vocabulary big enough that two
// essays with different seeds share little.
func essay(seed, n int) string {
	ws := make([]string, n)
	x := uint64(seed)*0x9e3779b97f4a7c15 + 1
	for i := range ws {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		ws[i] = fmt.Sprintf("w%d", x%2000)
	}
	return strings.Join(ws, " ")
}

// TestCLI_NearDuplicates: ingest reports a re-upload at once, before any
// run, and plagd dups lists the cluster after the run.
func TestCLI_NearDuplicates(t *testing.T) {
	url := pgtest.NewDB(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a-essay.txt"), []byte(essay(1, 800)), 0o644)
	os.WriteFile(filepath.Join(dir, "b-other.txt"), []byte(essay(2, 800)), 0o644)
	os.WriteFile(filepath.Join(dir, "c-essay-again.txt"), []byte("RESUBMITTED\n\n"+strings.ToUpper(essay(1, 800))), 0o644)
	out, code := plagd(t, url, "ingest", dir)
	if code != 0 || !strings.Contains(out, "near-duplicates") && !strings.Contains(out, "nearly the same text") {
		t.Fatalf("ingest: exit %d, no near-duplicate reported:\n%s", code, out)
	}
	if !strings.Contains(out, "c-essay-again.txt") || !strings.Contains(out, "a-essay.txt") || strings.Contains(out, "b-other.txt (#") {
		t.Fatalf("ingest: want c-essay-again.txt reported near a-essay.txt only:\n%s", out)
	}
	if out, code := plagd(t, url, "run"); code != 0 {
		t.Fatalf("run: exit %d: %s", code, out)
	}
	out, code = plagd(t, url, "dups", "--json")
	var rep engine.DupsReport
	if code != 0 || json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &rep) != nil {
		t.Fatalf("dups --json: exit %d: %s", code, out)
	}
	if rep.Documents != 3 || len(rep.Clusters) != 1 || len(rep.Clusters[0].Documents) != 2 {
		t.Fatalf("dups: %+v, want one cluster of 2 among 3 documents", rep)
	}
	for _, d := range rep.Clusters[0].Documents {
		if !strings.Contains(d.ExternalID, "essay") || d.Pending {
			t.Fatalf("dups: unexpected member %+v", d)
		}
	}
	if out, code := plagd(t, url, "dups"); code != 0 || !strings.Contains(out, "1 cluster of near-duplicates") {
		t.Fatalf("dups: exit %d:\n%s", code, out)
	}
	if _, code := plagd(t, url, "dups", "--distance", "99"); code != 2 {
		t.Fatalf("dups --distance 99: exit %d, want 2", code)
	}
}
