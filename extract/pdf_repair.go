package extract

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"regexp"
	"strconv"
)

// repairTrailer gives a PDF that lost its end (an upload cut short, a
// copy that stopped) a trailer again, so that PDFium can open it. Such a
// file still holds most of its objects, but not the cross-reference
// table and trailer that say which object is the document catalog, and
// PDFium gives up where poppler's pdftotext reads it. PDFium rebuilds the
// cross-reference table of a damaged file by scanning it for objects; it
// only needs the catalog named in a trailer. repairTrailer finds the
// catalog among the file's objects, and inside its object streams when
// the file compresses its objects, and appends a trailer naming it. ok is
// false when no catalog is found.
func repairTrailer(content []byte, bud *budget) (repaired []byte, ok bool) {
	root, ok := findCatalog(content, bud)
	if !ok {
		return nil, false
	}
	var b bytes.Buffer
	b.Grow(len(content) + 100)
	b.Write(content)
	closeOpenStream(&b, content)
	fmt.Fprintf(&b, "\ntrailer\n<< /Root %d 0 R >>\nstartxref\n0\n%%%%EOF\n", root)
	return b.Bytes(), true
}

// rebuildXref gives a PDF whose cross-reference table is lost or wrong a
// new one, listing every object found by scanning the file for "N G obj"
// (the last definition of a number wins, as in an updated file), and a
// trailer naming the catalog. It is what viewers do with such files, and
// lets the Go reader check the structure of a file it could not open
// (preflightPDF). Objects inside object streams are not listed (a classic
// table cannot say where they are); streams, forms among them, never are.
// Object numbers far beyond the count of objects found are ignored: a
// table for them would cost more than the file.
func repairXref(content []byte, bud *budget) ([]byte, bool) {
	root, ok := findCatalog(content, bud)
	if !ok {
		return nil, false
	}
	headers := objHeader.FindAllSubmatchIndex(content, -1)
	limit := 4*len(headers) + 1000
	type entry struct{ off, gen int }
	entries := map[int]entry{}
	size := 1
	for _, h := range headers {
		bud.spend(16)
		num, err1 := strconv.Atoi(string(content[h[2]:h[3]]))
		gen, err2 := strconv.Atoi(string(content[h[4]:h[5]]))
		if err1 != nil || err2 != nil || num <= 0 || num > limit || gen > 65535 {
			continue
		}
		entries[num] = entry{h[0], gen}
		size = max(size, num+1)
	}
	var b bytes.Buffer
	b.Grow(len(content) + 20*size + 100)
	b.Write(content)
	closeOpenStream(&b, content)
	b.WriteByte('\n')
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", size)
	for num := 1; num < size; num++ {
		if e, ok := entries[num]; ok {
			fmt.Fprintf(&b, "%010d %05d n \n", e.off, e.gen)
		} else {
			b.WriteString("0000000000 65535 f \n")
		}
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", size, root, xref)
	return b.Bytes(), true
}

// closeOpenStream ends a file cut inside a stream, so that the objects
// before it are not read as part of it.
func closeOpenStream(b *bytes.Buffer, content []byte) {
	if bytes.LastIndex(content, []byte("endstream")) < bytes.LastIndex(content, []byte("stream")) {
		b.WriteString("\nendstream\nendobj")
	}
}

var (
	objHeader   = regexp.MustCompile(`(\d+)\s+(\d+)\s+obj\b`)
	catalogType = regexp.MustCompile(`/Type\s*/Catalog\b`)
	objStmType  = regexp.MustCompile(`/Type\s*/ObjStm\b`)
	objStmFirst = regexp.MustCompile(`/First\s+(\d+)`)
)

// maxRepairStream bounds the decompressed bytes of one object stream read
// while looking for the catalog.
const maxRepairStream = 16 << 20

// findCatalog finds the object number of the document catalog: the last
// object whose dictionary says /Type /Catalog, at the top level or in an
// object stream.
func findCatalog(content []byte, bud *budget) (int, bool) {
	headers := objHeader.FindAllSubmatchIndex(content, -1)
	found, root := false, 0
	for i, h := range headers {
		bud.spend(16)
		end := len(content)
		if i+1 < len(headers) {
			end = headers[i+1][0]
		}
		body := content[h[1]:end]
		num, err := strconv.Atoi(string(content[h[2]:h[3]]))
		if err != nil {
			continue
		}
		head := body[:min(len(body), 4096)]
		if s := bytes.Index(head, []byte("stream")); s >= 0 {
			head = head[:s]
		}
		switch {
		case catalogType.Match(head):
			found, root = true, num
		case objStmType.Match(head):
			if n, ok := catalogInObjStm(head, body, bud); ok {
				found, root = true, n
			}
		}
	}
	return root, found
}

// catalogInObjStm looks for the catalog among the objects of an object
// stream (dict is its dictionary, body the object from the dictionary on).
func catalogInObjStm(dict, body []byte, bud *budget) (int, bool) {
	first := objStmFirst.FindSubmatch(dict)
	s := bytes.Index(body, []byte("stream"))
	if first == nil || s < 0 {
		return 0, false
	}
	data := body[s+len("stream"):]
	switch {
	case bytes.HasPrefix(data, []byte("\r\n")):
		data = data[2:]
	case bytes.HasPrefix(data, []byte("\n")), bytes.HasPrefix(data, []byte("\r")):
		data = data[1:]
	}
	if e := bytes.Index(data, []byte("endstream")); e >= 0 {
		data = data[:e]
	}
	zr, err := zlib.NewReader(bytes.NewReader(data))
	if err != nil {
		return 0, false
	}
	plain, _ := io.ReadAll(io.LimitReader(zr, maxRepairStream)) // a cut stream gives what it has
	bud.streamBytes(len(plain))
	off, err := strconv.Atoi(string(first[1]))
	if err != nil || off > len(plain) {
		return 0, false
	}
	// The header: pairs of object number and offset from First.
	fields := bytes.Fields(plain[:off])
	for i := 0; i+1 < len(fields); i += 2 {
		num, err1 := strconv.Atoi(string(fields[i]))
		at, err2 := strconv.Atoi(string(fields[i+1]))
		if err1 != nil || err2 != nil || off+at >= len(plain) {
			continue
		}
		obj := plain[off+at:]
		if i+3 < len(fields) {
			if next, err := strconv.Atoi(string(fields[i+3])); err == nil && next > at && off+next <= len(plain) {
				obj = plain[off+at : off+next]
			}
		}
		if catalogType.Match(obj[:min(len(obj), 4096)]) {
			return num, true
		}
	}
	return 0, false
}
