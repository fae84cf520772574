package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"

	"github.com/plagd/plagd/extract"
)

// Environment of a child. envChild carries the protocol version: a child of
// another build refuses to serve rather than misread frames.
const (
	envChild    = "PLAGD_SANDBOX_CHILD"
	envMemory   = "PLAGD_SANDBOX_MEMORY"    // Config.MemoryLimit in bytes
	envParent   = "PLAGD_SANDBOX_PARENT"    // the parent's pid: a child whose parent is gone exits
	envNoRlimit = "PLAGD_SANDBOX_NO_RLIMIT" // tests: leave RLIMIT_AS unset, to prove the RSS watch alone
	protocol    = "1"
)

// Exit codes of a child, read by the parent.
const (
	exitServed  = 0  // the parent closed the pipe
	exitSetup   = 70 // the child could not set itself up
	exitCPU     = 71 // RLIMIT_CPU's SIGXCPU: the document's CPU time ran out
	exitOrphan  = 72 // the parent was gone before the child started
	exitBadPipe = 73 // the request stream was not frames
)

// cpuMessage is what a child writes to its standard error when its CPU
// time runs out.
const cpuMessage = "plagd sandbox: CPU time limit of the document reached"

// Handler extracts text and flags from one document, as extract.Read does.
type Handler func(content []byte, filename, contentType string, opt extract.Options) (extract.Result, error)

var (
	handlersMu sync.RWMutex
	handlers   = map[string]Handler{opExtract: readDocument}
)

// readDocument is the extraction a child runs: extract.Read without a
// context of its own (the parent's timeout and the kernel's limits stop it).
func readDocument(content []byte, filename, contentType string, opt extract.Options) (extract.Result, error) {
	return extract.Read(context.Background(), content, filename, contentType, opt)
}

// opExtract is the handler Pool.Read calls.
const opExtract = "extract"

// Handle registers h under op in this executable, for its children. It must
// be called before Main (in an init function or at the top of TestMain),
// since a child serves as soon as Main runs. Tests use it to make children
// misbehave on purpose; registering "extract" replaces the extraction that
// Pool.Read runs, in children and in-process alike.
func Handle(op string, h Handler) {
	handlersMu.Lock()
	defer handlersMu.Unlock()
	handlers[op] = h
}

func handler(op string) (Handler, bool) {
	handlersMu.RLock()
	defer handlersMu.RUnlock()
	h, ok := handlers[op]
	return h, ok
}

// Main makes this process a sandbox child when a Pool started it: it then
// limits itself, serves requests until its parent closes the pipe, and
// exits. Otherwise it returns at once. Call it first thing in main, and in
// the TestMain of every package whose tests start a Pool (the child is the
// test binary itself).
func Main() {
	if os.Getenv(envChild) == "" {
		return
	}
	os.Exit(serveChild())
}

// protoOut is the child's protocol stream (its original standard output).
// Package tests write garbage to it to prove the parent survives that.
var protoOut io.Writer

func serveChild() int {
	if v := os.Getenv(envChild); v != protocol {
		fmt.Fprintf(os.Stderr, "plagd sandbox: the parent speaks protocol %q, this executable %q\n", v, protocol)
		return exitSetup
	}
	if ppid, _ := strconv.Atoi(os.Getenv(envParent)); ppid != 0 && os.Getppid() != ppid {
		return exitOrphan // the parent died before Pdeathsig was in force
	}
	mem, err := strconv.ParseInt(os.Getenv(envMemory), 10, 64)
	if err != nil || mem <= 0 {
		fmt.Fprintf(os.Stderr, "plagd sandbox: bad %s=%q\n", envMemory, os.Getenv(envMemory))
		return exitSetup
	}
	noRlimit := os.Getenv(envNoRlimit) != ""
	for _, v := range []string{envChild, envMemory, envParent, envNoRlimit} {
		os.Unsetenv(v) // programs the child runs (OCR) must not see them
	}
	in, out, err := takePipes()
	if err != nil {
		fmt.Fprintf(os.Stderr, "plagd sandbox: %v\n", err)
		return exitSetup
	}
	runtime.GOMAXPROCS(1)
	debug.SetMemoryLimit(mem - mem/10)
	if err := limitSelf(mem, !noRlimit); err != nil {
		fmt.Fprintf(os.Stderr, "plagd sandbox: %v\n", err)
		return exitSetup
	}
	onCPULimit(func() {
		fmt.Fprintln(os.Stderr, cpuMessage)
		os.Exit(exitCPU)
	})
	w := bufio.NewWriterSize(out, 64<<10)
	protoOut = w
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		var req request
		if err := readFrame(r, &req, maxRequestFrame); err != nil {
			if errors.Is(err, io.EOF) {
				return exitServed
			}
			fmt.Fprintf(os.Stderr, "plagd sandbox: reading a request: %v\n", err)
			return exitBadPipe
		}
		setCPULimit(req.CPUSeconds)
		resp := runRequest(&req)
		req = request{} // the content may be large: let it go before the answer is encoded
		if err := writeFrame(w, &resp); err != nil {
			return exitBadPipe
		}
		if err := w.Flush(); err != nil {
			return exitBadPipe
		}
		releaseMemory()
	}
}

// runRequest runs one request's handler; a panic in it fails the document,
// not the child (a panic in a goroutine the handler started still ends the
// child, as it would any Go program: the parent reports a crash).
func runRequest(req *request) (resp response) {
	resp.Seq = req.Seq
	defer func() {
		if p := recover(); p != nil {
			resp = response{Seq: req.Seq, Kind: extract.ErrCorrupt,
				Reason: fmt.Sprintf("the reader failed on this file (%v)", p)}
		}
	}()
	h, ok := handler(req.Op)
	if !ok {
		return response{Seq: req.Seq, Kind: extract.ErrCorrupt, Reason: fmt.Sprintf("no handler %q in the extraction process", req.Op)}
	}
	res, err := h(req.Content, req.Filename, req.ContentType, req.Options)
	if err != nil {
		return errorResponse(req.Seq, err)
	}
	resp.Text, resp.Flags = res.Text, res.Flags
	return resp
}

func errorResponse(seq uint64, err error) response {
	var xe *extract.Error
	if errors.As(err, &xe) {
		return response{Seq: seq, Kind: xe.Kind, Reason: xe.Error()}
	}
	return response{Seq: seq, Kind: extract.ErrCorrupt, Reason: err.Error()}
}

// releaseMemory returns a large heap to the system between documents, so
// that an idle child after a big document does not sit on it.
func releaseMemory() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapSys-ms.HeapReleased > 64<<20 {
		debug.FreeOSMemory()
	}
}
