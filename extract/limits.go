package extract

import (
	"context"
	"fmt"
)

// Limits bound the work one document may cost, whatever its size on disk:
// a few kilobytes of PDF can draw a page a billion times, and a few
// megabytes of DOCX can hold a gigabyte-long XML comment. A document that
// reaches a limit fails with ErrTooComplex and a reason naming the limit
// and its configuration key (extract.limits.*). Zero fields mean the
// Default* values, which no real thesis, article or book in the quality
// fixtures comes near.
//
// Every loop of plagd's own parsers (content-stream interpretation, page
// layout, form XObjects, the XML walks of DOCX and ODT, RTF, HTML) spends
// from one budget per document, which also watches the context given to
// TextContext: a cancelled extraction stops within milliseconds instead of
// burning a core after its caller gave up (Go cannot kill a goroutine; the
// goroutine has to stop itself). The child-process sandbox
// (extract/sandbox) is the outer wall around the parts that are not ours,
// such as the PDF library's own parsing.
type Limits struct {
	// MaxPages bounds the pages of a PDF that are read. A page tree that
	// visits a node twice (a cycle) fails at once.
	MaxPages int
	// MaxXObjectDepth bounds how deep form XObjects nest (a form drawing a
	// form drawing a form ...); deeper forms are not drawn.
	MaxXObjectDepth int
	// MaxXObjectCalls bounds the form XObjects drawn per document: 8 levels
	// of forms each drawing the next 12 times are 12^8 calls. A form that
	// draws itself is a cycle and is not drawn again.
	MaxXObjectCalls int
	// MaxGlyphs bounds the glyphs (characters placed on a page) read per
	// document, not per page: 60 pages may share one content stream.
	MaxGlyphs int
	// MaxStreamBytes bounds the decoded (decompressed) bytes of the content
	// streams, forms and font maps read per document.
	MaxStreamBytes int64
	// MaxXMLToken bounds the longest XML token of a DOCX or ODT part: a
	// comment, a processing instruction, a tag, or a run of text between
	// two tags. The XML is streamed, so no longer token is ever held whole.
	MaxXMLToken int
	// MaxTextBytes bounds the extracted text of one document.
	MaxTextBytes int
}

// Defaults of Limits. They are far above real theses and articles (a dense
// 300-page thesis places under a million glyphs; max_glyphs admits about
// 1,300 dense pages) and far below what hurts a node: at the defaults one
// document costs at most about 400 MB (a glyph costs about 95 bytes until
// its document is laid out), within the 1 GiB of an extraction process.
const (
	DefaultMaxPages        = 20000
	DefaultMaxXObjectDepth = 8
	DefaultMaxXObjectCalls = 100000
	DefaultMaxGlyphs       = 4000000
	DefaultMaxStreamBytes  = 256 << 20
	DefaultMaxXMLToken     = 16 << 20
	DefaultMaxTextBytes    = 64 << 20
)

// withDefaults returns l with its zero (or negative) fields set to the defaults.
func (l Limits) withDefaults() Limits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.MaxPages, DefaultMaxPages)
	def(&l.MaxXObjectDepth, DefaultMaxXObjectDepth)
	def(&l.MaxXObjectCalls, DefaultMaxXObjectCalls)
	def(&l.MaxGlyphs, DefaultMaxGlyphs)
	def(&l.MaxXMLToken, DefaultMaxXMLToken)
	def(&l.MaxTextBytes, DefaultMaxTextBytes)
	if l.MaxStreamBytes <= 0 {
		l.MaxStreamBytes = DefaultMaxStreamBytes
	}
	return l
}

// budget is what one document may still spend. Parsers call spend in every
// loop; when a limit is reached or the context is done, the budget panics
// with a budgetStop, which unwinds through the parser (and through the PDF
// library's callbacks, which cannot return errors) to runParser. Recovering
// code inside the parsers re-panics a budgetStop (see rethrowStop).
type budget struct {
	ctx   context.Context
	lim   Limits
	ops   int64 // work units spent since the last context check
	stop  *Error
	pages int
	calls int
	glyph int
	bytes int64
	text  int
}

