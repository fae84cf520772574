package sandbox

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/plagd/plagd/disguise"
)

// hostileFlags is what a child made to lie could send: too many flags,
// too many spans, spans outside the text, a detail of control characters
// and invalid UTF-8 far over any bound.
func hostileFlags() []disguise.Flag {
	var fs []disguise.Flag
	for i := range 50 {
		f := disguise.Flag{Kind: disguise.Kind(strings.Repeat("k\x1b", 100)), Count: -i,
			Detail: "white\x00text\xff\u202e" + strings.Repeat("x", 10000)}
		for j := range 5000 {
			f.Spans = append(f.Spans, disguise.Span{Start: j - 2, End: j - 2})
		}
		f.Spans = append(f.Spans, disguise.Span{Start: 5, End: 3})
		fs = append(fs, f)
	}
	return fs
}

// TestFlags_Bounded: whatever a child says about a file's flags, the pool
// returns a bounded, valid answer.
func TestFlags_Bounded(t *testing.T) {
	p := testPool(t, Config{Workers: 1, Timeout: 10 * time.Second})
	r, err := callResult(context.Background(), p, "flags")
	if err != nil {
		t.Fatal(err)
	}
	checkBounded(t, r.Flags, len(r.Text))
}

func TestBoundFlags(t *testing.T) {
	checkBounded(t, boundFlags(hostileFlags(), 12), 12)
	if got := boundFlags(nil, 10); got != nil {
		t.Fatalf("no flags became %v", got)
	}
	honest := []disguise.Flag{{Kind: disguise.HiddenText, Count: 7, Spans: []disguise.Span{{Start: 3, End: 3}}, Detail: "white text: 7 characters in 1 run"}}
	got := boundFlags(honest, 10)
	if len(got) != 1 || got[0].Kind != honest[0].Kind || got[0].Count != 7 || len(got[0].Spans) != 1 || got[0].Detail != honest[0].Detail {
		t.Fatalf("an honest flag changed: %+v", got)
	}
}

func checkBounded(t *testing.T, fs []disguise.Flag, textLen int) {
	t.Helper()
	if len(fs) == 0 || len(fs) > maxFlags {
		t.Fatalf("%d flags, want 1..%d", len(fs), maxFlags)
	}
	for _, f := range fs {
		if f.Count < 0 || len(f.Spans) > disguise.MaxSpans || len(f.Detail) > maxFlagDetail || len(f.Kind) > maxKindLen {
			t.Fatalf("flag out of bounds: count %d, %d spans, detail %d bytes, kind %d bytes", f.Count, len(f.Spans), len(f.Detail), len(f.Kind))
		}
		for _, s := range []string{string(f.Kind), f.Detail} {
			if !utf8.ValidString(s) || strings.ContainsAny(s, "\x00\x1b\u202e\n") {
				t.Fatalf("unsafe string %q", s)
			}
		}
		for _, s := range f.Spans {
			if s.Start < 0 || s.End < s.Start || s.End > textLen {
				t.Fatalf("span %+v outside a text of %d bytes", s, textLen)
			}
		}
	}
}
