package extract

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"unicode/utf16"
)

// DOCX and ODT files are zip archives, and a zip archive can be a bomb: a
// few kilobytes that inflate to terabytes, or millions of entries. zipFile
// opens one with limits so that such a file fails as ErrCorrupt, after
// bounded work and memory, instead of taking a node down:
//
//   - at most Options.MaxZipEntries entries;
//   - at most Options.MaxUnzipped bytes inflated over all entries read,
//     counted on the bytes actually produced (the sizes in the headers are
//     the attacker's to choose);
//   - no entry inflating to more than maxZipRatio times its compressed size
//     once it is past zipRatioFloor bytes, which stops a bomb long before
//     the total cap. XML of real documents compresses 5-30 times.
//
// Parts are streamed (the XML decoders read from the inflater), so memory
// follows the text extracted, not the size of the parts.
type zipFile struct {
	format   Format
	files    []*zip.File
	left     int64 // bytes that may still be inflated
	limit    int64 // Options.MaxUnzipped, for messages
	inflated int64
}

// maxSmallPart bounds the parts read whole (relationships, the manifest),
// which are a few kilobytes in real files.
const maxSmallPart = 8 << 20

const (
	maxZipRatio   = 200
	zipRatioFloor = 16 << 20
)

// openZip opens content as the zip package of a file of the given format.
func openZip(content []byte, format Format, opt Options) (*zipFile, error) {
	if isEncryptedOOXML(content) {
		return nil, newError(ErrEncrypted, "the %s file is password-protected; plagd needs a copy saved without a password", format.Name())
	}
	if bytes.HasPrefix(content, oleMagic) {
		return nil, newError(ErrUnsupported, "the %s file is in fact a Microsoft Office 97-2003 file (OLE2), which plagd cannot read; save it as DOCX", format.Name())
	}
	maxEntries := opt.MaxZipEntries
	if maxEntries <= 0 {
		maxEntries = DefaultMaxZipEntries
	}
	limit := opt.MaxUnzipped
	if limit <= 0 {
		limit = DefaultMaxUnzipped
	}
	// The entry count is read from the end-of-central-directory record
	// before archive/zip allocates a record for each entry.
	if n, ok := zipEntryCount(content); ok && n > uint64(maxEntries) {
		return nil, zipTooManyEntries(format, n, maxEntries)
	}
	zr, err := zip.NewReader(bytes.NewReader(content), int64(len(content)))
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) { // names are only looked up, never written
		return nil, newError(ErrCorrupt, "the %s file is damaged: %s", format.Name(), zipProblem(err))
	}
	if len(zr.File) > maxEntries {
		return nil, zipTooManyEntries(format, uint64(len(zr.File)), maxEntries)
	}
	return &zipFile{format: format, files: zr.File, left: limit, limit: limit}, nil
}

func zipTooManyEntries(format Format, n uint64, maxEntries int) *Error {
	return newError(ErrCorrupt, "the %s file holds %d packed files, more than the limit of %d (a zip bomb?)",
		format.Name(), n, maxEntries)
}

// zipEntryCount reads the total entry count from the end-of-central-directory
// record (ok false when there is none, or the count is in a zip64 record).
func zipEntryCount(b []byte) (uint64, bool) {
	const eocdLen = 22
	start := max(0, len(b)-eocdLen-0xffff)
	i := bytes.LastIndex(b[start:], []byte("PK\x05\x06"))
	if i < 0 || start+i+eocdLen > len(b) {
		return 0, false
	}
	rec := b[start+i:]
	n := uint64(rec[10]) | uint64(rec[11])<<8
	return n, n != 0xffff
}

// find returns the entry named name ("word/document.xml"), or nil. Names
// are matched ignoring case and a leading slash, as Office does.
func (z *zipFile) find(name string) *zip.File {
	name = strings.TrimPrefix(name, "/")
	for _, f := range z.files {
		if strings.EqualFold(strings.TrimPrefix(f.Name, "/"), name) {
			return f
		}
	}
	return nil
}

