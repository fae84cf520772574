package extract

import (
	"bytes"
	"regexp"

	pdf "github.com/ledongthuc/pdf"
)

// preflightPDF looks at a PDF's structure with the Go reader before PDFium
// reads it, for the files whose cost grows without bound in any reader:
// a page tree that lists itself (a cycle), more pages or objects than the
// limits, and form XObjects nested so that drawing a page draws them
// billions of times (a form drawing a form twelve times, eight levels
// deep). The Go reader finds these in its parse of the structure, which is
// cheap, and in counting the form calls, which reads only the forms'
// streams. A file the Go reader cannot open passes: PDFium repairs more,
// and its own failures are bounded by its memory limit and the sandbox;
// so does a file on which the Go reader breaks (a panic inside the library).
func preflightPDF(content []byte, bud *budget) (failure *Error) {
	defer func() {
		if r := recover(); r != nil {
			rethrowStop(r)
			failure = nil // the Go reader broke on the file: PDFium may not
		}
	}()
	r, err := openPDF(content, bud)
	if err != nil {
		if tc := onlyTooComplex(err); tc != nil {
			return tc
		}
		// PDFium rebuilds a lost or wrong cross-reference table and then
		// draws whatever the file holds: the structure is checked on a
		// rebuilt table too.
		rebuilt, ok := repairXref(content, bud)
		if !ok {
			return nil
		}
		if r, err = openPDF(rebuilt, bud); err != nil {
			return onlyTooComplex(err)
		}
	}
	pages, err := pageList(r, bud)
	if err != nil {
		return onlyTooComplex(err)
	}
	fc := formCounter{bud: bud, calls: map[objRef]int{}, streams: map[objRef][]byte{}}
	total := 0
	for _, p := range pages {
		// The page's content streams are decoded (counted against
		// max_stream_bytes, once per page that draws them) to count the
		// forms it draws.
		xobjects := pageResources(p).Key("XObject")
		counts, glyphs := fc.doCounts(p.V.Key("Contents"))
		bud.glyphs(glyphs) // at most: every string byte a glyph
		for name, uses := range counts {
			total = saturatingAdd(total, saturatingMul(uses, fc.formCalls(xobjects.Key(name), 0)), bud.lim.MaxXObjectCalls)
		}
		if total > bud.lim.MaxXObjectCalls {
			return tooComplex("its pages draw form XObjects more often", bud.lim.MaxXObjectCalls, "max_xobject_calls")
		}
	}
	return nil
}

// onlyTooComplex keeps the limit failures of the Go reader and drops the
// others (damage PDFium may repair).
func onlyTooComplex(err error) *Error {
	if e, ok := err.(*Error); ok && e.Kind == ErrTooComplex {
		return e
	}
	return nil
}

// formCounter counts how many form XObjects drawing one form draws, over
// all the levels below it, once per form (the count of a form shared by
// many pages is remembered).
type formCounter struct {
	bud     *budget
	calls   map[objRef]int
	streams map[objRef][]byte
}

// doOperator finds "/Name Do" in a content stream.
var doOperator = regexp.MustCompile(`/([^\s/\[\]<>(){}%]+)\s*Do\b`)

// formCalls is the number of forms drawn when v (an XObject) is drawn,
// itself included; 0 when v is not a form. It saturates above the limit.
func (fc *formCounter) formCalls(v pdf.Value, depth int) int {
	if v.Key("Subtype").Name() != "Form" {
		return 0
	}
	ref, haveRef := refOf(v)
	if haveRef {
		if n, ok := fc.calls[ref]; ok {
			return n
		}
		fc.calls[ref] = fc.bud.lim.MaxXObjectCalls + 1 // a form drawing itself: a cycle
	}
	total := 1
	if depth < fc.bud.lim.MaxXObjectDepth*4 {
		xobjects := v.Key("Resources").Key("XObject")
		counts, _ := fc.doCounts(v) // a form is a content stream
		for name, uses := range counts {
			child := xobjects.Key(name)
			if child.IsNull() {
				continue
			}
			total = saturatingAdd(total, saturatingMul(uses, fc.formCalls(child, depth+1)), fc.bud.lim.MaxXObjectCalls)
		}
	}
	if haveRef {
		fc.calls[ref] = total
	}
	return total
}

// doCounts reads a content stream (or an array of them, as a page's
// Contents may be) and counts its Do operators by name, and the bytes of
// its strings: no more glyphs than those can be shown.
func (fc *formCounter) doCounts(v pdf.Value) (counts map[string]int, stringBytes int) {
	counts = map[string]int{}
	streams := []pdf.Value{v}
	if v.Kind() == pdf.Array {
		streams = streams[:0]
		for i := range min(v.Len(), maxContentParts) {
			streams = append(streams, v.Index(i))
		}
	}
	for _, s := range streams {
		data := fc.decode(s)
		for _, m := range doOperator.FindAllSubmatch(data, -1) {
			counts[string(m[1])]++
		}
		stringBytes += countStringBytes(data)
	}
	return counts, stringBytes
}

// countStringBytes counts the bytes inside the (literal) and <hex>
// strings of a content stream.
func countStringBytes(b []byte) int {
	n := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '%': // a comment, to the end of the line
			for i < len(b) && b[i] != '\n' && b[i] != '\r' {
				i++
			}
		case '(':
			depth := 1
			for i++; i < len(b) && depth > 0; i++ {
				switch b[i] {
				case '\\':
					i++
				case '(':
					depth++
				case ')':
					depth--
				}
				n++
			}
			i--
		case '<':
			if i+1 < len(b) && b[i+1] == '<' {
				i++
				continue
			}
			j := i + 1
			for j < len(b) && b[j] != '>' {
				j++
			}
			n += (j - i) / 2
			i = j
		}
	}
	return n
}

// maxContentParts bounds the streams of one page's Contents array read.
const maxContentParts = 10000

// decode is a stream's decoded bytes (pdf_stream.go), counted against
// max_stream_bytes at every use; what a damaged stream held before the
// damage is kept, and a stream the library cannot decode counts as empty.
func (fc *formCounter) decode(v pdf.Value) (data []byte) {
	if v.Kind() != pdf.Stream {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			rethrowStop(r)
			data = nil // a filter the library does not know: PDFium may
		}
	}()
	ref, haveRef := refOf(v)
	if data, ok := fc.streams[ref]; haveRef && ok {
		fc.bud.streamBytes(len(data))
		return data
	}
	var buf bytes.Buffer
	_ = readStream(v, fc.bud, &buf)
	if haveRef {
		fc.streams[ref] = buf.Bytes()
	}
	return buf.Bytes()
}

func saturatingAdd(a, b, limit int) int {
	if a > limit || b > limit || a+b > limit {
		return limit + 1
	}
	return a + b
}

func saturatingMul(a, b int) int {
	const big = 1 << 40
	if a != 0 && b > big/a {
		return big
	}
	return a * b
}
