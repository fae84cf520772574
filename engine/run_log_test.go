package engine

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/plagd/plagd/cluster"
)

// TestLogFailures: every document a run could not index is a warning with
// its id, kind and reason, up to maxFailureLines; the rest are counted.
func TestLogFailures(t *testing.T) {
	var buf bytes.Buffer
	out := &cluster.Outcome{Docs: []cluster.DocResult{{ID: 1}, {ID: 7, Failed: "the file is empty", FailedKind: "empty"}}}
	for i := range maxFailureLines + 3 {
		out.Docs = append(out.Docs, cluster.DocResult{ID: int64(100 + i), Failed: "damaged", FailedKind: "corrupt"})
	}
	logFailures(zerolog.New(&buf), out)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != maxFailureLines+1 {
		t.Fatalf("%d lines, want %d", len(lines), maxFailureLines+1)
	}
	var first, last map[string]any
	json.Unmarshal([]byte(lines[0]), &first)
	json.Unmarshal([]byte(lines[len(lines)-1]), &last)
	if first["level"] != "warn" || first["doc"] != float64(7) || first["kind"] != "empty" || first["reason"] != "the file is empty" {
		t.Fatalf("first line %v", first)
	}
	if last["level"] != "warn" || last["more"] != float64(4) {
		t.Fatalf("last line %v", last)
	}
}
