// Package sandbox runs text extraction in child processes that can be
// killed: the outer wall around package extract against hostile files.
//
// Why a process and not a goroutine: Go cannot stop a goroutine from the
// outside, so a parser caught in a loop keeps its core and its memory after
// its caller has given up; and a runtime out-of-memory ("fatal error:
// runtime: out of memory", as when a PDF's xref declares two billion
// objects and the PDF library makes a slice of that size) is not a panic,
// no recover catches it, and it ends the whole process. Limits checked
// inside the parsers (package extract's budgets) stop the attacks someone
// thought of; a process boundary stops the rest, at the cost of one
// document.
//
// A Pool keeps up to Config.Workers long-lived children, each the same
// executable as the parent (os.Executable) started with an environment
// variable that makes Main serve requests instead of running the program.
// Requests and answers are length-prefixed gob frames on the child's
// standard input and output (the child moves its os.Stdout to its standard
// error first, so a library that prints cannot corrupt the stream). Each
// child limits itself before it serves:
//
//   - GOMAXPROCS 1 and at most Workers children: ten hostile uploads take
//     Workers cores, not ten;
//   - a Go memory limit (debug.SetMemoryLimit) a tenth under
//     Config.MemoryLimit, so the collector works hard before anything is
//     killed;
//   - RLIMIT_AS = the address space the Go runtime reserved at start-up
//     (measured by the child itself, about 1.2 GB on linux/amd64, almost
//     none of it resident) + MemoryLimit + a margin: a huge allocation
//     fails at once with a runtime out-of-memory that ends only the child;
//   - RLIMIT_CPU, reset before each document to the CPU time used so far
//     plus the document's timeout and a grace: should the parent fail to
//     kill it, the kernel stops it;
//   - it dies with its parent (Pdeathsig) and leads its own process group.
//
// The parent watches each busy child: it kills the whole process group
// (the child and the pdftoppm and tesseract it runs for OCR) when the
// document's time is up, when the caller's context ends, or when the
// child's resident memory (/proc/PID/statm) passes MemoryLimit, the second
// line should RLIMIT_AS not be in force. A dead child fails one document
// with a reason (extract.ErrTooComplex for memory, extract.ErrTimeout for
// time, extract.ErrCorrupt for any other crash) and the next document gets
// a fresh child. A child is also replaced after Config.Recycle documents,
// so that whatever a parser leaked or fragmented does not accumulate.
//
// Pool.Read answers with the text and the flags of what extraction left
// out as hidden (extract.Result); the parent cuts the flags to bounds
// (boundFlags: a few flags, disguise.MaxSpans spans inside the text, a
// short safe detail), since a child that read a hostile file is not
// trusted. Pool.Text is Read without the flags.
//
// Plain text needs no child (its decoding is one linear pass over the
// bytes), and with Config.Isolate false every document is extracted in the
// calling process, under the same concurrency cap: for debugging, and for
// platforms other than Linux, where the limits above do not exist.
package sandbox
