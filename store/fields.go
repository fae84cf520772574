package store

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/plagd/plagd/internal/safetext"
)

// Bounds of the text fields plagd writes from what a file or a client
// brought (internal/safetext makes them valid UTF-8 without control
// characters first). Each is far above any honest value and far below what
// breaks PostgreSQL: a btree entry (external_id is unique) must stay under
// about 2.7 kB, and a text value under 1 GB.
// MaxFileNameBytes caps documents.filename (what most file systems allow);
// the web interface cuts uploaded names to it too.
const MaxFileNameBytes = 255

const (
	MaxTitleBytes      = 1000 // documents.title and author
	MaxKindBytes       = 100  // documents.kind, document_status.error_kind
	MaxExternalIDBytes = 1000 // documents.external_id
	MaxReasonBytes     = 1000 // document_status.error, ingest failure reasons
	MaxPathShownBytes  = 1000 // a path in a log line or a summary
	// MaxStoredTextBytes bounds a document's extracted text: it is staged,
	// stored in document_texts and chunked. A longer text fails its
	// document (too_large) instead of the run's commit.
	MaxStoredTextBytes = 256 << 20
)

// ReasonField is a failure reason as stored and shown.
func ReasonField(s string) string { return safetext.Line(s, MaxReasonBytes) }

// PathShown is a file path as logged or listed in a summary.
func PathShown(p string) string { return safetext.Line(p, MaxPathShownBytes) }

// FileNameField is a file name as stored: one line of at most
// MaxFileNameBytes that keeps its extension (plagd detects the format by it).
func FileNameField(name string) string { return safetext.FileName(name, MaxFileNameBytes) }

// ExternalIDField is an external id given by a client as stored: left as
// it is when clean (an integrator finds its document by it again), else
// made one bounded line. A clash with another document's id is then the
// unique constraint's (ErrExternalIDTaken), never a silent overwrite.
func ExternalIDField(id string) string {
	if ExternalIDProblem(id) == "" {
		return id
	}
	return safetext.Line(id, MaxExternalIDBytes)
}

// ExternalIDProblem says why id cannot be stored as it is, or "". Ingest
// refuses such a file rather than store it under an altered id: two files
// whose names alter to one id would overwrite each other at every import.
func ExternalIDProblem(id string) string {
	switch {
	case !utf8.ValidString(id):
		return "the file name is not valid UTF-8; rename the file"
	case len(id) > MaxExternalIDBytes:
		return fmt.Sprintf("the path is %d bytes long, over the %d bytes an external id may have; ingest a folder closer to the file or shorten the names",
			len(id), MaxExternalIDBytes)
	case strings.IndexFunc(id, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }) >= 0:
		return "the file name holds control or invisible formatting characters (such as a line break or a right-to-left override); rename the file"
	}
	return ""
}

// StorableText is an extracted text as it may be staged and stored: valid
// UTF-8 without NUL (safetext.Text), or a failure reason when it is too long.
func StorableText(text string) (string, string) {
	if len(text) > MaxStoredTextBytes {
		return "", fmt.Sprintf("the extracted text is %d MB, over the %d MB plagd stores per document; split the document",
			len(text)>>20, MaxStoredTextBytes>>20)
	}
	return safetext.Text(text), ""
}
