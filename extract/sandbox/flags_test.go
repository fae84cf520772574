package sandbox

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/plagd/plagd/disguise"
	"github.com/plagd/plagd/extract"
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

// TestRead_HiddenTextThroughAChild: the flags of a document read in a
// child come back with its text.
func TestRead_HiddenTextThroughAChild(t *testing.T) {
	p := testPool(t, Config{Workers: 1, Timeout: 30 * time.Second})
	r, err := p.Read(context.Background(), hiddenDOCX(t), "a.docx", "", extract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Text != "seen text" || len(r.Flags) != 1 || r.Flags[0].Kind != disguise.HiddenText || r.Flags[0].Count != 6 ||
		len(r.Flags[0].Spans) != 1 || r.Flags[0].Spans[0] != (disguise.Span{Start: 5, End: 5}) {
		t.Fatalf("got %q %+v", r.Text, r.Flags)
	}
	if st := p.Stats(); st.Started == 0 {
		t.Fatal("no child was started: the document was read in-process")
	}
}

// hiddenDOCX is a DOCX reading "seen text" with a hidden run of six
// letters after "seen ".
func hiddenDOCX(t *testing.T) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("word/document.xml")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(w, `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p>`+
		`<w:r><w:t xml:space="preserve">seen </w:t></w:r><w:r><w:rPr><w:vanish/></w:rPr><w:t>HIDDEN</w:t></w:r><w:r><w:t>text</w:t></w:r>`+
		`</w:p></w:body></w:document>`)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
