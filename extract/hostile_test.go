package extract

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/plagd/plagd/internal/hostile"
	"github.com/plagd/plagd/internal/testseed"
)

// The files of issue 14: each must fail with a clear kind and a clean,
// bounded reason, in bounded time and memory, and leave nothing running.

// maxHostileHeap is the peak heap a hostile file may cost (the issue's
// files took 1.2 to 5.5 GB before).
const maxHostileHeap = 512 << 20

// peakHeap runs f while sampling the heap in use; it returns the peak.
func peakHeap(f func()) uint64 {
	runtime.GC()
	var peak atomic.Uint64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	f()
	close(done)
	<-sampled
	return peak.Load()
}

// checkReason fails unless err is an *Error of one of kinds whose reason
// is one bounded line of valid UTF-8.
func checkReason(t *testing.T, err error, kinds ...Kind) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got %T %v, want an *Error", err, err)
	}
	if len(kinds) > 0 {
		ok := false
		for _, k := range kinds {
			ok = ok || e.Kind == k
		}
		if !ok {
			t.Errorf("kind %s (%s), want one of %v", e.Kind, e.Reason, kinds)
		}
	}
	if e.Reason == "" || !utf8.ValidString(e.Reason) || len(e.Reason) > maxReason || strings.ContainsAny(e.Reason, "\x00\n\r") {
		t.Errorf("reason %q is not one clean line of at most %d bytes", e.Reason, maxReason)
	}
	for _, r := range e.Reason {
		if r < 0x20 || (r >= 0x7f && r < 0xa0) {
			t.Errorf("reason %q holds control character %U", e.Reason, r)
		}
	}
	return e
}

func TestHostileItems(t *testing.T) {
	cases := []struct {
		name  string
		file  func() []byte
		kinds []Kind
		want  string // in the reason
	}{
		{"item0 absurd xref", hostile.AbsurdXrefPDF, []Kind{ErrTooComplex}, "cross-reference"},
		{"item1 self-listing page tree", hostile.SelfListingPageTreePDF, []Kind{ErrTooComplex}, "cycle"},
		{"item1b bad hex", hostile.BadHexPDF, []Kind{ErrCorrupt}, "malformed hex string"},
		{"item2 nested forms 12^8", func() []byte { return hostile.NestedXObjectsPDF(8, 12) }, []Kind{ErrTooComplex}, "max_xobject_calls"},
		{"item3 shared stream", func() []byte { return hostile.SharedStreamPDF(60, 510000) }, []Kind{ErrTooComplex}, "max_glyphs"},
		{"item4 1 GiB comment", func() []byte { return hostile.HugeCommentDOCX(1 << 30) }, []Kind{ErrTooComplex}, "max_xml_token"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := c.file()
			before := runtime.NumGoroutine()
			var err error
			start := time.Now()
			peak := peakHeap(func() { _, err = Text(file, "", "", Options{Timeout: 2 * time.Minute}) })
			took := time.Since(start)
			e := checkReason(t, err, c.kinds...)
			if !strings.Contains(e.Reason, c.want) {
				t.Errorf("reason %q does not mention %q", e.Reason, c.want)
			}
			t.Logf("%d bytes: %s in %s, peak heap %d MB", len(file), e.Reason, took.Round(time.Millisecond), peak>>20)
			if took > time.Minute {
				t.Errorf("took %s", took)
			}
			if peak > maxHostileHeap {
				t.Errorf("peak heap %d MB, more than %d MB", peak>>20, maxHostileHeap>>20)
			}
			waitGoroutines(t, before)
		})
	}
}

// TestBadHexReasonIsClean: the library's error quotes raw bytes of the
// file; the reason stored must not (issue 14 item 1b).
func TestBadHexReasonIsClean(t *testing.T) {
	_, err := Text(hostile.BadHexPDF(), "bad.pdf", "", Options{})
	e := checkReason(t, err, ErrCorrupt)
	for _, bad := range []string{"\x10", "\x1f", "\xa0", "\x00"} {
		if strings.Contains(e.Reason, bad) {
			t.Errorf("reason %q holds raw byte %q", e.Reason, bad)
		}
	}
}

