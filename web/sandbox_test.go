package web

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/plagd/plagd/extract/sandbox/sandboxtest"
	"github.com/plagd/plagd/internal/hostile"
	"github.com/plagd/plagd/store"
)

// TestCheck_HostileFilesFailAlone sends issue 14's hostile files to
// POST /api/v1/check as a teacher (the lowest role) through the real
// server: a PDF whose xref declares two billion objects (before the
// extraction sandbox it killed the whole test binary with "fatal error:
// runtime: out of memory") and a file whose reader spins forever. Each
// is answered 422 with a reason within the timeout plus a bound, the
// server answers other requests meanwhile, and once the answer is given no
// extraction process is left running.
func TestCheck_HostileFilesFailAlone(t *testing.T) {
	a := newRTArchive(t, true)
	cfg := a.cfg
	cfg.Extract.Timeout = 3 * time.Second
	cfg.Extract.Workers = 2
	cfg.Extract.MemoryLimit = 512 << 20
	srv, err := New(Options{Config: cfg, DB: store.NewDB(a.pool), Log: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.ErrorLevel)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	a.srv, a.base = srv, hs.URL
	if !srv.extract.Isolated() {
		t.Skip("extraction processes are not available on this platform")
	}
	tok := a.token("teacher")
	before := childPIDs(t)

	upload := func(name string, content []byte) rtResp {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		w, _ := mw.CreateFormFile("file", name)
		w.Write(content)
		mw.Close()
		return a.api(tok, "POST", "/api/v1/check", mw.FormDataContentType(), buf.Bytes())
	}
	for _, c := range []struct {
		name    string
		content []byte
		reason  string
	}{
		{"absurd-xref.pdf", hostile.AbsurdXrefPDF(), "absurd-xref.pdf: no text could be read from it"},
		{"spin.pdf", sandboxtest.SpinPDF(), "took longer than 3s (extract.timeout"},
	} {
		// Another teacher's check of pasted text is answered while the
		// hostile file is being read.
		var wg sync.WaitGroup
		var other rtResp
		var otherTook time.Duration
		wg.Go(func() {
			time.Sleep(200 * time.Millisecond)
			start := time.Now()
			other = a.api(tok, "POST", "/api/v1/check", "application/json",
				[]byte(`{"text": `+strconv.Quote(a.essayOwn)+`}`))
			otherTook = time.Since(start)
		})
		start := time.Now()
		r := upload(c.name, c.content).must(t, http.StatusUnprocessableEntity, `"unprocessable"`, c.reason)
		took := time.Since(start)
		wg.Wait()
		t.Logf("%s: %s in %s", c.name, r.body, took.Round(time.Millisecond))
		if took > cfg.Extract.Timeout+5*time.Second {
			t.Errorf("%s: answered after %s", c.name, took)
		}
		if other.status != http.StatusOK || otherTook > 10*time.Second {
			t.Errorf("%s: a check made meanwhile got %d after %s", c.name, other.status, otherTook)
		}
		// Once the answer is given, no extraction process works on: a
		// child killed for time is gone, one that refused the file idles.
		if busy := burningChildren(t, before, 500*time.Millisecond); len(busy) > 0 {
			t.Errorf("%s: child processes still burning CPU after the answer: %v", c.name, busy)
		}
	}
	st := srv.extract.Stats()
	// The absurd PDF is refused by extract's own checks inside a child that
	// lives on, or kills that child: either wall may stop it. The spinning
	// file can only be stopped by killing its child.
	if st.Killed["timeout"] != 1 {
		t.Errorf("stats %+v: want the spinning child killed for time", st)
	}
	// The server still extracts files.
	upload("plain.txt", []byte(a.essayOwn)).must(t, http.StatusOK)
}

// childPIDs are this process's children now (from /proc).
func childPIDs(t *testing.T) map[int]bool {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	out := map[int]bool{}
	self := strconv.Itoa(os.Getpid())
	for _, e := range ents {
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if f := strings.Fields(s[i+1:]); len(f) > 2 && f[1] == self {
			pid, _ := strconv.Atoi(e.Name())
			out[pid] = true
		}
	}
	return out
}

// burningChildren are the children started since before that used more
// than a tenth of the window in CPU time during it.
func burningChildren(t *testing.T, before map[int]bool, window time.Duration) []int {
	t.Helper()
	start := map[int]int64{}
	for _, pid := range newChildren(t, before) {
		start[pid] = cpuTicks(pid)
	}
	time.Sleep(window)
	var out []int
	for pid, t0 := range start {
		if t1 := cpuTicks(pid); t1 >= 0 && time.Duration(t1-t0)*10*time.Millisecond > window/10 {
			out = append(out, pid)
		}
	}
	return out
}

// cpuTicks is utime+stime of pid in clock ticks (100 per second on Linux),
// or -1 when the process is gone.
func cpuTicks(pid int) int64 {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	s := string(stat)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return -1
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	k, _ := strconv.ParseInt(f[12], 10, 64)
	return u + k
}

func newChildren(t *testing.T, before map[int]bool) []int {
	var out []int
	for pid := range childPIDs(t) {
		if !before[pid] {
			out = append(out, pid)
		}
	}
	return out
}
