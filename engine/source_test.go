package engine

import (
	"errors"
	"strings"
	"testing"

	"github.com/plagd/plagd/extract"
	"github.com/plagd/plagd/store"
)

func TestSourceTextIsStorable(t *testing.T) {
	st, _ := sourceText(1, "nul\x00 and \xff bytes\nkept lines", nil)
	if st.Failed != "" || st.Text != "nul and \uFFFD bytes\nkept lines" {
		t.Fatalf("sourceText text = %+v", st)
	}
	err := &extract.Error{Kind: extract.ErrCorrupt, Reason: "malformed hex string \x10 % \x1f0/\xa0\x00\r\n" + strings.Repeat("x", 5000)}
	st, _ = sourceText(2, "", err)
	if st.FailedKind != "corrupt" || len(st.Failed) > store.MaxReasonBytes || strings.ContainsAny(st.Failed, "\x00\x10\r\n") ||
		!strings.HasPrefix(st.Failed, "malformed hex string % 0/\uFFFD") {
		t.Fatalf("sourceText failure = %q (%s)", st.Failed, st.FailedKind)
	}
	// An error that is not the file's (a cancelled run) is the run's.
	if _, err := sourceText(3, "", errors.New("context canceled")); err == nil {
		t.Fatal("sourceText kept a run's error as a document's failure")
	}
}
