package progress

import (
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/plagd/plagd/internal/testlog"
)

// TestLogSaysHowFarAndHowLong: the lines name the phase, the work done and
// in all, and the time left at the pace so far; none come after stop, and
// none says a time left before any work is done.
func TestLogSaysHowFarAndHowLong(t *testing.T) {
	every = 20 * time.Millisecond
	defer func() { every = 5 * time.Second }()
	var buf testlog.Buffer
	var done atomic.Int64
	stop := Log(zerolog.New(&buf), "texts", 400, &done)
	time.Sleep(70 * time.Millisecond)
	done.Store(100)
	// Until a line says so (however late the machine lets the ticker run).
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(buf.String(), `"done":100`); {
		if time.Now().After(deadline) {
			t.Fatalf("no line says the work done in 10 s: %s", buf.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	stop()
	n := len(logLines(&buf))
	time.Sleep(70 * time.Millisecond)
	lines := logLines(&buf)
	if len(lines) != n {
		t.Fatalf("%d lines logged after stop", len(lines)-n)
	}
	var sawETA bool
	for _, l := range lines {
		var ev struct {
			Phase       string
			Done, Total int64
			ETA         *float64 `json:"eta_ms"`
			Message     string
		}
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		if ev.Phase != "texts" || ev.Total != 400 || ev.Message != "progress" {
			t.Fatalf("line %s", l)
		}
		switch {
		case ev.Done == 0 && ev.ETA != nil:
			t.Fatalf("a time left before any work is done: %s", l)
		case ev.Done == 100:
			// 100 of 400 after 70 ms or more: the rest takes three times as long.
			if ev.ETA == nil || *ev.ETA < 3*70 {
				t.Fatalf("time left %v after a quarter of the work in 70 ms or more: %s", ev.ETA, l)
			}
			sawETA = true
		}
	}
	if !sawETA {
		t.Fatalf("no line after work was done: %s", lines)
	}
}

// logLines are the log lines written to buf.
func logLines(buf *testlog.Buffer) []string {
	return strings.Split(strings.TrimSpace(buf.String()), "\n")
}