// waitGoroutines waits until no more goroutines run than before.
func waitGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines still running after the answer, %d before", runtime.NumGoroutine(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestTimeoutStopsTheParser: when the timeout answers, the parser itself
// stops: no goroutine left, no CPU burning (issue 14 items 1 and 2: the
// abandoned parsers once ran for 15 minutes). The Go reader stops within
// milliseconds; with PDFium the files fail in the preflight before
// (TestHostileItems), and TestPDFiumTimeout covers PDFium.
func TestTimeoutStopsTheParser(t *testing.T) {
	files := map[string][]byte{
		"nested": hostile.NestedXObjectsPDF(8, 12),
		"shared": hostile.SharedStreamPDF(60, 510000),
	}
	for name, file := range files {
		t.Run(name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			start := time.Now()
			_, err := Text(file, "", "", Options{Timeout: 100 * time.Millisecond, PDFEngine: PDFEngineGo})
			if !errors.Is(err, ErrTimeout) {
				t.Fatalf("got %v, want a timeout", err)
			}
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("the answer took %s", took)
			}
			waitGoroutines(t, before)
			c0 := cpuTime()
			time.Sleep(300 * time.Millisecond)
			if burnt := cpuTime() - c0; burnt > 150*time.Millisecond {
				t.Errorf("%s of CPU burnt in 300ms after the answer", burnt)
			}
		})
	}
}

// TestPDFiumTimeout: a document PDFium takes seconds over (eight pages of
// 400,000 glyphs each, within every limit) answers at its timeout, and
// its reading stops at the next call into PDFium: a page at most.
func TestPDFiumTimeout(t *testing.T) {
	file := hostile.SharedStreamPDF(8, 400000)
	before := runtime.NumGoroutine()
	start := time.Now()
	_, err := Text(file, "", "", Options{Timeout: 100 * time.Millisecond})
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("got %v, want a timeout", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the answer took %s", took)
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if runtime.NumGoroutine() > before {
		t.Errorf("the reading still runs %s after the answer", time.Since(start).Round(time.Millisecond))
	}
	t.Logf("reading stopped %s after the start", time.Since(start).Round(time.Millisecond))
}

// TestBrokenXrefStillChecked: a file whose cross-reference table is wrong
// (the Go reader cannot open it; PDFium rebuilds it and draws on) gets
// the structural checks on a rebuilt table: forms drawing each other
// 12^8 times, or in a cycle, fail at once as too_complex instead of
// filling PDFium's memory for seconds (found by TestHostileCorpus, seed
// 6219778357101766174).
func TestBrokenXrefStillChecked(t *testing.T) {
	for name, file := range map[string][]byte{
		"fan-out": hostile.NestedXObjectsPDF(8, 12),
		"cycle":   bytes.Replace(hostile.NestedXObjectsPDF(3, 2), []byte("/X 8 0 R"), []byte("/X 6 0 R"), 1), // 6 draws 7 draws 6,
	} {
		t.Run(name, func(t *testing.T) {
			i := bytes.LastIndex(file, []byte("startxref\n"))
			broken := append(bytes.Clone(file[:i]), "startxref\n3\n%%EOF\n"...) // points nowhere
			start := time.Now()
			_, err := Text(broken, "", "", Options{Timeout: time.Minute})
			if e := checkReason(t, err, ErrTooComplex); !strings.Contains(e.Reason, "max_xobject_calls") {
				t.Errorf("reason %q", e.Reason)
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("took %s", took)
			}
		})
	}
}

// TestLimitsCountEachReading: the preflight, PDFium and the Go reader
// each count a document's pages and glyphs against its limits; a document
// within them passes though it is counted twice.
func TestLimitsCountEachReading(t *testing.T) {
	file := hostile.SharedStreamPDF(6, 900) // 6 pages, 5,400 glyphs
	if _, err := Text(file, "", "", Options{Limits: Limits{MaxPages: 10, MaxGlyphs: 8000}}); err != nil {
		t.Errorf("6 pages and 5,400 glyphs within limits of 10 and 8,000: %v", err)
	}
	_, err := Text(file, "", "", Options{Limits: Limits{MaxPages: 5}})
	if e := checkReason(t, err, ErrTooComplex); !strings.Contains(e.Reason, "max_pages") {
		t.Errorf("6 pages over a limit of 5: %q", e.Reason)
	}
}

// TestTextContextCancel: cancelling the context stops extraction.
func TestTextContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := TextContext(ctx, hostile.NestedXObjectsPDF(8, 12), "", "", Options{PDFEngine: PDFEngineGo})
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("got %v, want ErrTimeout (cancelled)", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("stopped after %s", took)
	}
}

