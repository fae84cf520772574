package extract

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"fmt"
	"hash/crc32"
	"io"
	"strings"
	"testing"
)

// encryptedOOXML imitates a password-protected DOCX: an OLE2 compound
// file whose directory names the EncryptionInfo and EncryptedPackage
// streams in UTF-16LE.
func encryptedOOXML() []byte {
	b := append([]byte{}, oleMagic...)
	b = append(b, make([]byte, 504)...)
	for _, name := range []string{"EncryptionInfo", "EncryptedPackage"} {
		for _, r := range name {
			b = append(b, byte(r), 0)
		}
		b = append(b, make([]byte, 64)...)
	}
	return b
}

// readPart reads entry name of content through openZip's limits.
func readPart(content []byte, name string, opt Options) error {
	z, err := openZip(content, FormatDOCX, opt)
	if err != nil {
		return err
	}
	rc, err := z.open(name, "the part")
	if err != nil {
		return err
	}
	defer rc.Close()
	if _, err := io.Copy(io.Discard, rc); err != nil {
		return z.readError(name, err)
	}
	return nil
}

func TestZip_TotalLimit(t *testing.T) {
	// Stored, not compressed: only the total cap can stop it.
	doc := zipOf(t, "word/document.xml", strings.Repeat("x", 4096))
	if err := readPart(doc, "word/document.xml", Options{MaxUnzipped: 4096}); err != nil {
		t.Fatalf("exactly at the limit: %v", err)
	}
	err := readPart(doc, "word/document.xml", Options{MaxUnzipped: 4095})
	wantErrorKind(t, err, ErrCorrupt, "unpacks to more than 4.0 KB (a zip bomb?)")

	// The cap is over all parts read, not per part.
	two := zipOf(t, "a", strings.Repeat("x", 3000), "b", strings.Repeat("y", 3000))
	z, err := openZip(two, FormatDOCX, Options{MaxUnzipped: 5000})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := z.readAll("a", "a"); err != nil {
		t.Fatal(err)
	}
	_, err = z.readAll("b", "b")
	wantErrorKind(t, err, ErrCorrupt, "zip bomb")
}

func TestZip_DefaultLimitMessage(t *testing.T) {
	z := &zipFile{format: FormatDOCX, left: 0, limit: DefaultMaxUnzipped}
	r := &zipEntryReader{z: z, f: &zip.File{}, rc: io.NopCloser(strings.NewReader("xx"))}
	_, err := r.Read(make([]byte, 10))
	wantErrorKind(t, err, ErrCorrupt, "the Word (DOCX) file unpacks to more than 1 GiB (a zip bomb?)")
}

func TestZip_Ratio(t *testing.T) {
	// 17 MiB of spaces deflate to a few KiB: stopped by the ratio at 16
	// MiB, long before the 1 GiB default cap.
	bomb := zipDeflated(t, "word/document.xml", strings.Repeat(" ", zipRatioFloor+1<<20))
	err := readPart(bomb, "word/document.xml", Options{})
	wantErrorKind(t, err, ErrCorrupt, "word/document.xml unpacks to more than 200 times its packed size")
}

// TestZip_LyingHeader: sizes in the headers are not trusted. The entry
// claims 10 bytes and inflates to 64 KiB.
func TestZip_LyingHeader(t *testing.T) {
	data := bytes.Repeat([]byte("lie "), 16<<10)
	var packed bytes.Buffer
	fw, _ := flate.NewWriter(&packed, flate.BestCompression)
	fw.Write(data)
	fw.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "word/document.xml", Method: zip.Deflate,
		CRC32: crc32.ChecksumIEEE(data), CompressedSize64: uint64(packed.Len()), UncompressedSize64: 10})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(packed.Bytes())
	zw.Close()
	err = readPart(buf.Bytes(), "word/document.xml", Options{MaxUnzipped: 32 << 10})
	wantErrorKind(t, err, ErrCorrupt, "")
}

func TestZip_Entries(t *testing.T) {
	var entries []string
	for i := range 50 {
		entries = append(entries, fmt.Sprintf("f%d", i), "x")
	}
	many := zipOf(t, entries...)
	if _, err := openZip(many, FormatODT, Options{MaxZipEntries: 50}); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	_, err := openZip(many, FormatODT, Options{MaxZipEntries: 49})
	wantErrorKind(t, err, ErrCorrupt, "OpenDocument text (ODT) file holds 50 packed files, more than the limit of 49 (a zip bomb?)")
	if n, ok := zipEntryCount(many); !ok || n != 50 {
		t.Errorf("zipEntryCount = %d, %v", n, ok)
	}
}

func TestZip_Damage(t *testing.T) {
	doc := docxOf(t, para(strings.Repeat("Some text to compress. ", 200)))
	truncated := doc[:len(doc)/2]
	_, err := parseDOCX(truncated, Options{})
	wantErrorKind(t, err, ErrCorrupt, "damaged")

	// Flip a byte inside the compressed document: a checksum or inflate error.
	z, _ := zip.NewReader(bytes.NewReader(doc), int64(len(doc)))
	off, _ := z.File[1].DataOffset()
	bad := append([]byte{}, doc...)
	bad[off+20] ^= 0xff
	_, err = parseDOCX(bad, Options{})
	wantErrorKind(t, err, ErrCorrupt, "damaged")
}

func TestZip_PartPath(t *testing.T) {
	for _, c := range [][3]string{
		{"word/document.xml", "footnotes.xml", "word/footnotes.xml"},
		{"word/document.xml", "/word/x.xml", "word/x.xml"},
		{"word/document.xml", "../customXml/a.xml", "customXml/a.xml"},
		{"", "word/document.xml", "word/document.xml"},
	} {
		if got := zipPartPath(c[0], c[1]); got != c[2] {
			t.Errorf("zipPartPath(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

func TestZip_EncryptedOOXML(t *testing.T) {
	if !isEncryptedOOXML(encryptedOOXML()) {
		t.Error("encrypted package not recognised")
	}
	if isEncryptedOOXML(append(append([]byte{}, oleMagic...), "plain OLE2"...)) {
		t.Error("plain OLE2 file taken for an encrypted package")
	}
}
