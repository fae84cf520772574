package extract

import "fmt"

// Kind classifies why a document yields no text. The kinds are stable: the
// daemon counts failures by kind and the API reports Kind.String() to
// integrators, while Error.Reason is the sentence a person reads.
//
// Each kind is itself an error, so that callers can write
// errors.Is(err, extract.ErrEmpty) without caring about the reason text.
type Kind int

const (
	// ErrEmpty: the file is fine but holds no text (an empty file, only
	// whitespace, or a scanned PDF without a text layer).
	ErrEmpty Kind = iota + 1
	// ErrTooLarge: the file exceeds Options.MaxBytes (extract.max_bytes).
	ErrTooLarge
	// ErrBinary: the bytes are not text in any encoding plagd knows, e.g. an
	// image or an executable named .txt.
	ErrBinary
	// ErrUnsupported: a recognised document format plagd cannot read (yet).
	ErrUnsupported
	// ErrCorrupt: the format is supported but the file is damaged.
	ErrCorrupt
	// ErrEncrypted: the file is password-protected.
	ErrEncrypted
	// ErrNoTextLayer: a PDF whose pages are images (a scan) and OCR is off
	// or found nothing.
	ErrNoTextLayer
	// ErrTimeout: extraction took longer than Options.Timeout.
	ErrTimeout
	// ErrTooComplex: reading the file would cost more than its limits allow
	// (pages, nested drawings, glyphs, decoded bytes, memory), whatever its
	// size on disk: a hostile or pathological file.
	ErrTooComplex
)

// String is the machine-readable name of the kind.
func (k Kind) String() string {
	switch k {
	case ErrEmpty:
		return "empty"
	case ErrTooLarge:
		return "too_large"
	case ErrBinary:
		return "binary"
	case ErrUnsupported:
		return "unsupported"
	case ErrCorrupt:
		return "corrupt"
	case ErrEncrypted:
		return "encrypted"
	case ErrNoTextLayer:
		return "no_text_layer"
	case ErrTimeout:
		return "timeout"
	case ErrTooComplex:
		return "too_complex"
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Error is the generic sentence for the kind, used when an *Error has no Reason.
func (k Kind) Error() string {
	switch k {
	case ErrEmpty:
		return "the document contains no text"
	case ErrTooLarge:
		return "the file is too large"
	case ErrBinary:
		return "binary data, not text"
	case ErrUnsupported:
		return "the format is not supported yet"
	case ErrCorrupt:
		return "the file is damaged and cannot be read"
	case ErrEncrypted:
		return "the file is password-protected"
	case ErrNoTextLayer:
		return "no text layer: the pages are images (a scan)"
	case ErrTimeout:
		return "text extraction took too long"
	case ErrTooComplex:
		return "the file is too complex to read within plagd's limits"
	}
	return k.String()
}

// Error is the only error type Text returns. Reason is stored on the document
// (document_status.error) and shown to archive staff, so it says what is wrong
// with the file in words a non-programmer can act on.
type Error struct {
	Kind   Kind
	Reason string
}

func (e *Error) Error() string {
	if e.Reason == "" {
		return e.Kind.Error()
	}
	return e.Reason
}

// Is makes errors.Is(err, extract.ErrBinary) true for any *Error of that kind.
func (e *Error) Is(target error) bool {
	k, ok := target.(Kind)
	return ok && k == e.Kind
}

func newError(k Kind, format string, args ...any) *Error {
	return &Error{Kind: k, Reason: fmt.Sprintf(format, args...)}
}
