package extract

import (
	"bytes"
	"reflect"
	"strconv"

	pdf "github.com/ledongthuc/pdf"
)

// validatePDF checks, before the PDF library sees the file, every number
// the library would allocate or loop by without looking (read from the
// source of github.com/ledongthuc/pdf):
//
//   - the subsections of cross-reference tables ("start count"): the
//     library grows its table to start+count entries (ensureXrefLen), so
//     one absurd start takes the process down with "out of memory", which
//     no recover catches;
//   - cross-reference streams: /Size (allocated at once), /W (a buffer of
//     their sum, read per entry), /Index (as for tables), predictor
//     /Columns of their /DecodeParms (allocated twice);
//   - the /Prev chain of cross-reference sections, which the library
//     follows without end when it loops;
//   - object streams: /N, the objects the library looks for, without end
//     when the stream is shorter; /First; /Extends chains, followed
//     without end when they loop;
//   - the nesting of arrays and dictionaries, which the library parses by
//     recursion: a few megabytes of "[" overflow the goroutine stack, which
//     is fatal too.
//
// Object numbers are bounded by maxPDFObjects, the implementation limit
// of Acrobat documented in the PDF Reference (Adobe, PDF Reference, sixth
// edition, Appendix C: 8,388,607 indirect objects), and by the size of the
// file: no object can cost less than one byte of it.
//
// The check reads the structure as the library does but only as far as it
// needs to: what it cannot make sense of it leaves to the library, whose
// errors are safe. After the library has read the cross-reference table,
// checkXrefTable looks at the result for object streams inside object
// streams, which the library would resolve by endless recursion.
func validatePDF(content []byte, bud *budget) *Error {
	v := &pdfValidator{b: content, bud: bud, maxObj: maxObjects(len(content))}
	if err := v.nesting(); err != nil {
		return err
	}
	if err := v.xrefChain(); err != nil {
		return err
	}
	return v.objectStreams()
}

const (
	maxPDFObjects = 8388607
	// maxPDFNesting bounds nested arrays and dictionaries. Real files nest
	// a few levels; random bytes of compressed streams, counted blindly,
	// stay below a few thousand even in 200 MB.
	maxPDFNesting = 10000
	// maxXrefSections bounds the /Prev chain (one section per incremental
	// update of the file).
	maxXrefSections = 4096
	// maxXrefWidth bounds each /W field of a cross-reference stream.
	maxXrefWidth = 8
)

// maxObjects is the largest object number accepted in a file of n bytes.
func maxObjects(n int) int64 {
	return min(max(int64(n), 1<<16), maxPDFObjects)
}

func pdfTooComplex(format string, args ...any) *Error {
	return newError(ErrTooComplex, "the PDF is damaged or hostile: "+format, args...)
}

type pdfValidator struct {
	b      []byte
	bud    *budget
	maxObj int64
}

// nesting checks the depth of "[" and "<<" over the whole file, strings
// and streams included: the library may be pointed anywhere.
func (v *pdfValidator) nesting() *Error {
	if d := nestingDepth(v.b, v.bud); d > maxPDFNesting {
		return pdfTooComplex("arrays or dictionaries nested more than %d deep", maxPDFNesting)
	}
	return nil
}

// nestingDepth is the deepest nesting of "[" and "<<" in b, counted
// blindly (closers below zero are ignored).
func nestingDepth(b []byte, bud *budget) int {
	depth, deepest := 0, 0
	for i := 0; i < len(b); i++ {
		if i&0xffff == 0 {
			bud.spend(64)
		}
		switch b[i] {
		case '[':
			depth++
		case ']':
			depth = max(depth-1, 0)
		case '<':
			if i+1 < len(b) && b[i+1] == '<' {
				depth++
				i++
			}
		case '>':
			if i+1 < len(b) && b[i+1] == '>' {
				depth = max(depth-1, 0)
				i++
			}
		default:
			continue
		}
		deepest = max(deepest, depth)
	}
	return deepest
}

