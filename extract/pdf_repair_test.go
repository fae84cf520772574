package extract

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"strings"
	"testing"

	"github.com/plagd/plagd/internal/testpdf"
)

// TestPDF_CutShortIsRead: a PDF that lost its last tenth (an upload cut
// short: no cross-reference table, no trailer, a stream cut in the middle)
// is read up to the cut, as MuPDF reads it, whether its catalog is a plain
// object or sits in a compressed object stream.
func TestPDF_CutShortIsRead(t *testing.T) {
	var lines []string
	for i := range 200 {
		lines = append(lines, fmt.Sprintf("line %d of the thesis examined by the committee", i))
	}
	whole := testpdf.Lines(lines)
	for name, file := range map[string][]byte{"plain": whole, "object stream": catalogInStream(t, whole)} {
		t.Run(name, func(t *testing.T) {
			cut := file[:len(file)*9/10]
			text, err := Text(cut, "x.pdf", "", Options{})
			if err != nil {
				t.Fatalf("cut at 90%%: %v", err)
			}
			for _, want := range []string{"line 0 of the thesis", "line 100 of the thesis"} {
				if !strings.Contains(text, want) {
					t.Errorf("text lacks %q: %.200q", want, text)
				}
			}
		})
	}
}

// catalogInStream rewrites a testpdf file so that its catalog (object 1)
// lives in a compressed object stream, as PDF 1.5 writers put it.
func catalogInStream(t *testing.T, pdf []byte) []byte {
	t.Helper()
	const catalog = "1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
	if !bytes.Contains(pdf, []byte(catalog)) {
		t.Fatal("testpdf's catalog changed")
	}
	body := "1 0 << /Type /Catalog /Pages 2 0 R >>"
	first := len("1 0 ")
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write([]byte(body))
	w.Close()
	stm := fmt.Sprintf("99 0 obj\n<< /Type /ObjStm /N 1 /First %d /Filter /FlateDecode /Length %d >>\nstream\n", first, z.Len())
	out := bytes.Replace(pdf, []byte(catalog), append(append([]byte(stm), z.Bytes()...), "\nendstream\nendobj\n"...), 1)
	return out
}
