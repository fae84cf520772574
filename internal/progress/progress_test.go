package progress

import (
	"bytes"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// syncBuffer is a bytes.Buffer the logging goroutine and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.b.Bytes())
}

func (s *syncBuffer) lines() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Split(bytes.TrimSpace(s.b.Bytes()), []byte("\n"))
}

// TestLogSaysHowFarAndHowLong: the lines name the phase, the work done and
// in all, and the time left at the pace so far; none come after stop, and
// none says a time left before any work is done.
func TestLogSaysHowFarAndHowLong(t *testing.T) {
	every = 20 * time.Millisecond
	defer func() { every = 5 * time.Second }()
	var buf syncBuffer
	var done atomic.Int64
	stop := Log(zerolog.New(&buf), "texts", 400, &done)
	time.Sleep(70 * time.Millisecond)
	done.Store(100)
	// Until a line says so (however late the machine lets the ticker run).
	for deadline := time.Now().Add(10 * time.Second); !bytes.Contains(buf.bytes(), []byte(`"done":100`)); {
		if time.Now().After(deadline) {
			t.Fatalf("no line says the work done in 10 s: %s", buf.bytes())
		}
		time.Sleep(5 * time.Millisecond)
	}
	stop()
	n := len(buf.lines())
	time.Sleep(70 * time.Millisecond)
	lines := buf.lines()
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
		if err := json.Unmarshal(l, &ev); err != nil {
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
