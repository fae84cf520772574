package sandboxtest

import (
	"bytes"
	"context"
	"time"

	"github.com/plagd/plagd/extract"
	"github.com/plagd/plagd/extract/sandbox"
)

// SpinMarker starts a file that the reader InstallSpinningReader installs
// never finishes reading. It looks like a PDF, so that it is not taken for
// plain text (which is read in-process) and goes to a child.
const SpinMarker = "%PDF-1.4\n% plagd sandbox test: spin forever\n"

// SpinPDF is a file that begins with SpinMarker.
func SpinPDF() []byte { return []byte(SpinMarker + "1 0 obj\n<< >>\nendobj\n%%EOF\n") }

// InstallSpinningReader replaces the sandbox's extraction in this
// executable (its children included) by one that spins on a CPU forever
// for files beginning with SpinMarker and reads every other file with
// extract.Read: a stand-in for a parser caught in a loop that no budget
// inside package extract catches. Call it in TestMain before sandbox.Main.
func InstallSpinningReader() {
	sandbox.Handle("extract", func(content []byte, filename, contentType string, opt extract.Options) (extract.Result, error) {
		if bytes.HasPrefix(content, []byte(SpinMarker)) {
			Spin()
		}
		return extract.Read(context.Background(), content, filename, contentType, opt)
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
