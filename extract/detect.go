package extract

import (
	"archive/zip"
	"bytes"
	"path/filepath"
	"strings"
)

// DetectFormat decides how to read a file. The bytes are trusted first,
// because archives are full of misnamed files (a PDF saved as .doc, an image
// named .txt); the declared content type comes next, the file name
// extension last. Anything unrecognised is treated as plain text, whose
// decoder then tells text from binary data.
func DetectFormat(content []byte, filename, contentType string) Format {
	f, _ := detect(content, filename, contentType)
	return f
}

// detect is DetectFormat plus a description of what the bytes are, used in
// ErrBinary reasons ("binary data, not text: PNG image").
func detect(content []byte, filename, contentType string) (Format, string) {
	declared := formatByMIME(contentType)
	if declared == "" || declared == FormatText {
		// "text/plain" says little (Go's mime calls every .txt that); the
		// extension may say more.
		if byExt := formatByExt(strings.ToLower(filepath.Ext(filename))); byExt != "" {
			declared = byExt
		}
	}
	if f, what := sniff(content, declared); f != "" {
		return f, what
	}
	if declared != "" {
		return declared, declared.Name()
	}
	return FormatText, FormatText.Name()
}

var (
	bomUTF8    = []byte{0xEF, 0xBB, 0xBF}
	bomUTF16LE = []byte{0xFF, 0xFE}
	bomUTF16BE = []byte{0xFE, 0xFF}
	oleMagic   = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}
)

// binarySignatures are common non-document files found in archives. The
// list only needs to name them well; binary data it misses is still caught
// by the text decoder's control-byte check.
var binarySignatures = []struct {
	magic string
	what  string
}{
	{"\x89PNG\r\n\x1a\n", "PNG image"},
	{"\xff\xd8\xff", "JPEG image"},
	{"GIF87a", "GIF image"},
	{"GIF89a", "GIF image"},
	{"II*\x00", "TIFF image"},
	{"MM\x00*", "TIFF image"},
	{"\x7fELF", "executable (ELF)"},
	{"\x1f\x8b", "gzip archive"},
	{"BZh", "bzip2 archive"},
	{"\xfd7zXZ\x00", "xz archive"},
	{"7z\xbc\xaf\x27\x1c", "7-Zip archive"},
	{"Rar!\x1a\x07", "RAR archive"},
	{"OggS", "Ogg audio/video"},
	{"ID3", "MP3 audio"},
	{"SQLite format 3\x00", "SQLite database"},
	{"\x00asm", "WebAssembly module"},
}

// sniff recognises a format by its leading bytes. declared (from content type
// or extension, possibly "") only refines ambiguous containers.
func sniff(content []byte, declared Format) (Format, string) {
	head := content[:min(len(content), 1024)]
	switch {
	case bytes.HasPrefix(content, []byte("%PDF-")),
		declared == FormatPDF && bytes.Contains(head, []byte("%PDF-")):
		// Readers accept a little junk before the header; that is only
		// trusted when the file also claims to be a PDF, so that a text
		// about PDFs is not mistaken for one.
		return FormatPDF, FormatPDF.Name()
	case bytes.HasPrefix(content, []byte("PK\x03\x04")), bytes.HasPrefix(content, []byte("PK\x05\x06")):
		return sniffZip(content, declared)
	case bytes.HasPrefix(content, oleMagic):
		if isEncryptedOOXML(content) {
			// A password-protected DOCX is an OLE2 container holding the
			// encrypted package: its parser reports it as encrypted.
			return FormatDOCX, FormatDOCX.Name()
		}
		if declared == FormatDOC {
			return FormatDOC, FormatDOC.Name()
		}
		return FormatBinary, "Microsoft Office 97-2003 file (OLE2)"
	case bytes.HasPrefix(content, []byte(`{\rtf`)):
		return FormatRTF, FormatRTF.Name()
	}
	for _, s := range binarySignatures {
		if bytes.HasPrefix(content, []byte(s.magic)) {
			return FormatBinary, s.what
		}
	}
	// Markup may sit behind a byte-order mark; UTF-16 is reduced to its ASCII
	// bytes, which is all the markup test needs.
	markup := head
	switch {
	case bytes.HasPrefix(head, bomUTF8):
		markup = head[3:]
	case bytes.HasPrefix(head, bomUTF16LE):
		markup = asciiOfUTF16(head[2:], 0)
	case bytes.HasPrefix(head, bomUTF16BE):
		markup = asciiOfUTF16(head[2:], 1)
	}
	if isHTML(markup) {
		return FormatHTML, FormatHTML.Name()
	}
	if bytes.HasPrefix(markup, []byte(`{\rtf`)) {
		return FormatRTF, FormatRTF.Name()
	}
	if len(markup) != len(head) {
		return FormatText, FormatText.Name() // a BOM is a claim to be text
	}
	return "", ""
}

