package extract

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// This file runs PDFium, the PDF engine of the Chromium browser, to read
// PDFs. PDFium comes compiled to WebAssembly inside the go-pdfium module
// and runs in plagd's own process under the wazero runtime: no cgo, no
// shared library to install. An engine instance reads one document at a
// time; its memory is bounded (pdfiumMaxMemory), mapped outside the Go
// heap (pdfium_memory_linux.go) and returned when the instance is dropped
// (pdfiumSession.close says when). A document whose context ends
// (its timeout, a cancelled run) stops at the next call into PDFium, that
// is after the page or character at hand; one call that never returns is
// stopped only by the extraction process's end (extract/sandbox kills it).
// wazero could stop a call from outside (WithCloseOnContextDone), but it
// starts a goroutine for every call to watch for that, which made reading
// ten times slower.
//
// PDFium reads what plagd's Go reader (ledongthuc/pdf and the content
// interpreter of pdf_content.go) cannot: damaged cross-reference tables it
// rebuilds, fonts without a Unicode map whose glyph names or built-in
// encodings say the letters, CID fonts with standard CMaps, Type 3 fonts,
// and all encryption a viewer opens without a password. plagd takes the
// position, size and Unicode text of every character from it and rebuilds
// lines, columns and paragraphs with its own layout code (pdf_layout.go),
// which joins hyphenated words and drops running headers, as before.
// docs/EXTRACTION.md gives the measurements behind the choice.

// PDFEngine names the reader of PDF files.
type PDFEngine string

const (
	// PDFEnginePDFium reads PDFs with PDFium (the default); files PDFium
	// cannot open at all are tried with the Go reader.
	PDFEnginePDFium PDFEngine = "pdfium"
	// PDFEngineGo reads PDFs with ledongthuc/pdf and plagd's own content
	// interpreter only (the engine of plagd before PDFium).
	PDFEngineGo PDFEngine = "go"
)

// ParsePDFEngine checks a configured engine name; "" is the default.
func ParsePDFEngine(s string) (PDFEngine, error) {
	switch PDFEngine(s) {
	case "", PDFEnginePDFium:
		return PDFEnginePDFium, nil
	case PDFEngineGo:
		return PDFEngineGo, nil
	}
	return "", fmt.Errorf("unknown PDF engine %q: use %q or %q", s, PDFEnginePDFium, PDFEngineGo)
}

// pdfiumMaxMemory bounds the memory of one PDFium instance, that is of one
// document: PDFium's allocations fail beyond it, and what could not be read
// fails (a page, or the document as damaged). Real theses need a few tens
// of megabytes.
const pdfiumMaxMemory = 1 << 30

// PDFiumCacheEnv names the environment variable that sets the folder where
// the compiled PDFium engine is kept between processes. Compiling the
// WebAssembly module to machine code takes about 5 s; loading it from the
// cache about 0.25 s. The default is plagd/pdfium under the user's cache
// folder ($XDG_CACHE_HOME or ~/.cache); "off" compiles in every process.
const PDFiumCacheEnv = "PLAGD_PDFIUM_CACHE"

// pdfiumRuntime is the process's compiled PDFium, made on first use.
var pdfiumRuntime struct {
	once sync.Once
	pool pdfium.Pool
	err  error
}

// pdfiumPool returns the process's pool of PDFium instances, compiling the
// module the first time.
func pdfiumPool() (pdfium.Pool, error) {
	r := &pdfiumRuntime
	r.once.Do(func() {
		cfg := wazero.NewRuntimeConfig().
			// The module lowers setjmp/longjmp to WebAssembly exceptions.
			WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
			WithMemoryLimitPages(pdfiumMaxMemory / 65536)
		if dir := pdfiumCacheDir(); dir != "" {
			if cache, err := wazero.NewCompilationCacheWithDir(dir); err == nil {
				cfg = cfg.WithCompilationCache(cache)
			}
		}
		r.pool, r.err = webassembly.Init(webassembly.Config{
			// Instances take their memory from pdfiumMemory.
			Context:      experimental.WithMemoryAllocator(context.Background(), pdfiumMemory()),
			MinIdle:      0,
			MaxIdle:      runtime.GOMAXPROCS(0),
			ReuseWorkers: true,
			MaxTotal:     4 * runtime.GOMAXPROCS(0),
			// No file system: PDFium reads the document from memory only.
			FSConfig:      wazero.NewFSConfig(),
			RuntimeConfig: cfg,
			// The sandbox's children talk to their parent over stdout.
			Stdout: io.Discard,
			Stderr: io.Discard,
		})
		if r.err != nil {
			r.err = fmt.Errorf("starting the PDFium engine: %w", r.err)
		}
	})
	return r.pool, r.err
}