// xrefChain follows startxref and the /Prev chain.
func (v *pdfValidator) xrefChain() *Error {
	tail := v.b[max(0, len(v.b)-1024):]
	i := bytes.LastIndex(tail, []byte("startxref"))
	if i < 0 {
		return nil // the library says it is missing
	}
	lx := &pdfLexer{b: tail, i: i + len("startxref")}
	off, ok := lx.int()
	seen := map[int64]bool{}
	for ok {
		v.bud.spend(1)
		if off < 0 || off >= int64(len(v.b)) {
			return nil // the library reports a bad offset
		}
		if seen[off] {
			return pdfTooComplex("its cross-reference sections form a loop (/Prev)")
		}
		seen[off] = true
		if len(seen) > maxXrefSections {
			return pdfTooComplex("more than %d cross-reference sections", maxXrefSections)
		}
		var err *Error
		off, ok, err = v.xrefSection(off)
		if err != nil {
			return err
		}
	}
	return nil
}

// xrefSection checks the section at off and returns its /Prev.
func (v *pdfValidator) xrefSection(off int64) (prev int64, ok bool, err *Error) {
	lx := &pdfLexer{b: v.b, i: int(off)}
	save := lx.i
	if lx.keyword() == "xref" {
		return v.xrefTable(lx)
	}
	lx.i = save
	if _, ok := lx.int(); !ok {
		return 0, false, nil
	}
	if _, ok := lx.int(); !ok || lx.keyword() != "obj" {
		return 0, false, nil
	}
	d, ok := lx.dict(v.bud)
	if !ok {
		return 0, false, nil
	}
	return v.xrefStream(d)
}

func (v *pdfValidator) xrefTable(lx *pdfLexer) (int64, bool, *Error) {
	for {
		v.bud.spend(1)
		save := lx.i
		if lx.keyword() == "trailer" {
			d, ok := lx.dict(v.bud)
			if !ok {
				return 0, false, nil
			}
			p, ok := d["Prev"].(int64)
			return p, ok, nil
		}
		lx.i = save
		start, ok1 := lx.int()
		n, ok2 := lx.int()
		if !ok1 || !ok2 {
			return 0, false, nil // "malformed xref table"
		}
		if err := v.objectRange("a cross-reference table", start, n); err != nil {
			return 0, false, err
		}
		// Skip the entries: three tokens each, as the library reads them.
		for k := int64(0); k < n; k++ {
			if k&1023 == 0 {
				v.bud.spend(64)
			}
			for range 3 {
				if !lx.skipToken() {
					return 0, false, nil
				}
			}
		}
	}
}

// objectRange checks the objects start..start+n-1 of a subsection.
func (v *pdfValidator) objectRange(where string, start, n int64) *Error {
	if start < 0 || n < 0 || start > v.maxObj || n > v.maxObj || start+n > v.maxObj {
		return pdfTooComplex("%s declares objects %d to %d, more than a file of this size can hold (at most %d)", where, start, start+n, v.maxObj)
	}
	return nil
}

func (v *pdfValidator) xrefStream(d map[string]any) (int64, bool, *Error) {
	size, ok := d["Size"].(int64)
	if !ok {
		return 0, false, nil
	}
	if err := v.objectRange("a cross-reference stream", 0, size); err != nil {
		return 0, false, err
	}
	if w, ok := d["W"].([]any); ok {
		if len(w) > 16 {
			return 0, false, pdfTooComplex("a cross-reference stream has %d /W fields", len(w))
		}
		total := int64(0)
		for _, x := range w {
			n, ok := x.(int64)
			if !ok || n < 0 || n > maxXrefWidth {
				return 0, false, pdfTooComplex("a cross-reference stream has an invalid /W field")
			}
			total += n
		}
		if total == 0 {
			return 0, false, pdfTooComplex("a cross-reference stream has entries of zero bytes (/W)")
		}
	}
	if idx, ok := d["Index"].([]any); ok {
		if len(idx) > 2*int(min(v.maxObj, 1<<20)) {
			return 0, false, pdfTooComplex("a cross-reference stream has %d /Index entries", len(idx))
		}
		for i := 0; i+1 < len(idx); i += 2 {
			start, ok1 := idx[i].(int64)
			n, ok2 := idx[i+1].(int64)
			if ok1 && ok2 {
				if err := v.objectRange("a cross-reference stream", start, n); err != nil {
					return 0, false, err
				}
			}
		}
	}
	if err := checkColumns(d["DecodeParms"]); err != nil {
		return 0, false, err
	}
	p, ok := d["Prev"].(int64)
	return p, ok, nil
}

