package extract

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"

	"github.com/klippa-app/go-pdfium"
	"github.com/tetratelabs/wazero/api"
)

// This file calls PDFium's C functions in the WebAssembly module directly.
// go-pdfium starts the module (its runtime, its Emscripten imports, a fresh
// instance per document) and offers every PDFium function as a request
// object; that layer allocates and frees guest memory for every
// out-parameter and looks handles up in maps, six guest calls for one
// character's origin. A thesis has a million characters, so plagd reads
// them through the module's exports with one scratch buffer instead: about
// one microsecond per call.

// wasmFunc is an exported function of the module.
type wasmFunc interface {
	CallWithStack(ctx context.Context, stack []uint64) error
}

// pdfiumCalls are the PDFium functions plagd uses, bound to one instance.
type pdfiumCalls struct {
	mem     api.Memory
	fns     map[string]wasmFunc
	stack   [8]uint64
	scratch uint32 // scratchBytes of guest memory for out-parameters
}

// pdfiumExports are the functions bound by bindPDFium.
var pdfiumExports = []string{
	"malloc", "free", "FPDF_GetLastError",
	"FPDF_LoadMemDocument", "FPDF_CloseDocument", "FPDF_GetPageCount",
	"FPDF_LoadPage", "FPDF_ClosePage", "FPDF_GetPageBoundingBox",
	"FPDFText_LoadPage", "FPDFText_ClosePage", "FPDFText_CountChars",
	"FPDFText_GetUnicode", "FPDFText_IsGenerated", "FPDFText_GetCharOrigin",
	"FPDFText_GetLooseCharBox", "FPDFText_GetMatrix", "FPDFText_GetFontSize",
	"FPDFPage_CountObjects", "FPDFPage_GetObject", "FPDFPageObj_GetType",
	"FPDFPage_GetAnnotCount", "FPDFPage_Flatten",
	// What a reader cannot see (pdfium_hidden.go).
	"FPDFText_GetTextObject", "FPDFTextObj_GetTextRenderMode", "FPDFPageObj_GetFillColor",
	"FPDFPageObj_GetBounds", "FPDFPath_GetDrawMode",
}

// bindPDFium finds the module inside a go-pdfium instance and binds the
// exports. go-pdfium keeps the module in the exported field Module of its
// implementation, whose methods Memory and ExportedFunction return
// wazero's own values; the field is reached through reflection, and
// TestPDFiumBinds fails should a go-pdfium version change it.
func bindPDFium(inst pdfium.Pdfium) (*pdfiumCalls, error) {
	fail := func(what string) (*pdfiumCalls, error) {
		return nil, fmt.Errorf("this go-pdfium version does not offer %s as plagd expects (%T)", what, inst.GetImplementation())
	}
	v := reflect.ValueOf(inst.GetImplementation())
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return fail("its implementation")
	}
	mod := v.Elem().FieldByName("Module")
	if !mod.IsValid() || mod.Kind() != reflect.Interface || mod.IsNil() {
		return fail("the module")
	}
	memory, export := mod.MethodByName("Memory"), mod.MethodByName("ExportedFunction")
	if !memory.IsValid() || !export.IsValid() {
		return fail("Memory and ExportedFunction")
	}
	c := &pdfiumCalls{fns: map[string]wasmFunc{}}
	var ok bool
	if c.mem, ok = memory.Call(nil)[0].Interface().(api.Memory); !ok {
		return fail("the module's memory")
	}
	for _, name := range pdfiumExports {
		fn := export.Call([]reflect.Value{reflect.ValueOf(name)})[0]
		if fn.Kind() == reflect.Interface && fn.IsNil() {
			return fail("the function " + name)
		}
		if c.fns[name], ok = fn.Interface().(wasmFunc); !ok {
			return fail("the function " + name)
		}
	}
	p, err := c.call("malloc", scratchBytes)
	if err != nil || p == 0 {
		return nil, fmt.Errorf("PDFium has no memory for its first %d bytes: %v", scratchBytes, err)
	}
	c.scratch = uint32(p)
	return c, nil
}