// asciiOfUTF16 keeps the low byte of each code unit (the first byte in
// little-endian, the second in big-endian), enough to recognise "<html".
func asciiOfUTF16(b []byte, hiFirst int) []byte {
	out := make([]byte, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		out = append(out, b[i+hiFirst])
	}
	return out
}

// isHTML accepts documents that open with markup announcing HTML: a doctype,
// an <html> element, or an XML declaration or comment followed by either.
func isHTML(head []byte) bool {
	s := strings.ToLower(strings.TrimLeft(string(head), " \t\r\n\f"))
	if strings.HasPrefix(s, "<!doctype html") || strings.HasPrefix(s, "<html") {
		return true
	}
	if strings.HasPrefix(s, "<?xml") || strings.HasPrefix(s, "<!--") {
		return strings.Contains(s, "<html") || strings.Contains(s, "<!doctype html")
	}
	return false
}

// odfText reports whether an OpenDocument "mimetype" entry names a text
// document: a Writer text, or one of its kin whose body is the same
// office:text (Writer/Web, master documents, templates).
func odfText(mt string) bool {
	switch strings.TrimPrefix(mt, formats[FormatODT].mimes[0]) {
	case "", "-web", "-master", "-template", "-master-template":
		return strings.HasPrefix(mt, formats[FormatODT].mimes[0])
	}
	return false
}

// sniffZip tells DOCX and ODT apart from other ZIP files. ODT stores a
// "mimetype" entry first and uncompressed; DOCX (Office Open XML) has
// [Content_Types].xml and a word/ part.
func sniffZip(content []byte, declared Format) (Format, string) {
	// ODT's fast path: local header (30 bytes) + "mimetype" + the MIME type itself.
	if len(content) > 38 && string(content[30:38]) == "mimetype" {
		rest := content[38:min(len(content), 38+80)]
		if bytes.HasPrefix(rest, []byte(formats[FormatODT].mimes[0])) &&
			!bytes.HasPrefix(rest, []byte(formats[FormatODT].mimes[0]+"-")) {
			return FormatODT, FormatODT.Name()
		}
	}
	zr, err := zip.NewReader(bytes.NewReader(content), int64(len(content)))
	if err != nil {
		// A damaged archive: if it claims to be DOCX/ODT, let that parser
		// report it as corrupt with detail.
		if declared == FormatDOCX || declared == FormatODT {
			return declared, declared.Name()
		}
		return FormatBinary, "ZIP archive"
	}
	var contentTypes, word bool
	for _, f := range zr.File {
		switch {
		case f.Name == "[Content_Types].xml":
			contentTypes = true
		case strings.HasPrefix(f.Name, "word/"):
			word = true
		case f.Name == "mimetype":
			if mt := readSmall(f); odfText(mt) {
				return FormatODT, FormatODT.Name()
			} else if strings.HasPrefix(mt, "application/vnd.oasis.opendocument.") {
				return FormatBinary, "OpenDocument file that is not text (" + strings.TrimPrefix(mt, "application/vnd.oasis.opendocument.") + ")"
			}
		}
	}
	switch {
	case contentTypes && word:
		return FormatDOCX, FormatDOCX.Name()
	case contentTypes:
		return FormatBinary, "Office Open XML file that is not a Word document"
	case declared == FormatDOCX || declared == FormatODT:
		return declared, declared.Name()
	}
	return FormatBinary, "ZIP archive"
}

func readSmall(f *zip.File) string {
	if f.UncompressedSize64 > 200 {
		return ""
	}
	rc, err := f.Open()
	if err != nil {
		return ""
	}
	defer rc.Close()
	var buf [200]byte
	n, _ := rc.Read(buf[:])
	return strings.TrimSpace(string(buf[:n]))
}
