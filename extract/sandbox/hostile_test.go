package sandbox_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/plagd/plagd/extract"
	"github.com/plagd/plagd/extract/sandbox"
	"github.com/plagd/plagd/internal/hostile"
)

// TestHostilePDFsFailAlone reads issue 14's PDFs through a real Pool: the
// one whose xref declares two billion objects (the PDF library makes a
// slice that size and the Go runtime dies of it, which no recover
// catches) and the one whose page tree and form XObject contain
// themselves. Each must fail with a reason while this process lives on,
// leave no child behind, and the pool must read a good PDF afterwards.
// Which wall stops a file (a budget inside package extract, or the child's
// limits) is not asserted.
func TestHostilePDFsFailAlone(t *testing.T) {
	const timeout = 5 * time.Second
	p := sandbox.New(sandbox.Config{Workers: 1, MemoryLimit: 512 << 20, Timeout: timeout, Isolate: true},
		zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.WarnLevel))
	defer p.Close()
	if !p.Isolated() {
		t.Skip("child processes are not available on this platform")
	}
	good, err := os.ReadFile("../testdata/en_academic.lo.pdf")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		pdf  []byte
	}{
		{"absurd-xref.pdf", hostile.AbsurdXrefPDF()},
		{"self-reference.pdf", hostile.SelfListingPageTreePDF()},
	} {
		start := time.Now()
		text, err := p.Text(context.Background(), c.pdf, c.name, "application/pdf", extract.Options{MaxBytes: 200 << 20})
		var xe *extract.Error
		if !errors.As(err, &xe) || xe.Reason == "" {
			t.Errorf("%s: got text %q, error %v; want a failure with a reason", c.name, text, err)
		} else {
			t.Logf("%s: %s: %s (%s)", c.name, xe.Kind, xe.Reason, time.Since(start).Round(time.Millisecond))
		}
		if took := time.Since(start); took > timeout+5*time.Second {
			t.Errorf("%s: answered after %s", c.name, took)
		}
		if got, err := p.Text(context.Background(), good, "good.pdf", "", extract.Options{}); err != nil || len(got) < 1000 {
			t.Fatalf("after %s a good PDF gave %d bytes, %v", c.name, len(got), err)
		}
	}
	p.Close()
	if n := sandbox.ChildrenLeft(t); n != 0 {
		t.Fatalf("%d children left after Close", n)
	}
}