// TestLimitsAreConfigurable: each limit fails with its key, and raising
// it lets the file through.
func TestLimitsAreConfigurable(t *testing.T) {
	forms := hostile.NestedXObjectsPDF(4, 4) // 1+4+16+64 = 85 form calls
	_, err := Text(forms, "", "", Options{Limits: Limits{MaxXObjectCalls: 50}})
	if e := checkReason(t, err, ErrTooComplex); !strings.Contains(e.Reason, "extract.limits.max_xobject_calls") {
		t.Errorf("reason %q", e.Reason)
	}
	if _, err := Text(forms, "", "", Options{Limits: Limits{MaxXObjectCalls: 100}}); err != nil {
		t.Errorf("within the limit: %v", err)
	}
	pages := hostile.SharedStreamPDF(5, 1000)
	for _, c := range []struct {
		lim Limits
		key string
	}{
		{Limits{MaxPages: 4}, "max_pages"},
		{Limits{MaxGlyphs: 4000}, "max_glyphs"},
		{Limits{MaxStreamBytes: 4000}, "max_stream_bytes"},
		{Limits{MaxTextBytes: 3000}, "max_text_bytes"},
	} {
		_, err := Text(pages, "", "", Options{Limits: c.lim})
		if e := checkReason(t, err, ErrTooComplex); !strings.Contains(e.Reason, c.key) {
			t.Errorf("%+v: reason %q does not name %s", c.lim, e.Reason, c.key)
		}
	}
	if _, err := Text(pages, "", "", Options{}); err != nil {
		t.Errorf("defaults: %v", err)
	}
	docx := hostile.HugeCommentDOCX(4096)
	_, err = Text(docx, "", "", Options{Limits: Limits{MaxXMLToken: 1000}})
	if e := checkReason(t, err, ErrTooComplex); !strings.Contains(e.Reason, "max_xml_token") {
		t.Errorf("reason %q", e.Reason)
	}
	if text, err := Text(docx, "", "", Options{}); err != nil || !strings.Contains(text, "After the comment.") {
		t.Errorf("defaults: %q, %v", text, err)
	}
}

// TestRefsReadTheLibrary: the reflect helpers of pdf_refs.go still find
// the library's fields (they fail quietly otherwise, and cycles would go
// unnoticed).
func TestRefsReadTheLibrary(t *testing.T) {
	r, err := openPDF(hostile.SelfListingPageTreePDF(), newBudget(context.Background(), Limits{}))
	if err != nil {
		t.Fatal(err)
	}
	kids := r.Trailer().Key("Root").Key("Pages").Key("Kids")
	var got []objRef
	for i := 0; i < kids.Len(); i++ {
		ref, ok := rawRef(kids, i)
		if !ok {
			t.Fatalf("kid %d: no reference", i)
		}
		got = append(got, ref)
	}
	if len(got) != 3 || got[0] != (objRef{2, 0}) || got[1] != (objRef{4, 0}) {
		t.Errorf("kids %v", got)
	}
	if ref, ok := refOf(kids.Index(1)); !ok || ref != (objRef{4, 0}) {
		t.Errorf("refOf = %v %v", ref, ok)
	}
	if ref, ok := rawKeyRef(kids.Index(1).Key("Resources").Key("XObject"), "X"); !ok || ref != (objRef{6, 0}) {
		t.Errorf("rawKeyRef = %v %v", ref, ok)
	}
}