// checkColumns checks the predictor /Columns of /DecodeParms (a
// dictionary or an array of them) written directly in a stream's header.
func checkColumns(parms any) *Error {
	var all []any
	switch p := parms.(type) {
	case map[string]any:
		all = []any{p}
	case []any:
		all = p
	}
	for _, x := range all {
		if d, ok := x.(map[string]any); ok {
			switch c := d["Columns"].(type) {
			case int64:
				if c < 0 || c > maxPredictorColumns {
					return pdfTooComplex("a stream declares %d predictor columns", c)
				}
			case pdfRef:
				return pdfTooComplex("a stream's predictor columns are an indirect object")
			}
		}
	}
	return nil
}

// objectStreams checks the header of every object stream written in the
// file (object streams are never compressed themselves).
func (v *pdfValidator) objectStreams() *Error {
	extends := map[int64]int64{}
	for rest := 0; ; {
		i := bytes.Index(v.b[rest:], []byte("/ObjStm"))
		if i < 0 {
			break
		}
		v.bud.spend(16)
		at := rest + i
		rest = at + len("/ObjStm")
		// The dictionary holding it starts after the nearest "obj" before.
		o := bytes.LastIndex(v.b[max(0, at-4096):at], []byte("obj"))
		if o < 0 {
			continue
		}
		lx := &pdfLexer{b: v.b, i: max(0, at-4096) + o + len("obj")}
		d, ok := lx.dict(v.bud)
		if !ok || d["Type"] != pdfName("ObjStm") {
			continue
		}
		for _, key := range []string{"N", "First"} {
			switch n := d[key].(type) {
			case int64:
				if n < 0 || n > v.maxObj*16 || (key == "N" && n > v.maxObj) {
					return pdfTooComplex("an object stream declares /%s %d", key, n)
				}
			case pdfRef:
				return pdfTooComplex("an object stream's /%s is an indirect object", key)
			}
		}
		if err := checkColumns(d["DecodeParms"]); err != nil {
			return err
		}
		if ext, ok := d["Extends"].(pdfRef); ok {
			if id, ok := objectNumberBefore(v.b, max(0, at-4096)+o); ok {
				extends[id] = ext.id
			}
		}
	}
	for start := range extends {
		v.bud.spend(1)
		at, steps := start, 0
		for {
			next, ok := extends[at]
			if !ok {
				break
			}
			if next == start || steps > len(extends) {
				return pdfTooComplex("its object streams extend each other in a loop (/Extends)")
			}
			at, steps = next, steps+1
		}
	}
	return nil
}

// objectNumberBefore reads "N G" before the "obj" at o.
func objectNumberBefore(b []byte, o int) (int64, bool) {
	j := o
	for j > 0 && isPDFSpace(b[j-1]) {
		j--
	}
	for j > 0 && b[j-1] >= '0' && b[j-1] <= '9' {
		j--
	}
	for j > 0 && isPDFSpace(b[j-1]) {
		j--
	}
	k := j
	for k > 0 && b[k-1] >= '0' && b[k-1] <= '9' {
		k--
	}
	n, err := strconv.ParseInt(string(b[k:j]), 10, 64)
	return n, err == nil
}

// checkXrefTable looks at the cross-reference table the library read:
// an object said to be inside an object stream that is itself inside an
// object stream would be resolved by recursion without end (a stack
// overflow, fatal), so the file is refused.
func checkXrefTable(r *pdf.Reader, bud *budget) *Error {
	x := reflect.ValueOf(r).Elem().FieldByName("xref")
	if !x.IsValid() || x.Kind() != reflect.Slice {
		return nil
	}
	n := x.Len()
	inStream := func(e reflect.Value) bool { f := e.FieldByName("inStream"); return f.IsValid() && f.Bool() }
	for i := 0; i < n; i++ {
		if i&1023 == 0 {
			bud.spend(256)
		}
		e := x.Index(i)
		if !inStream(e) {
			continue
		}
		s := e.FieldByName("stream")
		if !s.IsValid() || s.NumField() != 2 {
			return nil
		}
		id := int(s.Field(0).Uint())
		if id < n && inStream(x.Index(id)) {
			return pdfTooComplex("object %d is in an object stream that is itself in an object stream", i)
		}
	}
	return nil
}

// pdfLexer reads the tokens of PDF syntax the validator needs, as the
// library's lexer does.
type pdfLexer struct {
	b []byte
	i int
}

type (
	pdfName string
	pdfRef  struct{ id, gen int64 }
)