// budgetStop is the panic value that ends a document's extraction.
type budgetStop struct{ err *Error }

// checkEvery is how many work units pass between two looks at the context:
// a unit is about one operator, token or glyph, so this is well under a
// millisecond of work.
const checkEvery = 4096

func newBudget(ctx context.Context, lim Limits) *budget {
	if ctx == nil {
		ctx = context.Background()
	}
	return &budget{ctx: ctx, lim: lim.withDefaults()}
}

// budgetOf returns the budget runParser attached to opt, or a fresh one
// for parsers called directly (tests).
func budgetOf(opt Options) *budget {
	if opt.budget != nil {
		return opt.budget
	}
	return newBudget(context.Background(), opt.Limits)
}

// spend records n units of work and stops the document when its context
// is done.
func (b *budget) spend(n int) {
	b.ops += int64(n)
	if b.ops < checkEvery {
		return
	}
	b.ops = 0
	b.check()
}

// check stops the document now if its context is done.
func (b *budget) check() {
	if b.stop != nil {
		panic(budgetStop{b.stop})
	}
	if err := b.ctx.Err(); err != nil {
		b.fail(&Error{Kind: ErrTimeout, Reason: "text extraction was cancelled: " + err.Error()})
	}
}

// fail stops the document with err.
func (b *budget) fail(err *Error) {
	if b.stop == nil {
		b.stop = err
	}
	panic(budgetStop{b.stop})
}

// exceeded stops the document with ErrTooComplex for the limit named key
// (the part after extract.limits.), whose value was limit.
func (b *budget) exceeded(what string, limit any, key string) {
	b.fail(tooComplex(what, limit, key))
}

func tooComplex(what string, limit any, key string) *Error {
	return newError(ErrTooComplex, "the file is too complex to read: %s than the limit of %v allows (extract.limits.%s in the configuration)", what, limit, key)
}

// page counts a page read.
func (b *budget) page() {
	b.pages++
	if b.pages > b.lim.MaxPages {
		b.exceeded("it has more pages", b.lim.MaxPages, "max_pages")
	}
	b.spend(1)
}

// call counts one form XObject drawn.
func (b *budget) call() {
	b.calls++
	if b.calls > b.lim.MaxXObjectCalls {
		b.exceeded("its pages draw form XObjects more often", b.lim.MaxXObjectCalls, "max_xobject_calls")
	}
	b.spend(16)
}

// glyphs counts n glyphs placed.
func (b *budget) glyphs(n int) {
	b.glyph += n
	if b.glyph > b.lim.MaxGlyphs {
		b.exceeded("its pages place more glyphs", b.lim.MaxGlyphs, "max_glyphs")
	}
	b.spend(n)
}

// streamBytes counts n decoded stream bytes.
func (b *budget) streamBytes(n int) {
	b.bytes += int64(n)
	if b.bytes > b.lim.MaxStreamBytes {
		b.exceeded("its content streams decode to more bytes", fmt.Sprintf("%d bytes", b.lim.MaxStreamBytes), "max_stream_bytes")
	}
	b.spend(n >> 8)
}

// textBytes counts n bytes of extracted text.
func (b *budget) textBytes(n int) {
	b.text += n
	if b.text > b.lim.MaxTextBytes {
		b.exceeded("it holds more text", fmt.Sprintf("%d bytes", b.lim.MaxTextBytes), "max_text_bytes")
	}
	b.spend(1 + n>>6)
}

// rethrowStop re-panics r if it is a budgetStop; code that recovers from
// the PDF library's panics calls it first, so that a stop is never taken
// for a damaged stream.
func rethrowStop(r any) {
	if s, ok := r.(budgetStop); ok {
		panic(s)
	}
}