// TestXMLGuard: tokens are measured by kind, and the bytes pass unchanged.
func TestXMLGuard(t *testing.T) {
	for _, c := range []struct {
		xml string
		ok  bool
	}{
		{`<a b="x>y">` + strings.Repeat("t", 50) + `</a>`, true},
		{`<a>` + strings.Repeat("t", 101) + `</a>`, false},
		{`<!--` + strings.Repeat(">", 101) + `-->`, false},
		{`<!--` + strings.Repeat("-", 90) + `--><a/>`, true},
		{`<?pi ` + strings.Repeat("x", 100) + `?>`, false},
		{`<![CDATA[` + strings.Repeat("]>", 60) + `]]>`, false},
		{`<a b="` + strings.Repeat("x", 100) + `"/>`, false},
		{`<!DOCTYPE a [<!ENTITY e "v">]><a>` + strings.Repeat("t ", 40) + `</a>`, true},
	} {
		bud := newBudget(context.Background(), Limits{MaxXMLToken: 100})
		g := newXMLGuard(strings.NewReader(c.xml), bud)
		var out strings.Builder
		var stop any
		func() {
			defer func() { stop = recover() }()
			buf := make([]byte, 7)
			for {
				n, err := g.Read(buf)
				out.Write(buf[:n])
				if err != nil {
					return
				}
			}
		}()
		if ok := stop == nil; ok != c.ok {
			t.Errorf("%.40q: passed %v, want %v (%v)", c.xml, ok, c.ok, stop)
		}
		if c.ok && out.String() != c.xml {
			t.Errorf("bytes changed")
		}
	}
}

// TestHostileCorpus runs a few thousand malformed PDF, DOCX and ODT
// files, mutations of valid ones, through extraction: every one yields
// text or an *Error with a kind and a clean reason, none panics, none
// exceeds its time budget. The fixtures of testdata join the bases.
func TestHostileCorpus(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	bases := hostile.Bases()
	for _, f := range []string{"en_academic.lo.pdf", "cs_proza.lo.docx", "de_bericht.lo.odt", "en_methods.2col.pdf"} {
		if b, err := os.ReadFile(filepath.Join("testdata", f)); err == nil {
			bases = append(bases, hostile.Mutation{Name: f, Data: b})
		}
	}
	seed := int64(testseed.Seed(t))
	start := time.Now()
	kinds := map[string]int{}
	var slowest time.Duration
	var slowName string
	for _, m := range hostile.Mutations(seed, n, bases...) {
		t0 := time.Now()
		text, err := Text(m.Data, "", "", Options{Timeout: 20 * time.Second, Limits: Limits{MaxXObjectCalls: 20000}})
		took := time.Since(t0)
		if took > slowest {
			slowest, slowName = took, m.Name
		}
		if err == nil {
			if !utf8.ValidString(text) {
				t.Errorf("%s: invalid UTF-8 text", m.Name)
			}
			kinds["ok"]++
			continue
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: %T %v", m.Name, err, err)
			continue
		}
		if e.Kind == ErrTimeout {
			t.Errorf("%s: exceeded its time budget: %v", m.Name, err)
		}
		kinds[e.Kind.String()]++
		if e.Reason == "" || !utf8.ValidString(e.Reason) || len(e.Reason) > maxReason || strings.ContainsAny(e.Reason, "\x00\n\r") {
			t.Errorf("%s: reason %q", m.Name, e.Reason)
		}
	}
	t.Logf("%d files in %s (slowest %s: %s): %v", n, time.Since(start).Round(time.Millisecond), slowName, slowest.Round(time.Millisecond), kinds)
}

// FuzzText: any bytes yield text or an *Error; seeds are the issue's
// files in small sizes (cycles, fan-out, absurd counts).
func FuzzText(f *testing.F) {
	f.Add(hostile.AbsurdXrefPDF())
	f.Add(hostile.SelfListingPageTreePDF())
	f.Add(hostile.BadHexPDF())
	f.Add(hostile.NestedXObjectsPDF(4, 3))
	f.Add(hostile.SharedStreamPDF(3, 500))
	f.Add(hostile.XrefStreamPDF("seed"))
	f.Add(hostile.HugeCommentDOCX(1000))
	f.Add(hostile.SimpleODT("seed"))
	for _, m := range hostile.Mutations(1, 20) {
		f.Add(m.Data)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		text, err := Text(b, "", "", Options{Timeout: 10 * time.Second, Limits: Limits{MaxXObjectCalls: 5000, MaxGlyphs: 200000}})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%T %v", err, err)
			}
			if e.Kind == ErrTimeout {
				t.Fatalf("timeout: %v", err)
			}
			if !utf8.ValidString(e.Reason) || len(e.Reason) > maxReason {
				t.Fatalf("reason %q", e.Reason)
			}
			return
		}
		if !utf8.ValidString(text) {
			t.Fatal("invalid UTF-8")
		}
	})
}