// scratchBytes is the size of the scratch buffer: geometry uses its first
// 56 bytes, the hidden-text calls (pdfium_hidden.go) the 32 after them.
const scratchBytes = 96

// call calls an export with 32-bit arguments and returns its raw result.
func (c *pdfiumCalls) call(name string, args ...uint64) (uint64, error) {
	copy(c.stack[:], args)
	if err := c.fns[name].CallWithStack(context.Background(), c.stack[:]); err != nil {
		return 0, fmt.Errorf("PDFium %s: %w", name, err)
	}
	return c.stack[0], nil
}

// int32Of reads a C int result.
func int32Of(r uint64) int { return int(int32(uint32(r))) }

// errPDFiumMemory: the file does not fit in the instance's memory.
var errPDFiumMemory = errors.New("the file does not fit in PDFium's memory")

// pdfiumError codes of FPDF_GetLastError.
const (
	pdfiumErrFormat   = 3
	pdfiumErrPassword = 4
	pdfiumErrSecurity = 5
)

// openDocument copies a file into guest memory and opens it, without a
// password (files with only an owner password open).
func (c *pdfiumCalls) openDocument(content []byte) (doc, buf uint64, code int, err error) {
	buf, err = c.call("malloc", uint64(max(len(content), 1)))
	if err != nil {
		return 0, 0, 0, err
	}
	if buf == 0 || !c.mem.Write(uint32(buf), content) {
		return 0, buf, 0, errPDFiumMemory
	}
	doc, err = c.call("FPDF_LoadMemDocument", buf, uint64(len(content)), 0)
	if err != nil || doc != 0 {
		return doc, buf, 0, err
	}
	last, err := c.call("FPDF_GetLastError")
	return 0, buf, int(last), err
}

// rectf reads an FS_RECTF (left, top, right, bottom) at p.
func (c *pdfiumCalls) rectf(p uint32) (left, top, right, bottom float64) {
	f := func(off uint32) float64 {
		v, _ := c.mem.ReadFloat32Le(p + off)
		return float64(v)
	}
	return f(0), f(4), f(8), f(12)
}

// pageBox is FPDF_GetPageBoundingBox: the crop box within the media box.
func (c *pdfiumCalls) pageBox(page uint64) (left, top, right, bottom float64, ok bool) {
	r, err := c.call("FPDF_GetPageBoundingBox", page, uint64(c.scratch))
	if err != nil || r == 0 {
		return 0, 0, 0, 0, false
	}
	left, top, right, bottom = c.rectf(c.scratch)
	return left, top, right, bottom, true
}

// charGeometry is what PDFium knows of where one character is drawn.
type charGeometry struct {
	x, y                     float64 // origin of the baseline
	left, top, right, bottom float64 // loose box: the advance, ascent to descent
	a, b, c, d               float64 // the character's matrix (direction, scale)
	size                     float64 // font size before the matrix
}

// geometry reads character i's origin, loose box, matrix and font size.
func (c *pdfiumCalls) geometry(tp uint64, i int) (g charGeometry, err error) {
	s := uint64(c.scratch)
	if _, err = c.call("FPDFText_GetCharOrigin", tp, uint64(i), s, s+8); err != nil {
		return g, err
	}
	if _, err = c.call("FPDFText_GetLooseCharBox", tp, uint64(i), s+16); err != nil {
		return g, err
	}
	if _, err = c.call("FPDFText_GetMatrix", tp, uint64(i), s+32); err != nil {
		return g, err
	}
	size, err := c.call("FPDFText_GetFontSize", tp, uint64(i))
	if err != nil {
		return g, err
	}
	g.x, _ = c.mem.ReadFloat64Le(c.scratch)
	g.y, _ = c.mem.ReadFloat64Le(c.scratch + 8)
	g.left, g.top, g.right, g.bottom = c.rectf(c.scratch + 16)
	f := func(off uint32) float64 {
		v, _ := c.mem.ReadFloat32Le(c.scratch + 32 + off)
		return float64(v)
	}
	g.a, g.b, g.c, g.d = f(0), f(4), f(8), f(12)
	g.size = math.Float64frombits(size)
	return g, nil
}
