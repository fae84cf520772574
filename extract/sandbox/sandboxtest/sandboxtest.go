// Package sandboxtest makes the hostile files and the misbehaving reader
// that tests of the extraction sandbox need, in the packages that start a
// sandbox.Pool (sandbox itself, daemon, web). The files are generated, not
// committed: each is a few hundred bytes that costs its reader gigabytes or
// forever.
package sandboxtest

import (
	"bytes"
	"fmt"
	"time"

	"github.com/plagd/plagd/extract"
	"github.com/plagd/plagd/extract/sandbox"
)

// AbsurdXrefPDF is a PDF whose cross-reference table starts its only
// subsection at object 2,000,000,000: github.com/ledongthuc/pdf grows its
// table to that length (ensureXrefLen), tens of gigabytes, and Go dies with
// "fatal error: runtime: out of memory" (issue 14, item 0).
func AbsurdXrefPDF() []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	off := b.Len()
	b.WriteString("1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n")
	off2 := b.Len()
	b.WriteString("2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n")
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 3\n0000000000 65535 f \n%010d 00000 n \n%010d 00000 n \n", off, off2)
	fmt.Fprintf(&b, "2000000000 1\n%010d 00000 n \n", off)
	fmt.Fprintf(&b, "trailer\n<< /Size 2000000001 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", xref)
	return b.Bytes()
}

// SelfReferencePDF is a PDF whose page tree lists itself among its kids and
// whose page draws a form XObject that draws itself (issue 14, item 1).
func SelfReferencePDF() []byte {
	form := "BT /F1 12 Tf 72 700 Td (again) Tj ET /X1 Do"
	return buildPDF([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 2 0 R 3 0 R] /Count 3 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R " +
			"/Resources << /Font << /F1 6 0 R >> /XObject << /X1 4 0 R >> >> >>",
		fmt.Sprintf("<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] "+
			"/Resources << /Font << /F1 6 0 R >> /XObject << /X1 4 0 R >> >> /Length %d >>\nstream\n%s\nendstream", len(form), form),
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len("/X1 Do"), "/X1 Do"),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	})
}

// buildPDF writes objects 1..n with a correct cross-reference table.
func buildPDF(objs []string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// SpinMarker starts a file that the reader InstallSpinningReader installs
// never finishes reading. It looks like a PDF, so that it is not taken for
// plain text (which is read in-process) and goes to a child.
const SpinMarker = "%PDF-1.4\n% plagd sandbox test: spin forever\n"

// SpinPDF is a file that begins with SpinMarker.
func SpinPDF() []byte { return []byte(SpinMarker + "1 0 obj\n<< >>\nendobj\n%%EOF\n") }

// InstallSpinningReader replaces the sandbox's extraction in this
// executable (its children included) by one that spins on a CPU forever
// for files beginning with SpinMarker and reads every other file with
// extract.Text: a stand-in for a parser caught in a loop that no budget
// inside package extract catches. Call it in TestMain before sandbox.Main.
func InstallSpinningReader() {
	sandbox.Handle("extract", func(content []byte, filename, contentType string, opt extract.Options) (string, error) {
		if bytes.HasPrefix(content, []byte(SpinMarker)) {
			Spin()
		}
		return extract.Text(content, filename, contentType, opt)
	})
}

// Spin burns a CPU until the process is killed.
func Spin() {
	x := uint64(time.Now().UnixNano())
	for {
		x = x*6364136223846793005 + 1442695040888963407
		if x == 0 {
			panic("unreachable")
		}
	}
}
