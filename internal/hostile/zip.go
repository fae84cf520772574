package hostile

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"hash/crc32"
	"io"
	"math/rand"
)

const docxContentTypes = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`

const docxRels = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`

const docxHead = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`

const docxTail = `</w:body></w:document>`

// docxParagraphs is the body of paragraphs of text.
func docxParagraphs(paras ...string) string {
	var b bytes.Buffer
	for _, p := range paras {
		b.WriteString("<w:p><w:r><w:t xml:space=\"preserve\">" + p + "</w:t></w:r></w:p>")
	}
	return b.String()
}

// zipParts writes a zip of the named parts, deflated; a part whose
// content is nil is written by its writer function instead.
type zipPart struct {
	name   string
	data   string
	stream func(w io.Writer)
}

func zipParts(parts ...zipPart) []byte {
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	z.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestCompression)
	})
	for _, p := range parts {
		w, err := z.CreateHeader(&zip.FileHeader{Name: p.name, Method: zip.Deflate})
		if err != nil {
			panic(err) // cannot happen: the names are ours
		}
		if p.stream != nil {
			p.stream(w)
		} else {
			io.WriteString(w, p.data)
		}
	}
	if err := z.Close(); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// SimpleDOCX is a valid DOCX of the given paragraphs.
func SimpleDOCX(paras ...string) []byte {
	return zipParts(
		zipPart{name: "[Content_Types].xml", data: docxContentTypes},
		zipPart{name: "_rels/.rels", data: docxRels},
		zipPart{name: "word/document.xml", data: docxHead + docxParagraphs(paras...) + docxTail},
	)
}

// SimpleODT is a valid ODT of the given paragraphs.
func SimpleODT(paras ...string) []byte {
	var body bytes.Buffer
	for _, p := range paras {
		body.WriteString("<text:p>" + p + "</text:p>")
	}
	return zipParts(
		zipPart{name: "mimetype", data: "application/vnd.oasis.opendocument.text"},
		zipPart{name: "META-INF/manifest.xml", data: `<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>`},
		zipPart{name: "content.xml", data: `<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"><office:body><office:text>` + body.String() + `</office:text></office:body></office:document-content>`},
	)
}

// HugeCommentDOCX is item 4: a DOCX whose word/document.xml holds one XML
// comment of size bytes between two paragraphs. The comment is text of low
// entropy that deflates about 150 times (a 1 GiB comment is a zip of about
// 7 MB, under the 200:1 ratio cap of extract). The generator never holds the
// comment: it deflates one 1 MiB block of it once and repeats the deflated
// block (deflate blocks ended by a sync flush concatenate), so a 1 GiB
// comment costs a second, not a minute of compression.
func HugeCommentDOCX(size int64) []byte {
	size = max(size, 0)
	block := lowEntropy(1<<20, 1)
	head := []byte(docxHead + docxParagraphs("Before the comment.") + "<!--")
	tail := []byte("-->" + docxParagraphs("After the comment.") + docxTail)
	rest := lowEntropy(int(size%int64(len(block))), 2)
	repeats := size / int64(len(block))

	var raw bytes.Buffer
	crc := crc32.NewIEEE()
	add := func(data []byte, times int64) {
		z := deflateFlushed(data)
		for range times {
			raw.Write(z)
			crc.Write(data)
		}
	}
	add(head, 1)
	add(block, repeats)
	add(rest, 1)
	add(tail, 1)
	raw.Write(finalDeflateBlock)
	total := int64(len(head)+len(rest)+len(tail)) + repeats*int64(len(block))

	var b bytes.Buffer
	z := zip.NewWriter(&b)
	for _, p := range []zipPart{{name: "[Content_Types].xml", data: docxContentTypes}, {name: "_rels/.rels", data: docxRels}} {
		w, _ := z.Create(p.name)
		io.WriteString(w, p.data)
	}
	w, err := z.CreateRaw(&zip.FileHeader{Name: "word/document.xml", Method: zip.Deflate, CRC32: crc.Sum32(),
		CompressedSize64: uint64(raw.Len()), UncompressedSize64: uint64(total)})
	if err != nil {
		panic(err)
	}
	w.Write(raw.Bytes())
	if err := z.Close(); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// deflateFlushed deflates data into non-final blocks ending on a byte
// boundary, so that its output can be repeated and concatenated.
func deflateFlushed(data []byte) []byte {
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestCompression)
	w.Write(data)
	w.Flush()
	return b.Bytes()
}

// finalDeflateBlock is an empty final block (fixed Huffman codes), which
// ends a deflate stream.
var finalDeflateBlock = []byte{0x03, 0x00}

// lowEntropy is n bytes of runs of one letter broken by random letters,
// which deflate to about 1/150 of their size.
func lowEntropy(n int, seed int64) []byte {
	rng := rand.New(rand.NewSource(seed))
	buf := make([]byte, n)
	for i := range buf {
		if rng.Intn(480) == 0 {
			buf[i] = byte('a' + rng.Intn(26))
		} else {
			buf[i] = 'x'
		}
	}
	return buf
}
