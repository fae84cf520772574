package invindex

import (
	"os"
	"strings"
	"testing"
)

// TestFormatDocumented: the format essay of doc.go names every magic of
// the file formats and every flag the header stores, so the essay cannot
// fall behind format.go and deltafile.go again.
func TestFormatDocumented(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, magic := range []string{magicSlice, magicTable, magicDelta, trailerMagic} {
		if !strings.Contains(string(doc), `"`+magic+`"`) {
			t.Errorf("doc.go does not name the magic %q", magic)
		}
	}
	for what, bits := range map[string]string{"Params.StripDiacritics": "bit 0", "Params.ExtraWindowWords": "bits 8-15"} {
		if !strings.Contains(string(doc), bits+" =\n//\t           "+what) && !strings.Contains(string(doc), bits+" = "+what) {
			t.Errorf("doc.go does not say that the flags keep %s in %s", what, bits)
		}
	}
	if flagStrip != 1<<0 || flagExtraShift != 8 || flagExtraMask != 0xff<<8 {
		t.Errorf("the flag bits changed (strip %#x, extra shift %d): update doc.go and this test", flagStrip, flagExtraShift)
	}
}
