package extract

import (
	"bytes"
	"fmt"
	"io"
	"strconv"

	pdf "github.com/ledongthuc/pdf"
)

// The PDF library decodes a stream (inflate, predictors, ASCII85) inside
// pdf.Interpret, out of reach of any budget: a few kilobytes of deflated
// zeros are gigabytes of whitespace it would scan without calling back.
// So plagd decodes content streams, forms and font maps itself, through
// the library's filters but counting every decoded byte against
// Limits.MaxStreamBytes and checking the context between chunks, and
// hands the library the decoded bytes as an unfiltered stream.

// decodeContent decodes a content stream, or an array of them (one
// content split in parts), within the budget. It returns the bytes as a
// stream Value and, when a stream was damaged, the error that cut it
// short: what was read before is kept.
func decodeContent(v pdf.Value, bud *budget) (pdf.Value, any) {
	var buf bytes.Buffer
	var failure any
	add := func(s pdf.Value) {
		if s.Kind() != pdf.Stream {
			return
		}
		if err := readStream(s, bud, &buf); err != nil && failure == nil {
			failure = err
		}
		buf.WriteByte('\n') // parts of a content split at token boundaries
	}
	if v.Kind() == pdf.Array {
		for i := 0; i < v.Len(); i++ {
			bud.spend(1)
			add(v.Index(i))
		}
	} else {
		add(v)
	}
	checkNesting(buf.Bytes(), bud)
	if hexOpenAtEnd(buf.Bytes(), bud) {
		// The library's lexer reads an unterminated hex string at the
		// end of a content stream for ever (end of input reads as
		// white space, which hex strings skip): close it.
		buf.WriteByte('>')
	}
	return plainStream(buf.Bytes()), failure
}

