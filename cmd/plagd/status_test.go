package main

import (
	"strings"
	"testing"
	"time"

	"github.com/plagd/plagd/store"
)

// TestWriteStatus_HeldBack: status says which open transaction holds
// changes back and how to end it.
func TestWriteStatus_HeldBack(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	st := store.Status{Pending: 3, Runs: []store.RunInfo{}, Failed: []store.FailedDoc{},
		HeldBack: &store.HeldBack{Documents: 2, PID: 4242, Database: "archive", User: "sis", State: "idle in transaction",
			Since: now.Add(-95 * time.Minute)}}
	var b strings.Builder
	writeStatus(&b, st, now)
	for _, want := range []string{"3 documents waiting", "2 documents held back", "pid 4242, database archive, user sis, idle in transaction",
		"SELECT pg_terminate_backend(4242)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, b.String())
		}
	}
}