// pdfiumCacheDir is the folder of compiled engines (PDFiumCacheEnv), or ""
// for none.
func pdfiumCacheDir() string {
	dir := os.Getenv(PDFiumCacheEnv)
	switch {
	case dir == "off":
		return ""
	case dir == "":
		base, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(base, "plagd", "pdfium")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return ""
	}
	return dir
}

// pdfiumSession is one document's PDFium instance.
type pdfiumSession struct {
	inst pdfium.Pdfium
	*pdfiumCalls
	doc, buf uint64 // the open document and the guest copy of its file
}

// An instance serves several documents one after the other: starting one
// costs about 25 ms (its memory image is copied and PDFium initialised),
// as much as reading a short document. It is dropped after
// pdfiumMaxUses documents, when its memory has grown past
// pdfiumKeepMemory (WebAssembly memory never shrinks), and after any
// document whose reading did not end cleanly.
const (
	pdfiumMaxUses    = 200
	pdfiumKeepMemory = 256 << 20
)

// pdfiumUses counts the documents each live instance has read, by its
// memory (which stays the same object for the instance's life).
var pdfiumUses = struct {
	sync.Mutex
	n map[api.Memory]int
}{n: map[api.Memory]int{}}

// newPDFiumSession takes an instance for one document.
func newPDFiumSession(ctx context.Context) (*pdfiumSession, error) {
	pool, err := pdfiumPool()
	if err != nil {
		return nil, err
	}
	wait, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	inst, err := pool.GetInstanceWithContext(wait)
	if err != nil {
		return nil, fmt.Errorf("no PDFium instance: %w", err)
	}
	calls, err := bindPDFium(inst)
	if err != nil {
		_ = inst.Kill()
		return nil, err
	}
	return &pdfiumSession{inst: inst, pdfiumCalls: calls}, nil
}

// close ends the session. clean says the document was read to its end
// without an error; only then may the instance serve another.
func (s *pdfiumSession) close(clean bool) {
	if clean && s.doc != 0 {
		_, err := s.call("FPDF_CloseDocument", s.doc)
		clean = err == nil
	}
	if clean && s.buf != 0 {
		_, err := s.call("free", s.buf)
		clean = err == nil
	}
	if clean {
		_, err := s.call("free", uint64(s.scratch))
		clean = err == nil
	}
	pdfiumUses.Lock()
	uses := pdfiumUses.n[s.mem] + 1
	keep := clean && uses < pdfiumMaxUses && s.mem.Size() <= pdfiumKeepMemory
	if keep {
		pdfiumUses.n[s.mem] = uses
	} else {
		delete(pdfiumUses.n, s.mem)
	}
	pdfiumUses.Unlock()
	if keep {
		_ = s.inst.Close() // back to the pool
	} else {
		_ = s.inst.Kill()
	}
}

// pdfiumOpenError explains why PDFium could not open a document (code is
// FPDF_GetLastError's); final is false when the Go reader should try it.
func pdfiumOpenError(code int, err error) (e *Error, final bool) {
	switch {
	case err != nil:
		return newError(ErrCorrupt, "the PDF could not be read (%s)", quote(err)), false
	case code == pdfiumErrPassword:
		return newError(ErrEncrypted, "the PDF is password-protected"), true
	case code == pdfiumErrSecurity:
		return newError(ErrEncrypted, "the PDF is encrypted with a method plagd cannot read; save it again without protection"), true
	case code == pdfiumErrFormat:
		return newError(ErrCorrupt, "the PDF is damaged beyond repair: it is not a readable PDF"), false
	}
	return newError(ErrCorrupt, "the PDF is damaged and could not be read (PDFium error %d)", code), false
}