func isPDFDelim(c byte) bool {
	switch c {
	case '<', '>', '(', ')', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

func (lx *pdfLexer) skipSpace() {
	for lx.i < len(lx.b) {
		c := lx.b[lx.i]
		switch {
		case isPDFSpace(c):
			lx.i++
		case c == '%':
			for lx.i < len(lx.b) && lx.b[lx.i] != '\r' && lx.b[lx.i] != '\n' {
				lx.i++
			}
		default:
			return
		}
	}
}

// regular reads a run of regular characters (a number or a keyword).
func (lx *pdfLexer) regular() string {
	lx.skipSpace()
	s := lx.i
	for lx.i < len(lx.b) && !isPDFSpace(lx.b[lx.i]) && !isPDFDelim(lx.b[lx.i]) {
		lx.i++
	}
	return string(lx.b[s:lx.i])
}

func (lx *pdfLexer) keyword() string { return lx.regular() }

func (lx *pdfLexer) int() (int64, bool) {
	n, err := strconv.ParseInt(lx.regular(), 10, 64)
	return n, err == nil
}

// skipToken skips one token of an xref entry; false at the end or on a
// delimiter, where the library stops too.
func (lx *pdfLexer) skipToken() bool {
	return lx.regular() != ""
}

// dict reads a dictionary of numbers, names, references, arrays and
// nested dictionaries; strings are skipped. ok is false when the bytes
// are not a dictionary.
func (lx *pdfLexer) dict(bud *budget) (map[string]any, bool) {
	lx.skipSpace()
	if !bytes.HasPrefix(lx.b[lx.i:], []byte("<<")) {
		return nil, false
	}
	lx.i += 2
	v, ok := lx.dictBody(bud, 0)
	return v, ok
}

func (lx *pdfLexer) dictBody(bud *budget, depth int) (map[string]any, bool) {
	d := map[string]any{}
	for {
		bud.spend(1)
		lx.skipSpace()
		if lx.i >= len(lx.b) {
			return nil, false
		}
		if bytes.HasPrefix(lx.b[lx.i:], []byte(">>")) {
			lx.i += 2
			return d, true
		}
		if lx.b[lx.i] != '/' {
			return nil, false
		}
		lx.i++
		key := lx.name()
		val, ok := lx.value(bud, depth+1)
		if !ok {
			return nil, false
		}
		d[key] = val
	}
}

func (lx *pdfLexer) name() string {
	s := lx.i
	for lx.i < len(lx.b) && !isPDFSpace(lx.b[lx.i]) && !isPDFDelim(lx.b[lx.i]) {
		lx.i++
	}
	return string(lx.b[s:lx.i])
}

// value reads one value; integers followed by "G R" are references.
func (lx *pdfLexer) value(bud *budget, depth int) (any, bool) {
	if depth > 64 {
		return nil, false
	}
	lx.skipSpace()
	if lx.i >= len(lx.b) {
		return nil, false
	}
	switch c := lx.b[lx.i]; {
	case c == '/':
		lx.i++
		return pdfName(lx.name()), true
	case c == '[':
		lx.i++
		var a []any
		for {
			bud.spend(1)
			lx.skipSpace()
			if lx.i >= len(lx.b) {
				return nil, false
			}
			if lx.b[lx.i] == ']' {
				lx.i++
				return a, true
			}
			x, ok := lx.value(bud, depth+1)
			if !ok {
				return nil, false
			}
			a = append(a, x)
		}
	case c == '<' && lx.i+1 < len(lx.b) && lx.b[lx.i+1] == '<':
		lx.i += 2
		return lx.dictBody(bud, depth)
	case c == '<':
		e := bytes.IndexByte(lx.b[lx.i:], '>')
		if e < 0 {
			return nil, false
		}
		lx.i += e + 1
		return "", true
	case c == '(':
		lx.i++
		for level := 1; level > 0; lx.i++ {
			if lx.i >= len(lx.b) {
				return nil, false
			}
			switch lx.b[lx.i] {
			case '\\':
				lx.i++
			case '(':
				level++
			case ')':
				level--
			}
		}
		return "", true
	case isPDFDelim(c):
		return nil, false
	}
	tok := lx.regular()
	n, err := strconv.ParseInt(tok, 10, 64)
	if err != nil {
		return tok, true // a real, a boolean, null: not needed
	}
	// A reference is "id gen R".
	save := lx.i
	if g, ok := lx.int(); ok && lx.keyword() == "R" {
		return pdfRef{n, g}, true
	}
	lx.i = save
	return n, true
}