// open streams the inflated bytes of entry name within the limits. A
// missing entry is reported as ErrCorrupt naming what it is (what, e.g.
// "the main document part").
func (z *zipFile) open(name, what string) (io.ReadCloser, error) {
	f := z.find(name)
	if f == nil {
		return nil, newError(ErrCorrupt, "the %s file is damaged: %s (%s) is missing", z.format.Name(), what, name)
	}
	if f.Flags&0x1 != 0 {
		return nil, newError(ErrEncrypted, "the %s file is password-protected; plagd needs a copy saved without a password", z.format.Name())
	}
	rc, err := f.Open()
	if err != nil {
		return nil, newError(ErrCorrupt, "the %s file is damaged: %s cannot be unpacked: %s", z.format.Name(), name, zipProblem(err))
	}
	return &zipEntryReader{z: z, f: f, rc: rc}, nil
}

// readAll reads a small entry (relationships, manifest) whole, within the
// same limits.
func (z *zipFile) readAll(name, what string) ([]byte, error) {
	rc, err := z.open(name, what)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxSmallPart+1))
	if err != nil {
		return nil, z.readError(name, err)
	}
	if len(b) > maxSmallPart {
		return nil, newError(ErrTooComplex, "the %s file is too complex to read: %s is larger than %d bytes", z.format.Name(), name, maxSmallPart)
	}
	return b, nil
}

// readError turns an error met while reading entry name into an *Error.
func (z *zipFile) readError(name string, err error) *Error { return xmlPartError(z.format, name, err) }

// zipEntryReader counts the bytes inflated from one entry against the
// archive's limits.
type zipEntryReader struct {
	z    *zipFile
	f    *zip.File
	rc   io.ReadCloser
	read int64
}

func (r *zipEntryReader) Read(p []byte) (int, error) {
	z := r.z
	// Never hand out more than the budget allows: read one byte past it
	// so that an entry ending exactly at the limit still passes.
	if int64(len(p)) > z.left+1 {
		p = p[:z.left+1]
	}
	n, err := r.rc.Read(p)
	r.read += int64(n)
	z.left -= int64(n)
	z.inflated += int64(n)
	if z.left < 0 {
		return 0, newError(ErrCorrupt, "the %s file unpacks to more than %s (a zip bomb?)", z.format.Name(), zipBytes(z.limit))
	}
	if r.read > zipRatioFloor && r.read > maxZipRatio*int64(max(r.f.CompressedSize64, 1)) {
		// CompressedSize64 bounds the compressed bytes the inflater may
		// consume, so a lie in the header only makes this fire sooner.
		return 0, newError(ErrCorrupt, "the %s file is damaged or a zip bomb: %s unpacks to more than %d times its packed size",
			z.format.Name(), r.f.Name, maxZipRatio)
	}
	return n, err
}

func (r *zipEntryReader) Close() error { return r.rc.Close() }

// zipProblem words archive/zip's errors for the reason shown to staff.
func zipProblem(err error) string {
	switch {
	case errors.Is(err, zip.ErrFormat):
		return "not a valid zip archive (truncated or overwritten?)"
	case errors.Is(err, zip.ErrChecksum):
		return "checksum mismatch (the file was altered or truncated)"
	case errors.Is(err, zip.ErrAlgorithm):
		return "packed with a compression method plagd cannot read"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the file is truncated"
	}
	return err.Error()
}

func zipBytes(n int64) string {
	if n >= 1<<30 && n%(1<<30) == 0 {
		return fmt.Sprintf("%d GiB", n>>30)
	}
	return humanBytes(n)
}

// zipPartPath resolves a relationship target against the part that holds
// the relationship ("word/document.xml" + "footnotes.xml" is
// "word/footnotes.xml"); a target starting with "/" is from the root.
func zipPartPath(source, target string) string {
	if strings.HasPrefix(target, "/") {
		return path.Clean(target[1:])
	}
	return path.Join(path.Dir(source), target)
}

// encryptedPackage is the stream name that marks a password-protected
// OOXML file. Office does not encrypt inside the zip: it wraps the whole
// encrypted package in an OLE2 compound file with streams "EncryptionInfo"
// and "EncryptedPackage", whose directory stores names in UTF-16LE.
var encryptedPackage = func() []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune("EncryptedPackage")) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}()

// isEncryptedOOXML reports whether content is a password-protected Office
// Open XML file (DOCX, XLSX, PPTX). Detection may use it to route such an
// OLE2 file to the DOCX parser, which then reports ErrEncrypted.
func isEncryptedOOXML(content []byte) bool {
	return bytes.HasPrefix(content, oleMagic) && bytes.Contains(content, encryptedPackage)
}