// readStream appends the decoded bytes of stream s to buf within the
// budget. A read error (a damaged stream) is returned; a filter the
// library does not know panics, as it would inside the library.
func readStream(s pdf.Value, bud *budget, buf *bytes.Buffer) error {
	checkDecodeParms(s, bud)
	rc := s.Reader()
	defer rc.Close()
	chunk := make([]byte, 32<<10)
	for {
		n, err := rc.Read(chunk)
		bud.streamBytes(n)
		buf.Write(chunk[:n])
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// hexOpenAtEnd reports whether b ends inside a hex string, read as the
// library's lexer reads it: comments to the end of the line, literal
// strings with nested parentheses and backslash escapes, "<<" a
// dictionary, any other "<" a hex string up to the next ">".
func hexOpenAtEnd(b []byte, bud *budget) bool {
	const (
		normal = iota
		comment
		literal
		hex
	)
	state, depth := normal, 0
	for i := 0; i < len(b); i++ {
		if i&0xffff == 0 {
			bud.spend(64)
		}
		c := b[i]
		switch state {
		case normal:
			switch c {
			case '%':
				state = comment
			case '(':
				state, depth = literal, 1
			case '<':
				if i+1 < len(b) && b[i+1] == '<' {
					i++
				} else {
					state = hex
				}
			}
		case comment:
			if c == '\r' || c == '\n' {
				state = normal
			}
		case literal:
			switch c {
			case '\\':
				i++
			case '(':
				depth++
			case ')':
				if depth--; depth == 0 {
					state = normal
				}
			}
		case hex:
			if c == '>' {
				state = normal
			}
		}
	}
	return state == hex
}

// checkNesting fails the document on decoded bytes nested deeper than the
// library's recursive parser can take.
func checkNesting(b []byte, bud *budget) {
	if nestingDepth(b, bud) > maxPDFNesting {
		bud.fail(pdfTooComplex("a content stream nests arrays or dictionaries more than %d deep", maxPDFNesting))
	}
}

// maxPredictorColumns bounds the /Columns of a predictor, which the
// library allocates twice per stream; real images and cross-reference
// streams have thousands at most.
const maxPredictorColumns = 1 << 20

// checkDecodeParms fails the document on a stream whose decode
// parameters the library would allocate by.
func checkDecodeParms(s pdf.Value, bud *budget) {
	check := func(p pdf.Value) {
		if c := p.Key("Columns").Int64(); c < 0 || c > maxPredictorColumns {
			bud.fail(newError(ErrTooComplex, "the PDF is damaged or hostile: a stream declares %d predictor columns", c))
		}
	}
	p := s.Key("DecodeParms")
	if p.Kind() == pdf.Array {
		for i := 0; i < p.Len() && i < 16; i++ {
			check(p.Index(i))
		}
		return
	}
	check(p)
}

// plainStream returns data as an unfiltered stream Value, held by a
// minimal PDF in memory of which it is the only object.
func plainStream(data []byte) pdf.Value {
	var b bytes.Buffer
	b.Grow(len(data) + 200)
	b.WriteString("%PDF-1.7\n")
	obj := b.Len()
	b.WriteString("1 0 obj\n<</Length " + strconv.Itoa(len(data)) + ">>\nstream\n")
	b.Write(data)
	b.WriteString("\nendstream\nendobj\n")
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 2\n0000000000 65535 f \n%010d 00000 n \ntrailer\n<</Size 2/S 1 0 R>>\nstartxref\n%d\n%%%%EOF\n", obj, xref)
	r, err := pdf.NewReader(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		panic(fmt.Errorf("wrapping a decoded stream: %w", err)) // cannot happen: the file is ours
	}
	return r.Trailer().Key("S")
}

// font loads the font named name of a resources' Font dictionary, once
// per document for fonts that are objects of their own.
func (in *interp) font(dict pdf.Value, name string) *pdfFont {
	ref, shared := rawKeyRef(dict, name)
	if shared {
		if f, ok := in.doc.fonts[ref]; ok {
			return f
		}
	}
	f := loadFont(dict.Key(name), in.bud)
	if shared {
		in.doc.fonts[ref] = f
	}
	return f
}

// Bounds of a font's encoding, which the library decodes every character
// code through by a linear search: real fonts have a few hundred
// differences and at most tens of thousands of character map entries.
const (
	maxDifferences = 4096
	maxCMapEntries = 1 << 17
	maxCMapBlock   = 1 << 14
)

// checkFontEncoding fails the document on a font whose encoding the
// library would spend unbounded memory or time on: a character map that
// declares billions of mappings (the library appends that many entries
// before it finds there are none), or an enormous Differences array. It
// returns the cost of decoding one character code, in budget units, and
// whether the library may read the encoding at all.
func checkFontEncoding(v pdf.Value, bud *budget) (cost int, usable bool) {
	if d := v.Key("Encoding").Key("Differences"); d.Len() > maxDifferences {
		bud.fail(newError(ErrTooComplex, "the PDF is too complex to read: a font's encoding lists %d differences", d.Len()))
	}
	cost = 1 + v.Key("Encoding").Key("Differences").Len()/64
	tu := v.Key("ToUnicode")
	if tu.Kind() != pdf.Stream {
		return cost, true
	}
	var buf bytes.Buffer
	func() {
		defer func() {
			if r := recover(); r != nil {
				rethrowStop(r) // a broken map is the library's to report
			}
		}()
		_ = readStream(tu, bud, &buf)
	}()
	checkNesting(buf.Bytes(), bud)
	if hexOpenAtEnd(buf.Bytes(), bud) {
		// The library would read the map for ever (see decodeContent).
		return cost, false
	}
	entries := cmapEntries(buf.Bytes(), bud)
	if entries > maxCMapEntries {
		bud.fail(newError(ErrTooComplex, "the PDF is too complex to read: a font's character map declares %d mappings", entries))
	}
	return cost + entries/256, true
}

// cmapEntries adds up the counts before the begin...char, begin...range
// and begincodespacerange operators of a CMap, failing on a count no
// CMap block may have (the specification allows 100 per block).
func cmapEntries(b []byte, bud *budget) int {
	total := 0
	for _, op := range [][]byte{[]byte("beginbfchar"), []byte("beginbfrange"), []byte("begincodespacerange"), []byte("begincidchar"), []byte("begincidrange")} {
		rest := b
		for {
			i := bytes.Index(rest, op)
			if i < 0 {
				break
			}
			bud.spend(1)
			j := i
			for j > 0 && isPDFSpace(rest[j-1]) {
				j--
			}
			k := j
			for k > 0 && (rest[k-1] >= '0' && rest[k-1] <= '9' || rest[k-1] == '-' || rest[k-1] == '+') {
				k--
			}
			if n, err := strconv.ParseInt(string(rest[k:j]), 10, 64); err == nil || k < j {
				if err != nil || n < 0 || n > maxCMapBlock {
					bud.fail(newError(ErrTooComplex, "the PDF is damaged or hostile: a font's character map declares a block of %s mappings", strconv.Quote(string(rest[k:min(j, k+24)]))))
				}
				total += int(n)
			}
			rest = rest[i+len(op):]
		}
	}
	return total
}

func isPDFSpace(c byte) bool {
	switch c {
	case 0, '\t', '\n', '\f', '\r', ' ':
		return true
	}
	return false
}
